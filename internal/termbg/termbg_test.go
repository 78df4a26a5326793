package termbg

import (
	"io"
	"os"
	"testing"
)

func TestParseAnswer(t *testing.T) {
	tests := map[string]struct {
		in       string
		dark, ok bool
	}{
		"black, 4 digits": {"rgb:0000/0000/0000", true, true},
		"dark grey":       {"rgb:1e1e/1e1e/1e1e", true, true},
		"white, 2 digits": {"rgb:ff/ff/ff", false, true},
		"solarized light": {"rgb:fdfd/f6f6/e3e3", false, true},
		"no rgb":          {"#ffffff", false, false},
		"two parts":       {"rgb:ff/ff", false, false},
		"not hex":         {"rgb:zz/ff/ff", false, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if dark, ok := ParseAnswer(tc.in); dark != tc.dark || ok != tc.ok {
				t.Errorf("ParseAnswer(%q) = %v, %v; want %v, %v", tc.in, dark, ok, tc.dark, tc.ok)
			}
		})
	}
}

// TestInputTakesTheAnswerOut: keys around an answer reach the program, the
// answer does not (whole, cut across reads, BEL or ST ended), and a lone
// esc is never held back.
func TestInputTakesTheAnswerOut(t *testing.T) {
	tests := map[string]struct {
		writes  []string
		want    string
		answers []bool
	}{
		"ST answer between keys":   {[]string{"ab\x1b]11;rgb:0000/0000/0000\x1b\\cd"}, "abcd", []bool{true}},
		"BEL answer":               {[]string{"\x1b]11;rgb:ffff/ffff/ffff\x07x"}, "x", []bool{false}},
		"cut across reads":         {[]string{"a\x1b]1", "1;rgb:ff/ff/ff", "\x1b\\b"}, "ab", []bool{false}},
		"lone esc":                 {[]string{"\x1b"}, "\x1b", nil},
		"another OSC is input":     {[]string{"\x1b]10;x\x07"}, "\x1b]10;x\x07", nil},
		"too long to be an answer": {[]string{"\x1b]11;" + string(make([]byte, 80))}, "\x1b]11;" + string(make([]byte, 80)), nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			var answers []bool
			in := &Input{File: r, OnAnswer: func(dark bool) { answers = append(answers, dark) }}
			in.Asked()
			go func() {
				for _, s := range tc.writes {
					_, _ = w.WriteString(s)
				}
				w.Close()
			}()
			got, _ := io.ReadAll(in)
			if string(got) != tc.want {
				t.Errorf("read %q, want %q", got, tc.want)
			}
			if len(answers) != len(tc.answers) || (len(answers) > 0 && answers[0] != tc.answers[0]) {
				t.Errorf("answers %v, want %v", answers, tc.answers)
			}
		})
	}
}
