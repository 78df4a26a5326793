package permission

import "testing"

func TestParseMode(t *testing.T) {
	tests := []struct {
		in      string
		want    Mode
		wantErr bool
	}{
		{"", ModeDefault, false},
		{"default", ModeDefault, false},
		{"acceptEdits", ModeAcceptEdits, false},
		{"acceptedits", ModeAcceptEdits, false},
		{"plan", ModePlan, false},
		{"bypassPermissions", ModeBypass, false},
		{"BYPASSPERMISSIONS", ModeBypass, false},
		{"yolo", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseMode(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("ParseMode(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestModeNext(t *testing.T) {
	tests := []struct{ from, want Mode }{
		{ModeDefault, ModeAcceptEdits},
		{ModeAcceptEdits, ModePlan},
		{ModePlan, ModeBypass},
		{ModeBypass, ModeDefault},
		{Mode("bogus"), ModeDefault},
	}
	for _, tt := range tests {
		t.Run(string(tt.from), func(t *testing.T) {
			if got := tt.from.Next(); got != tt.want {
				t.Errorf("%s.Next() = %s, want %s", tt.from, got, tt.want)
			}
		})
	}
	t.Run("policy cycles", func(t *testing.T) {
		p := NewPolicy(ModePlan, nil, nil)
		if got := p.CycleMode(); got != ModeBypass || p.Mode() != ModeBypass {
			t.Errorf("CycleMode = %s, Mode = %s; want bypassPermissions", got, p.Mode())
		}
	})
}
