package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAutoCompact(t *testing.T) {
	for name, tc := range map[string]struct {
		user, project string
		want          float64
		wantErr       string
	}{
		"default":                {want: 0.85},
		"a share":                {user: "auto_compact: 0.7\n", want: 0.7},
		"off":                    {user: "auto_compact: false\n", want: 0},
		"true is the default":    {user: "auto_compact: true\n", want: 0.85},
		"the project's wins":     {user: "auto_compact: false\n", project: "auto_compact: 0.6\n", want: 0.6},
		"unset keeps the user's": {user: "auto_compact: false\n", project: "model: m\n", want: 0},
		"above one":              {user: "auto_compact: 1.5\n", wantErr: "at most 1"},
		"zero":                   {user: "auto_compact: 0\n", wantErr: "above 0"},
		"words":                  {user: "auto_compact: soon\n", wantErr: "line 1"},
		"a list":                 {user: "auto_compact: [1]\n", wantErr: "auto_compact must be"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			ws := t.TempDir()
			user, project := Paths(ws)
			for path, body := range map[string]string{user: tc.user, project: tc.project} {
				if body == "" {
					continue
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			c, err := Load(ws)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.AutoCompact.Threshold(); got != tc.want {
				t.Fatalf("threshold %v, want %v", got, tc.want)
			}
		})
	}
}
