package proctree

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKillTakesSetsidGrandchild starts a shell that leaves a setsid
// grandchild behind (out of the shell's process group) and checks that the
// mark finds and ends it, and only it.
func TestKillTakesSetsidGrandchild(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc here: marks cannot be found")
	}
	mark := NewMark()
	if !strings.HasPrefix(mark, OwnerPrefix(os.Getpid())) {
		t.Fatalf("mark %q does not start with the owner prefix", mark)
	}
	pidFile := t.TempDir() + "/pid"
	cmd := exec.Command("sh", "-c", "setsid sh -c 'echo $$ >"+pidFile+"; exec sleep 291.731' </dev/null >/dev/null 2>&1 &")
	cmd.Env = append(os.Environ(), EnvEntry(mark))
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0; {
		data, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		if pid == 0 && time.Now().After(deadline) {
			t.Fatal("the grandchild never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if other := Find(NewMark()); len(other) != 0 {
		t.Fatalf("another mark found %v", other)
	}
	if got := Find(mark); len(got) != 1 || got[0] != pid {
		t.Fatalf("Find = %v, want [%d]", got, pid)
	}
	if n := Kill(OwnerPrefix(os.Getpid())); n != 1 {
		t.Fatalf("Kill signalled %d processes, want 1", n)
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		// Killed and reaped by init: gone, or at worst a zombie.
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the grandchild %d survived: %s", pid, stat)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := Find(mark); len(got) != 0 {
		t.Fatalf("Find after Kill = %v", got)
	}
}
