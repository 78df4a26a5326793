package sessionfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"covey/agent"
	"covey/tools/tool"
	"covey/tools/toolname"
)

// faultyFile is a session file whose every write asks fault how many bytes
// the disk takes and with what error, as a full or failing disk answers.
type faultyFile struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
	fault  func(call int, p []byte) (int, error)
	closed bool
}

func (f *faultyFile) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes++
	n, err := len(p), error(nil)
	if f.fault != nil {
		n, err = f.fault(f.writes, p)
	}
	f.buf.Write(p[:n])
	return n, err
}

func (f *faultyFile) Close() error { f.closed = true; return nil }

func (f *faultyFile) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.String()
}

// retryTimers catches the recorder's timers: the 100 ms flush and the
// retry of refused lines, each fired by hand.
type retryTimers struct {
	flush, retry func()
}

func (rt *retryTimers) install(r *Recorder) {
	r.schedule = func(d time.Duration, f func()) func() bool {
		if d == retryEvery {
			rt.retry = f
		} else {
			rt.flush = f
		}
		return func() bool { return true }
	}
}

// fireRetry runs the pending retry, if one is armed.
func (rt *retryTimers) fireRetry() bool {
	f := rt.retry
	rt.retry = nil
	if f != nil {
		f()
	}
	return f != nil
}

// recordTurn records a bash call and its result, as a turn does.
func recordTurn(r *Recorder, i int) {
	id := "call" + string(rune('a'+i))
	r.Message(agent.Message{Role: agent.RoleUser, Content: "run it " + id})
	r.Message(agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: id, Name: toolname.Bash, Arguments: `{"command":"make"}`}}})
	r.Event(agent.ToolStarted{Source: mainSrc, CallID: id, Name: toolname.Bash, Args: json.RawMessage(`{"command":"make"}`)})
	r.Event(agent.TextDelta{Source: mainSrc, Text: "building " + id})
	r.Event(agent.ToolFinished{Source: mainSrc, CallID: id, Name: toolname.Bash, Result: tool.Result{Content: "exit 0: built " + id}})
	r.Message(agent.Message{Role: agent.RoleTool, ToolCallID: id, Name: toolname.Bash, Content: "exit 0: built " + id})
	r.Message(agent.Message{Role: agent.RoleAssistant, Content: "done " + id})
	r.Event(agent.Done{Source: mainSrc, Reason: agent.StopOK})
}

const faultHeader = `{"type":"session","id":"x","workspace":"/ws","created":"2026-01-01T00:00:00Z","model":"m","version":1}` + "\n"

