module covey/scripts/catalog

go 1.26.6

require charm.land/catwalk v0.52.1

require github.com/charmbracelet/x/etag v0.2.0 // indirect
