package demo

import "testing"

// TestNoticeDigestKeepsParagraphsApart: a cancelled child's report joins
// its paragraphs with a period, not as one run-on sentence.
func TestNoticeDigestKeepsParagraphsApart(t *testing.T) {
	msg := "[background agent \"read-docs\" cancelled]\ncancelled by the user\n\nWhat it found before it stopped:\nStep 1 of 8: finding the docs."
	got := noticeDigest(msg)
	want := "- **read-docs**: cancelled by the user. What it found before it stopped: Step 1 of 8: finding the docs."
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}
