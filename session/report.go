package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"covey/agent/sessionfile"
	"covey/report"
)

// Report writes the crew report of this session (ui.Reporter): the html
// page and the markdown beside the session file, and returns their paths
// and a one-line summary. It reads the session file as recorded so far.
func (s *Session) Report() (paths []string, summary string, err error) {
	if s.rec == nil || s.rec.path == "" {
		return nil, "", errors.New("this session keeps no session file, so it has no report")
	}
	if s.rec.rec != nil {
		if err := s.rec.rec.Flush(); err != nil {
			return nil, "", fmt.Errorf("report: %w", err)
		}
	}
	f, err := os.Open(s.rec.path)
	if err != nil {
		return nil, "", fmt.Errorf("report: %w", err)
	}
	l, err := sessionfile.Read(f)
	_ = f.Close() // read only
	if err != nil {
		return nil, "", fmt.Errorf("report: %w", err)
	}
	o := report.Options{Path: s.rec.path}
	if !s.prices.Empty() {
		o.Cost = s.prices.Cost
	}
	r := report.Build(l, o)
	base := strings.TrimSuffix(s.rec.path, filepath.Ext(s.rec.path)) + ".report"
	for _, f := range []struct{ ext, format string }{{".html", report.FormatHTML}, {".md", report.FormatMarkdown}} {
		if err := report.WriteFile(base+f.ext, r, f.format); err != nil {
			return paths, "", err
		}
		paths = append(paths, base+f.ext)
	}
	return paths, report.Summary(r), nil
}
