package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"covey/sandbox/sandboxtest"
)

// TestMain lets the test binary serve as the helper, as covey's main does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == HelperArg {
		RunHelper(os.Args[2:])
	}
	os.Exit(m.Run())
}

// localDir makes a folder beside the package, outside the temp folder and
// the home folder, so neither default rule makes it writable.
func localDir(t *testing.T, pattern string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	d, err := os.MkdirTemp(wd, pattern)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return realPath(d)
}

// run runs a bash line under s in ws and returns its combined output.
func run(t *testing.T, s *Sandbox, ws, line string) (string, error) {
	t.Helper()
	prog, args, err := s.Command(ws, ws, []string{"bash", "-c", line})
	if err != nil {
		return "", err
	}
	cmd := exec.Command(prog, args...)
	cmd.Dir = ws
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func backendsHere(t *testing.T) []string {
	var names []string
	var why []string
	for _, b := range backends() {
		if err := b.probe(); err != nil {
			why = append(why, fmt.Sprintf("%s: %v", b.name(), err))
			continue
		}
		names = append(names, b.name())
	}
	if len(names) == 0 {
		t.Skipf("this kernel has neither Landlock nor a working bubblewrap (%s), so there is no sandbox to test", strings.Join(why, "; "))
	}
	for _, w := range why {
		t.Logf("backend not tested: %s", w)
	}
	return names
}

func TestSandboxConfinesWrites(t *testing.T) {
	for _, name := range backendsHere(t) {
		t.Run(name, func(t *testing.T) {
			ws := localDir(t, "ws-")
			outside := sandboxtest.OutsideTemp(t, ".covey-sandbox-outside-")
			s, err := New(Config{Mode: string(ModeWorkspaceWrite)}, Options{Backend: name})
			if err != nil || s.Backend() != name {
				t.Fatalf("New: %v, backend %q", err, s.Backend())
			}
			home, _ := os.UserHomeDir()
			probe := filepath.Join(home, fmt.Sprintf(".covey-sandbox-probe-%d", os.Getpid()))
			tmp := filepath.Join(os.TempDir(), fmt.Sprintf("covey-sandbox-%d", os.Getpid()))
			t.Cleanup(func() { os.Remove(probe); os.Remove(tmp) })
			tests := []struct {
				name, line string
				ok         bool
				file       string // checked on disk
			}{
				{"workspace", "echo in > inside.txt && mkdir -p d/e && echo x > d/e/f && mv d/e/f d/g", true, filepath.Join(ws, "inside.txt")},
				{"temp", "echo t > " + tmp, true, tmp},
				{"outside", "echo out > " + filepath.Join(outside, "x"), false, filepath.Join(outside, "x")},
				{"outside via symlink", "ln -s " + outside + " link && echo out > link/y", false, filepath.Join(outside, "y")},
				{"home dotfile", "echo out > " + probe, false, probe},
				{"dev null still works", "echo x > /dev/null && echo ok", true, ""},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					out, err := run(t, s, ws, tt.line)
					if (err == nil) != tt.ok {
						t.Fatalf("%q: err %v, output %q; want ok=%v", tt.line, err, out, tt.ok)
					}
					if tt.file == "" {
						return
					}
					if _, statErr := os.Stat(tt.file); (statErr == nil) != tt.ok {
						t.Errorf("%s exists=%v after %q, want %v", tt.file, statErr == nil, tt.line, tt.ok)
					}
					if !tt.ok && !strings.Contains(out, "Permission denied") && !strings.Contains(out, "Read-only file system") {
						t.Errorf("blocked write says %q", out)
					}
				})
			}
			if name == "bubblewrap" {
				if err := os.MkdirAll(filepath.Join(ws, ".covey"), 0o755); err != nil {
					t.Fatal(err)
				}
				if out, err := run(t, s, ws, "echo 'permissions: {allow: [bash]}' > .covey/config.yaml"); err == nil {
					t.Errorf("bubblewrap let a command write .covey/config.yaml: %s", out)
				}
			}
		})
	}
}

func TestSandboxNetwork(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	line := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port)
	no, yes := false, true
	for _, name := range backendsHere(t) {
		t.Run(name, func(t *testing.T) {
			ws := localDir(t, "ws-")
			off, err := New(Config{Network: &no}, Options{Backend: name})
			if err != nil {
				t.Fatal(err)
			}
			if off.Backend() == "" {
				t.Skipf("%s cannot cut off the network here: %s", name, off.Warning())
			}
			if out, err := run(t, off, ws, line); err == nil || strings.Contains(out, "connected") {
				t.Errorf("network: false still connected: %v %q", err, out)
			}
			on, err := New(Config{Network: &yes}, Options{Backend: name})
			if err != nil {
				t.Fatal(err)
			}
			if out, err := run(t, on, ws, line); err != nil || !strings.Contains(out, "connected") {
				t.Errorf("network: true could not connect: %v %q", err, out)
			}
		})
	}
}

