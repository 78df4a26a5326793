package permission

import (
	"strings"
	"testing"
)

func TestCheckAllowed(t *testing.T) {
	tests := []struct {
		allowed []string
		rel     string
		ok      bool
	}{
		{nil, "anything", true},
		{[]string{"docs/**"}, "docs/a/b.md", true},
		{[]string{"docs/**"}, "src/a.go", false},
		{[]string{"*.md"}, "README.md", true},
		{[]string{"*.md"}, "docs/README.md", false},
		{[]string{"**/*.md"}, "docs/README.md", true},
		{[]string{"docs"}, "docs/x", true},
		{[]string{"docs/"}, "docs/x/y", true},
		{[]string{"./docs/**"}, "docs/x", true},
		{[]string{"docs"}, "docsx/y", false},
		{[]string{"[bad"}, "x", false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.allowed, ",")+"→"+tt.rel, func(t *testing.T) {
			err := CheckAllowedPaths(tt.allowed, tt.rel)
			if (err == nil) != tt.ok {
				t.Fatalf("CheckAllowedPaths = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}
