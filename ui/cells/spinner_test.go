package cells

import (
	"testing"
	"time"
)

func TestElapsedAndSpinner(t *testing.T) {
	durations := map[time.Duration]string{
		-time.Second:                "0ms",
		450 * time.Millisecond:      "450ms",
		3240 * time.Millisecond:     "3.2s",
		41500 * time.Millisecond:    "41s",
		65 * time.Second:            "1m05s",
		2*time.Hour + 3*time.Minute: "2h03m",
	}
	for d, want := range durations {
		if got := Elapsed(d); got != want {
			t.Errorf("Elapsed(%v) = %q, want %q", d, got, want)
		}
	}
	seen := map[string]bool{}
	for f := range 10 {
		seen[Spinner(f)] = true
		if Spinner(f) != Spinner(f+10) || Spinner(-f) == "" {
			t.Errorf("spinner frame %d does not cycle", f)
		}
	}
	if len(seen) != 10 {
		t.Errorf("spinner has %d distinct frames, want 10", len(seen))
	}
}
