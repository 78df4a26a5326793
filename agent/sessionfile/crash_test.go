package sessionfile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"covey/tools/toolname"

	"covey/agent"
)

// helperEnv makes the test binary act as a covey process recording a
// session until it is killed.
const helperEnv = "COVEY_SESSION_HELPER_DIR"

// TestHelperProcess is not a test: run with helperEnv set, it records
// messages and a stream of events forever, printing "ack N" once message N
// is recorded, and "id X" first.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		t.Skip("helper process for TestKillMidStream")
	}
	r, err := Store{Dir: dir}.Create("/crash/ws", "m")
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	fmt.Println("id", r.ID())
	child := agent.Source{AgentID: "c", Depth: 1}
	for i := 0; ; i++ {
		r.Message(agent.Message{Role: agent.RoleUser, Content: fmt.Sprintf("message %d", i)})
		fmt.Println("ack", i)
		r.Event(agent.ToolStarted{Source: child, CallID: fmt.Sprint(i), Name: toolname.Grep, Args: json.RawMessage(`{}`)})
		for j := range 50 {
			r.Event(agent.TextDelta{Source: agent.Source{AgentID: agent.MainAgentID}, Text: strings.Repeat("x", j)})
			r.Event(agent.ReasoningDelta{Source: child, Text: "thinking "})
		}
		r.Event(agent.ToolFinished{Source: child, CallID: fmt.Sprint(i), Name: toolname.Grep})
	}
}

// TestKillMidStream kills a recording process with SIGKILL while it
// streams and checks that every message it had recorded is in the file,
// and that the session reopens and continues cleanly.
func TestKillMidStream(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	s := testStore(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+s.Dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	const acks = 30
	var id string
	last := -1
	sc := bufio.NewScanner(out)
	for last < acks && sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 2 && f[0] == "id":
			id = f[1]
		case len(f) == 2 && f[0] == "ack":
			fmt.Sscan(f[1], &last)
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // killed: the error is expected
	if id == "" || last < acks {
		t.Fatalf("helper gave id %q and %d acks: %v", id, last, sc.Err())
	}

	l, err := s.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Messages) < last+1 {
		t.Fatalf("%d messages survived, %d were recorded", len(l.Messages), last+1)
	}
	for i := 0; i <= last; i++ {
		if want := fmt.Sprintf("message %d", i); l.Messages[i].Content != want {
			t.Fatalf("message %d = %q, want %q", i, l.Messages[i].Content, want)
		}
	}
	for _, w := range l.Warnings {
		if !strings.Contains(w, "incomplete last line") {
			t.Fatalf("unexpected warning: %s", w)
		}
	}

	r, l2, err := s.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	r.Message(agent.Message{Role: agent.RoleUser, Content: "resumed"})
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	l3, err := s.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if got := l3.Messages[len(l3.Messages)-1].Content; got != "resumed" || len(l3.Messages) != len(l2.Messages)+1 {
		t.Fatalf("after resuming: %d messages ending %q; had %d", len(l3.Messages), got, len(l2.Messages))
	}
	if len(l3.Warnings) > 1 {
		t.Fatalf("warnings after resuming: %q", l3.Warnings)
	}
}
