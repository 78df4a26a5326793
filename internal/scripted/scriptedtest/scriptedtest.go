// Package scriptedtest holds the test helpers of the scripted server. Only
// tests import it, so the covey binary never links package testing.
package scriptedtest

import (
	"testing"

	"covey/internal/scripted"
)

// New returns a started scripted Server that is closed when the test ends.
// At cleanup it reports every unmatched request as a test error, unless
// AllowUnmatched was called, so an unexpected request cannot pass unseen.
func New(t testing.TB, opts ...scripted.Option) *scripted.Server {
	t.Helper()
	s := scripted.New(opts...)
	if err := s.Start(); err != nil {
		t.Fatalf("scripted server: %v", err)
	}
	t.Cleanup(func() {
		s.Close()
		for _, p := range s.Problems() {
			t.Errorf("%s", p)
		}
	})
	return s
}
