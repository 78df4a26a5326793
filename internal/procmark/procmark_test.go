//go:build linux

package procmark

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"
)

func TestFindAndStop(t *testing.T) {
	mark := "COVEY_PROCMARK_TEST=" + strconv.Itoa(os.Getpid())
	cmd := exec.Command("sh", "-c", "sleep 60 & wait")
	cmd.Env = append(os.Environ(), mark)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })
	var pids []int
	for i := 0; i < 500 && len(pids) < 2; i++ {
		pids = Find(mark)
		time.Sleep(10 * time.Millisecond)
	}
	if len(pids) != 2 || !slices.Contains(pids, cmd.Process.Pid) {
		t.Fatalf("Find = %v, want the sh (%d) and its sleep", pids, cmd.Process.Pid)
	}
	if got := Find(mark + "x"); len(got) != 0 {
		t.Errorf("Find of another value = %v", got)
	}
	if err := Stop(pids, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if left := Find(mark); len(left) != 0 {
		for _, pid := range left {
			if running(pid) {
				t.Errorf("process %d still runs after Stop", pid)
			}
		}
	}
}

func TestAlive(t *testing.T) {
	self := Owner(os.Getpid())
	cases := map[string]struct {
		owner string
		want  bool
	}{
		"self":            {self, true},
		"reused pid":      {strconv.Itoa(os.Getpid()) + ".1", false},
		"no such process": {strconv.Itoa(1<<22+1) + ".5", false},
		"garbage":         {"x.y", false},
		"empty":           {"", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Alive(tc.owner); got != tc.want {
				t.Errorf("Alive(%q) = %v, want %v", tc.owner, got, tc.want)
			}
		})
	}
}

func TestValue(t *testing.T) {
	env := []byte("A=1\x00COVEY_OWNER=12.34\x00B=\x00")
	if got := Value(env, OwnerVar); got != "12.34" {
		t.Errorf("Value = %q", got)
	}
	if got := Value(env, "C"); got != "" {
		t.Errorf("Value of a missing name = %q", got)
	}
}

// TestReap: only processes whose mark names a covey that is gone are
// stopped; those of a running covey and unmarked ones are left alone.
func TestReap(t *testing.T) {
	tag := "COVEY_REAP_TEST=" + strconv.Itoa(os.Getpid())
	start := func(extra ...string) *exec.Cmd {
		cmd := exec.Command("sleep", "60")
		cmd.Env = append(append(os.Environ(), tag), extra...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	dead := start(OwnerVar + "=" + strconv.Itoa(1<<22+1) + ".77")
	reused := start(OwnerVar + "=" + strconv.Itoa(os.Getpid()) + ".1")
	live := start(SelfEnv())
	unmarked := start()
	for i := 0; i < 500 && len(Find(tag)) < 4; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := Reap(); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		cmd     *exec.Cmd
		stopped bool
	}{
		"owner gone":       {dead, true},
		"owner pid reused": {reused, true},
		"owner running":    {live, false},
		"no mark":          {unmarked, false},
	} {
		if got := !running(tc.cmd.Process.Pid); got != tc.stopped {
			t.Errorf("%s: stopped = %v, want %v", name, got, tc.stopped)
		}
	}
}

// BenchmarkReap is the start-up's scan of every process for marks of a
// covey that is gone (nothing to stop).
func BenchmarkReap(b *testing.B) {
	for b.Loop() {
		if _, err := Reap(); err != nil {
			b.Fatal(err)
		}
	}
}
