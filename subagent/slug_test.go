package subagent

import "testing"

func TestSlug(t *testing.T) {
	tests := map[string]struct {
		desc  string
		want  string
		whole bool
	}{
		"stop words dropped":           {"map the project layout", "map-project-layout", true},
		"no dangling conjunction":      {"survey docs and TODOs", "survey-docs-todos", true},
		"at most three words":          {"find the retry logic in the HTTP client", "find-retry-logic", false},
		"long words stop before 24":    {"internationalization localization review", "internationalization", false},
		"punctuation splits words":     {"Fix auth/session.go's bug", "fix-auth-session", false},
		"only stop words gives none":   {"the and of", "", false},
		"digits kept":                  {"port v2 API", "port-v2-api", true},
		"empty description gives none": {"", "", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, whole := slug(tc.desc)
			if got != tc.want || whole != tc.whole {
				t.Errorf("slug(%q) = %q, %v; want %q, %v", tc.desc, got, whole, tc.want, tc.whole)
			}
		})
	}
}
