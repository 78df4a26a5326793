package transcript

// This file holds the transcript's navigation: scrolling, follow mode and
// the focus.

// ScrollBy moves the view by delta lines (negative is up).
func (t *Transcript) ScrollBy(delta int) {
	t.offset = min(max(t.offset+delta, 0), t.MaxOffset())
	t.follow = t.offset >= t.MaxOffset()
	if t.follow {
		t.unseen = false
	}
	t.Sync()
}

// PageUp scrolls up by a viewport less one line of context.
func (t *Transcript) PageUp() { t.ScrollBy(-max(1, t.height-1)) }

// PageDown scrolls down by a viewport less one line of context.
func (t *Transcript) PageDown() { t.ScrollBy(max(1, t.height-1)) }

// Top scrolls to the first line.
func (t *Transcript) Top() { t.ScrollBy(-t.total()) }

// Bottom scrolls to the end and follows new output again.
func (t *Transcript) Bottom() { t.ScrollBy(t.total()) }

// Following reports whether the view sticks to the bottom.
func (t *Transcript) Following() bool { return t.follow }

// Focused returns the focused block, or nil.
func (t *Transcript) Focused() Block { return t.focused }

// Blur gives the focus back to the input.
func (t *Transcript) Blur() {
	if t.focused != nil {
		t.touched = append(t.touched, t.focused)
		t.focused = nil
		t.Sync()
	}
}

// HasFocusable reports whether any block can take the focus.
func (t *Transcript) HasFocusable() bool {
	for _, e := range t.entries {
		if e.b.Focusable() {
			return true
		}
	}
	return false
}

// MoveFocus moves the focus dir (+1 or -1) focusable blocks, wrapping
// around. Without a focus it lands on the newest focusable block. It
// reports whether a block has the focus afterwards.
func (t *Transcript) MoveFocus(dir int) bool {
	var focusable []int
	cur := -1
	for i, e := range t.entries {
		if e.b.Focusable() {
			if e.b == t.focused {
				cur = len(focusable)
			}
			focusable = append(focusable, i)
		}
	}
	if len(focusable) == 0 {
		t.Blur()
		return false
	}
	next := len(focusable) - 1
	if cur >= 0 {
		next = ((cur+dir)%len(focusable) + len(focusable)) % len(focusable)
	}
	t.SetFocus(t.entries[focusable[next]].b)
	return true
}

// SetFocus focuses b and scrolls it into view.
func (t *Transcript) SetFocus(b Block) {
	if t.focused != nil {
		t.touched = append(t.touched, t.focused)
	}
	t.focused = b
	t.touched = append(t.touched, b)
	t.Sync()
	t.ScrollTo(b)
}

// ScrollTo brings b into view: its top, or all of it when it fits.
func (t *Transcript) ScrollTo(b Block) {
	i := t.IndexOf(b)
	if i < 0 {
		return
	}
	if !t.entries[i].exact {
		t.measure(i)
	}
	t.layout()
	top, h := t.tops[i], t.entries[i].height
	off := t.offset
	switch {
	case top < off:
		off = top
	case top+h > off+t.height:
		off = min(top, top+h-t.height)
	}
	t.ScrollBy(off - t.offset)
}

// Toggle expands or collapses the focused block.
func (t *Transcript) Toggle() {
	if t.focused == nil {
		return
	}
	t.focused.SetExpanded(!t.focused.Expanded())
	t.touched = append(t.touched, t.focused)
	t.Sync()
	t.ScrollTo(t.focused)
}

// SetAllExpanded expands or collapses every focusable block.
func (t *Transcript) SetAllExpanded(expanded bool) {
	for i := range t.entries {
		if b := t.entries[i].b; b.Focusable() && b.Expanded() != expanded {
			b.SetExpanded(expanded)
			// Measure only what the next frame shows; Prewarm does the rest.
			t.entries[i].exact = false
		}
	}
	t.Sync()
	if t.focused != nil {
		t.ScrollTo(t.focused)
	}
}