// TestWriterFaults injects the faults of a real disk under the recorder:
// whatever the file refuses for a while is written later, in order, so the
// file ends exactly as a healthy one would, the history loads with every
// bash result and no call marked interrupted, and the user hears once that
// writing failed and once that it works again.
func TestWriterFaults(t *testing.T) {
	const turns = 3
	healthy := &faultyFile{}
	hr := newRecorder(healthy, "x", "/s/x.jsonl", nil, nil, nil)
	hr.now = fixedNow
	(&retryTimers{}).install(hr)
	healthy.buf.WriteString(faultHeader)
	for i := range turns {
		recordTurn(hr, i)
	}
	if err := hr.Close(); err != nil {
		t.Fatal(err)
	}
	want := healthy.String()

	type faultCase = func(call int, p []byte) (int, error)
	cases := map[string]faultCase{
		// The disk is full for writes 3 to 8, then freed.
		"ENOSPC": func(call int, p []byte) (int, error) {
			if call >= 3 && call <= 8 {
				return 0, syscall.ENOSPC
			}
			return len(p), nil
		},
		"EIO": func(call int, p []byte) (int, error) {
			if call >= 2 && call <= 5 {
				return 0, syscall.EIO
			}
			return len(p), nil
		},
		// The disk fills in the middle of a line.
		"ENOSPC mid-line": func(call int, p []byte) (int, error) {
			switch {
			case call == 4:
				return len(p) / 2, syscall.ENOSPC
			case call > 4 && call < 9:
				return 0, syscall.ENOSPC
			}
			return len(p), nil
		},
		// Short writes with no error, of a few bytes each, then the
		// disk fills and frees.
		"short writes": func(call int, p []byte) (int, error) {
			switch {
			case call >= 10 && call < 13:
				return 0, syscall.ENOSPC
			case call%2 == 0:
				return min(len(p), 7), nil
			}
			return len(p), nil
		},
	}
	for name, fault := range cases {
		t.Run(name, func(t *testing.T) {
			f := &faultyFile{fault: fault}
			f.buf.WriteString(faultHeader)
			var errs []error
			recovered := 0
			r := newRecorder(f, "x", "/s/x.jsonl", nil, func(err error) { errs = append(errs, err) }, func() { recovered++ })
			r.now = fixedNow
			rt := &retryTimers{}
			rt.install(r)
			for i := range turns {
				before := f.writes
				recordTurn(r, i)
				if len(errs) == 0 && r.failing != nil {
					t.Fatalf("a failed write (turn %d, writes %d-%d) was not reported at once", i, before, f.writes)
				}
			}
			for range 20 {
				if !rt.fireRetry() {
					break
				}
			}
			if err := r.Close(); err != nil {
				t.Fatalf("Close = %v after the disk recovered", err)
			}
			if got := f.String(); got != want {
				t.Fatalf("the file differs from a healthy one's:\n got %q\nwant %q", got, want)
			}
			if len(errs) != 1 || recovered != 1 {
				t.Errorf("OnError %d times (%v), OnRecover %d times; want once each", len(errs), errs, recovered)
			}
			l, err := Read(strings.NewReader(f.String()))
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range l.Messages {
				if m.Content == InterruptedResult {
					t.Fatalf("a finished call loads as interrupted: %+v", l.Messages)
				}
			}
			if len(l.Warnings) != 0 {
				t.Errorf("warnings loading the recovered file: %v", l.Warnings)
			}
		})
	}
}

// TestWriterFaultsLost: a disk that never frees loses the lines it
// refused, and Close says how many; a disk that frees after the memory
// bound dropped some keeps the file well-formed (no line spliced onto a
// cut one).
func TestWriterFaultsLost(t *testing.T) {
	t.Run("never freed", func(t *testing.T) {
		f := &faultyFile{fault: func(call int, p []byte) (int, error) {
			if call >= 2 {
				return 0, syscall.ENOSPC
			}
			return len(p), nil
		}}
		r := newRecorder(f, "x", "/s/x.jsonl", nil, nil, nil)
		r.now = fixedNow
		(&retryTimers{}).install(r)
		recordTurn(r, 0)
		err := r.Close()
		if err == nil || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "lines could not be written") {
			t.Fatalf("Close = %v, want the lost lines counted", err)
		}
	})
	t.Run("memory bound", func(t *testing.T) {
		full := true
		f := &faultyFile{fault: func(call int, p []byte) (int, error) {
			if call == 1 {
				return 10, syscall.ENOSPC // cut the first line
			}
			if full {
				return 0, syscall.ENOSPC
			}
			return len(p), nil
		}}
		f.buf.WriteString(faultHeader)
		r := newRecorder(f, "x", "/s/x.jsonl", nil, nil, nil)
		r.now = fixedNow
		rt := &retryTimers{}
		rt.install(r)
		r.maxPending = 600
		for i := range 4 {
			recordTurn(r, i)
		}
		full = false
		rt.fireRetry()
		err := r.Close()
		if err == nil || !strings.Contains(err.Error(), "lost") {
			t.Fatalf("Close = %v, want the dropped lines reported", err)
		}
		l, rerr := Read(strings.NewReader(f.String()))
		if rerr != nil {
			t.Fatal(rerr)
		}
		for _, w := range l.Warnings {
			if strings.Contains(w, "skipped") && !strings.Contains(w, "line 2") {
				t.Errorf("a line other than the cut one is damaged: %v\n%s", l.Warnings, f.String())
			}
		}
		if msg := checkHistory(l.Messages); msg != "" {
			t.Errorf("history after dropped lines: %s", msg)
		}
	})
}

// fixedNow stamps recorded events with one time, so two files of the same
// events are byte for byte equal.
func fixedNow() time.Time { return time.UnixMilli(1_700_000_000_000) }
