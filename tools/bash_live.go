package tools

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"time"

	"covey/tools/tool"
)

// How a running command's latest output is reported while it runs.
const (
	liveEvery = 300 * time.Millisecond // at most one report per interval
	liveLines = 3                      // the last lines reported
	liveBytes = 4 << 10                // the end of the output kept for them
)

// liveOutput keeps the end of a running command's output and reports its
// last lines through the call's progress function while they change, so
// the user sees a long command work (a child's pane, the main agent's
// tool block) before it ends.
type liveOutput struct {
	ctx  context.Context
	mu   sync.Mutex
	buf  []byte // the last liveBytes bytes written
	seen int64  // bytes written so far
	done chan struct{}
	wg   sync.WaitGroup
}

// watchOutput starts reporting what is written to the returned writer;
// nil when ctx reports to nobody.
func watchOutput(ctx context.Context) *liveOutput {
	if !tool.Reports(ctx) {
		return nil
	}
	l := &liveOutput{ctx: ctx, done: make(chan struct{})}
	l.wg.Add(1)
	go l.report()
	return l
}

// Write never fails.
func (l *liveOutput) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen += int64(len(p))
	if len(p) >= liveBytes {
		l.buf = append(l.buf[:0], p[len(p)-liveBytes:]...)
		return len(p), nil
	}
	if over := len(l.buf) + len(p) - liveBytes; over > 0 {
		l.buf = append(l.buf[:0], l.buf[over:]...)
	}
	l.buf = append(l.buf, p...)
	return len(p), nil
}

// report sends the last lines on every interval in which output came.
func (l *liveOutput) report() {
	defer l.wg.Done()
	t := time.NewTicker(liveEvery)
	defer t.Stop()
	var reported int64
	for {
		select {
		case <-l.done:
			return
		case <-l.ctx.Done():
			return
		case <-t.C:
		}
		l.mu.Lock()
		seen := l.seen
		var lines []string
		if seen != reported {
			lines = lastLines(l.buf, liveLines)
		}
		l.mu.Unlock()
		if seen != reported && len(lines) > 0 {
			tool.ReportProgress(l.ctx, tool.Progress{Output: lines})
		}
		reported = seen
	}
}

// stop ends the reports; none comes after it returns. Nil-safe.
func (l *liveOutput) stop() {
	if l == nil {
		return
	}
	close(l.done)
	l.wg.Wait()
}

// lastLines returns the last n non-blank lines of b, valid UTF-8 with
// carriage returns resolved to what a terminal would show last.
func lastLines(b []byte, n int) []string {
	var out []string
	for len(b) > 0 && len(out) < n {
		i := bytes.LastIndexByte(b, '\n')
		line := b[i+1:]
		b = b[:max(i, 0)]
		if i < 0 {
			b = nil
		}
		if j := bytes.LastIndexByte(bytes.TrimRight(line, "\r"), '\r'); j >= 0 {
			line = line[j+1:] // a progress bar redrawn in place
		}
		s := strings.TrimRight(string(bytes.ToValidUTF8(line, []byte("\uFFFD"))), "\r \t")
		if strings.TrimSpace(s) == "" {
			continue
		}
		out = append(out, s)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
