package ui

import (
	"testing"

	"covey/theme"
)

// TestBackgroundAnswerRestyles: with --theme auto, an answer that differs
// from the palette drawn switches every part to the other palette; the
// same answer, or a fixed theme, changes nothing.
func TestBackgroundAnswerRestyles(t *testing.T) {
	tests := map[string]struct {
		auto, dark bool
		wantLight  bool
	}{
		"auto, light answer":  {auto: true, dark: false, wantLight: true},
		"auto, dark answer":   {auto: true, dark: true},
		"fixed, light answer": {auto: false, dark: false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			opts := Options{Theme: theme.New(theme.ModeAuto, true, false)}
			if tc.auto {
				opts.OnBackground = func(bool) {}
			}
			next, _ := New(opts).Update(backgroundMsg{dark: tc.dark})
			m := next.(Model)
			light := theme.Light().Subtle
			for part, st := range map[string]*theme.Styles{"model": m.styles, "transcript": m.tr.Base().Styles} {
				if got := st.Status.Bar.GetBackground() == light; got != tc.wantLight {
					t.Errorf("%s drawn light: %v, want %v", part, got, tc.wantLight)
				}
			}
			if got := m.status.Styles().Status.Bar.GetBackground() == light; got != tc.wantLight {
				t.Errorf("status bar drawn light: %v, want %v", got, tc.wantLight)
			}
		})
	}
}
