package permission

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// ErrNotAllowed is returned for a write outside an agent's allowed paths.
var ErrNotAllowed = errors.New("writes are limited to")

// CheckAllowedPaths reports whether the workspace-relative, slash-separated path
// rel may be written under the doublestar globs allowed. No globs allow all.
// A glob naming a folder ("docs" or "docs/") also allows what lies beneath
// it, since that is what people mean by it. A malformed glob is an error,
// never a silent allow.
func CheckAllowedPaths(allowed []string, rel string) error {
	if len(allowed) == 0 {
		return nil
	}
	for _, pat := range allowed {
		pat = strings.TrimPrefix(pat, "./")
		if !doublestar.ValidatePattern(pat) {
			return fmt.Errorf("allowed path %q is not a valid glob", pat)
		}
		if strings.HasSuffix(pat, "/") {
			pat += "**"
		}
		if ok, _ := doublestar.Match(pat, rel); ok {
			return nil
		}
		if ok, _ := doublestar.Match(pat+"/**", rel); ok {
			return nil
		}
	}
	return fmt.Errorf("%w %s; %s is outside them", ErrNotAllowed, strings.Join(allowed, ", "), rel)
}
