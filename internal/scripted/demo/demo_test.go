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

// TestDigestOfBackgroundChildren: a child moved to the background and
// cancelled before the task call returned is not summed up as still
// working, and the closing "go on working" sentence needs one that is.
func TestDigestOfBackgroundChildren(t *testing.T) {
	const (
		working = "## [Explore] walk\n[moved to the background by the user: name \"walk\", id a1. Its report will arrive as a message when it finishes; send_message reaches it meanwhile, stop_agent stops it.]"
		ended   = "## [Explore] walk\n[moved to the background by the user, and has ended since (cancelled): name \"walk\", id a1. Its report will arrive as a message.]"
		done    = "## [Explore] read\nDone after 8 steps."
	)
	cases := map[string]struct {
		result, digest string
		still          bool
	}{
		"still working": {working + "\n\n" + done, "- **[Explore] walk**: still working, in the background\n- **[Explore] read**: Done after 8 steps.", true},
		"ended since":   {ended + "\n\n" + done, "- **[Explore] walk**: moved to the background, then cancelled; its report follows\n- **[Explore] read**: Done after 8 steps.", false},
		"none":          {done, "- **[Explore] read**: Done after 8 steps.", false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if got := demoDigest(c.result); got != c.digest {
				t.Errorf("digest %q\nwant   %q", got, c.digest)
			}
			if got := stillWorking(c.result); got != c.still {
				t.Errorf("stillWorking = %v, want %v", got, c.still)
			}
		})
	}
}
