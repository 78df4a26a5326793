package diffview

import (
	"fmt"
	"testing"
)

func TestSplitRows(t *testing.T) {
	d := New("@@ -1,4 +1,4 @@\n a\n-b\n-c\n+B\n d\n+e\n")
	rows := SplitRows(d)
	type pair struct{ left, right string }
	var got []pair
	for _, r := range rows {
		p := pair{"-", "-"}
		if r.Full != nil {
			p = pair{"@@", "@@"}
		}
		if r.Left != nil {
			p.left = r.Left.Text
		}
		if r.Right != nil {
			p.right = r.Right.Text
		}
		got = append(got, p)
	}
	want := []pair{{"@@", "@@"}, {"a", "a"}, {"b", "B"}, {"c", "-"}, {"d", "d"}, {"-", "e"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows %v, want %v", got, want)
	}
}