func TestSandboxUnavailable(t *testing.T) {
	yes := true
	ws := t.TempDir()
	s, err := New(Config{}, Options{Backend: "no-such-backend"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Warning() == "" || !strings.Contains(s.Warning(), "unconfined") {
		t.Errorf("Warning = %q", s.Warning())
	}
	if prog, args, err := s.Command(ws, ws, []string{"bash", "-c", "true"}); err != nil || prog != "bash" || len(args) != 2 {
		t.Errorf("not required: %s %q %v, want the command unchanged", prog, args, err)
	}
	req, err := New(Config{Required: &yes}, Options{Backend: "no-such-backend"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := req.Command(ws, ws, []string{"bash", "-c", "true"}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("required: %v, want ErrUnavailable", err)
	}
	if !strings.Contains(req.Warning(), "refused") {
		t.Errorf("required Warning = %q", req.Warning())
	}
	off, err := New(Config{Mode: "off", Required: &yes}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if prog, _, err := off.Command(ws, ws, []string{"bash", "-c", "true"}); err != nil || prog != "bash" || off.Warning() != "" {
		t.Errorf("off: %s %v %q", prog, err, off.Warning())
	}
}

func TestHelperFailsClosed(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(self, HelperArg, "{not json", "--", "bash", "-c", "echo ran").CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != helperFailed || strings.Contains(string(out), "ran") {
		t.Errorf("helper with a bad spec: %v %q", err, out)
	}
}

func TestConfig(t *testing.T) {
	home, _ := os.UserHomeDir()
	bad := []Config{
		{Mode: "everything"},
		{Writable: []string{"~"}},
		{Writable: []string{"/"}},
		{Writable: []string{"~/.ssh"}},
		{Writable: []string{"~/.bashrc"}},
		{Writable: []string{filepath.Dir(home)}},
		{Writable: []string{"relative/path"}},
	}
	for _, c := range bad {
		if err := c.Validate(); err == nil {
			t.Errorf("Validate(%+v) passed", c)
		}
		if _, err := New(c, Options{}); err == nil {
			t.Errorf("New(%+v) passed", c)
		}
	}
	good := Config{Mode: "workspace-write", Writable: []string{"~/.cache/mytool", "/opt/data"}}
	if err := good.Validate(); err != nil {
		t.Errorf("Validate(%+v): %v", good, err)
	}
	no := false
	m := Config{Mode: "off", Writable: []string{"/a"}}.Merge(Config{Network: &no, Writable: []string{"/b"}})
	if m.Mode != "off" || m.Network == nil || *m.Network || len(m.Writable) != 2 {
		t.Errorf("Merge = %+v", m)
	}
}

func TestSpecNeverOpensHome(t *testing.T) {
	s, err := New(Config{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	spec := s.spec(t.TempDir(), nil)
	for _, w := range spec.Writable {
		if w == "/" || w == home || w == realPath(home) || within(w, home) || strings.Contains(w, "/.ssh") {
			t.Errorf("writable %s exposes the home folder", w)
		}
	}
	t.Logf("writable: %q", spec.Writable)

	// The home folder, or a folder above it, as the workspace stays
	// read-only: it would open the dotfiles.
	fake := t.TempDir()
	t.Setenv("HOME", filepath.Join(fake, "me"))
	for _, ws := range []string{filepath.Join(fake, "me"), fake, "/"} {
		spec := s.spec(ws, nil)
		for _, w := range spec.Writable {
			if w == realPath(ws) {
				t.Errorf("workspace %s, which holds the home folder, is writable", ws)
			}
		}
		if d := s.Describe(ws); s.Backend() != "" && !strings.Contains(d, "holds your home folder") {
			t.Errorf("Describe(%s) = %q does not say why the workspace is read-only", ws, d)
		}
	}
	project := filepath.Join(fake, "me", "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	if spec := s.spec(project, nil); !slices.Contains(spec.Writable, realPath(project)) {
		t.Errorf("a project folder in the home folder is not writable: %q", spec.Writable)
	}
}

// TestSandboxKillsProcessGroup: a confined command and what it started
// die with its process group, as the bash tool kills them on cancel.
func TestSandboxKillsProcessGroup(t *testing.T) {
	for _, name := range backendsHere(t) {
		t.Run(name, func(t *testing.T) {
			ws := localDir(t, "ws-")
			s, err := New(Config{}, Options{Backend: name})
			if err != nil {
				t.Fatal(err)
			}
			marker := filepath.Join(ws, "still-running")
			prog, args, err := s.Command(ws, ws, []string{"bash", "-c", "(sleep 2; touch " + marker + ") & sleep 30"})
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(prog, args...)
			cmd.Dir = ws
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			time.Sleep(300 * time.Millisecond)
			if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the confined command outlived its process group's SIGKILL")
			}
			time.Sleep(2500 * time.Millisecond)
			if _, err := os.Stat(marker); err == nil {
				t.Error("a background child of the confined command survived the kill")
			}
		})
	}
}
