package e2e

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"covey/internal/scripted"
	"covey/internal/scripted/scriptedtest"
)

// asUser runs covey in dir as the process's user, or as nobody when that
// is root (root reads a file of mode 000, so the fault would not show).
type asUser struct {
	bin  string
	cred *syscall.Credential
}

// newAsUser prepares base (a folder every user may enter) and a copy of
// the binary there that nobody may run.
func newAsUser(t *testing.T, base string) asUser {
	t.Helper()
	u := asUser{bin: coveyBin(t)}
	if os.Geteuid() != 0 {
		return u
	}
	u.cred = &syscall.Credential{Uid: 65534, Gid: 65534}
	src, err := os.Open(u.bin)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	u.bin = filepath.Join(base, "covey")
	dst, err := os.OpenFile(u.bin, os.O_WRONLY|os.O_CREATE, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return u
}

// own gives the tree at path to the user covey runs as.
func (u asUser) own(t *testing.T, path string) {
	t.Helper()
	if u.cred == nil {
		return
	}
	err := filepath.Walk(path, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, int(u.cred.Uid), int(u.cred.Gid))
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (u asUser) run(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	var err error
	for {
		cmd := exec.CommandContext(ctx, u.bin, args...)
		cmd.Dir, cmd.Env = dir, env
		if u.cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: u.cred}
		}
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err = cmd.Start()
		// The copy newAsUser wrote is "text file busy" while a command
		// another test forked meanwhile has not reached its exec yet: the
		// fork holds the copy's write descriptor until then
		// (golang/go#22315). It ends by itself; start again.
		if errors.Is(err, syscall.ETXTBSY) && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if err == nil {
			err = cmd.Wait()
		}
		break
	}
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && ctx.Err() == nil:
		r.code = exit.ExitCode()
	default:
		t.Fatalf("covey %v: %v\n%s%s", args, err, r.stdout, r.stderr)
	}
	return r
}

// TestUnreadableNewestSession makes the newest session file unreadable
// (mode 000): `covey --continue` names it and why, rather than resuming an
// older session, and `covey sessions` lists it with the reason.
func TestUnreadableNewestSession(t *testing.T) {
	t.Parallel()
	base, err := os.MkdirTemp("", "faults-crash-unreadable-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	u := newAsUser(t, base)
	ws := filepath.Join(base, "ws")
	home := filepath.Join(base, "home")
	for _, d := range []string{ws, filepath.Join(home, ".config"), filepath.Join(home, ".local/share"), filepath.Join(home, ".local/state")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("# sample\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u.own(t, base)
	srv := scriptedtest.New(t)
	crashScript(srv, map[string]scripted.Turn{
		"older":  {Text: "E2E older answer."},
		"newest": {Text: "E2E newest answer."},
		"again":  {Text: "E2E resumed the older one."},
	})
	env := sandbox{home: home}.env("OPENAI_BASE_URL=" + srv.URL())
	for _, p := range []string{"older", "newest"} {
		if r := u.run(t, ws, env, "-p", p, "--model", "e2e-model"); r.code != 0 {
			t.Fatalf("covey -p %s (exit %d):\n%s%s", p, r.code, r.stdout, r.stderr)
		}
		time.Sleep(20 * time.Millisecond) // distinct modification times
	}
	files, _ := filepath.Glob(filepath.Join(home, ".local/share/covey/sessions/*.jsonl"))
	if len(files) != 2 {
		t.Fatalf("sessions: %v", files)
	}
	newest := files[0]
	if a, b := mtime(t, files[0]), mtime(t, files[1]); b.After(a) {
		newest = files[1]
	}
	if err := os.Chmod(newest, 0); err != nil {
		t.Fatal(err)
	}

	r := u.run(t, ws, env, "--continue", "-p", "again", "--model", "e2e-model")
	if r.code == 0 || strings.Contains(r.stdout, "E2E resumed the older one.") {
		t.Errorf("covey --continue resumed an older session (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, newest) || !strings.Contains(r.stderr, "permission denied") {
		t.Errorf("covey --continue does not name %s and why:\n%s", newest, r.stderr)
	}
	list := u.run(t, ws, env, "sessions")
	id := strings.TrimSuffix(filepath.Base(newest), ".jsonl")
	if list.code != 0 || !strings.Contains(list.stdout, id) || !strings.Contains(list.stdout, "unreadable: permission denied") {
		t.Errorf("covey sessions does not list %s as unreadable (exit %d):\n%s%s", id, list.code, list.stdout, list.stderr)
	}
}

func mtime(t *testing.T, path string) time.Time {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.ModTime()
}
