package tools

// ring keeps the newest cap bytes written to it and counts them all.
type ring struct {
	cap   int
	buf   []byte // grows to cap, then wraps
	start int    // oldest byte once full
	total int64
}

// Write never fails.
func (r *ring) Write(p []byte) {
	r.total += int64(len(p))
	if len(p) >= r.cap {
		r.buf = append(r.buf[:0], p[len(p)-r.cap:]...)
		r.start = 0
		return
	}
	for len(p) > 0 {
		if len(r.buf) < r.cap {
			k := min(r.cap-len(r.buf), len(p))
			r.buf = append(r.buf, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(r.buf[r.start:], p)
		p = p[k:]
		r.start = (r.start + k) % r.cap
	}
}

func (r *ring) len() int { return len(r.buf) }

// last returns a copy of the newest n bytes kept (fewer when fewer are).
func (r *ring) last(n int) []byte {
	n = min(n, len(r.buf))
	out := make([]byte, 0, n)
	if len(r.buf) < r.cap || r.start == 0 {
		return append(out, r.buf[len(r.buf)-n:]...)
	}
	// Oldest at start: the logical order is buf[start:] then buf[:start].
	logical := func(i int) int { return (r.start + i) % r.cap }
	from := len(r.buf) - n
	first := logical(from)
	if first+n <= r.cap {
		return append(out, r.buf[first:first+n]...)
	}
	out = append(out, r.buf[first:]...)
	return append(out, r.buf[:n-(r.cap-first)]...)
}
