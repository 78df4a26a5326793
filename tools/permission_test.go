package tools

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
