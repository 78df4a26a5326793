package workspace

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"covey/internal/procmark"
)

// TestWriteListsItsTemp: an atomic write through a journal lists its
// temporary file, whose name carries this process's mark, before writing.
func TestWriteListsItsTemp(t *testing.T) {
	dir := t.TempDir()
	j := NewTempJournal(filepath.Join(dir, "journal"))
	target := filepath.Join(dir, "a.txt")
	if err := WriteAtomic(OSFS{Temps: j}, target, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "journal", procmark.Owner(os.Getpid())+".list"))
	if err != nil {
		t.Fatal(err)
	}
	listed := strings.TrimSpace(string(data))
	want := filepath.Join(dir, ".a.txt.covey-"+procmark.Owner(os.Getpid())+"-")
	if !strings.HasPrefix(listed, want) || !strings.HasSuffix(listed, ".tmp") {
		t.Errorf("journal lists %q, want %s*.tmp", listed, want)
	}
	j.Close()
	if _, err := os.Stat(filepath.Join(dir, "journal", procmark.Owner(os.Getpid())+".list")); !os.IsNotExist(err) {
		t.Errorf("Close left the journal: %v", err)
	}
}

// TestSweepTemps removes exactly what a dead covey's journal proves was
// its own: a listed temporary file with its mark and no lock. Files of a
// live covey, files with another mark, the user's files, and a temporary
// file someone holds open and locked stay.
func TestSweepTemps(t *testing.T) {
	ws := t.TempDir()
	journal := t.TempDir()
	dead := strconv.Itoa(1<<22+1) + ".77"
	live := procmark.Owner(os.Getpid())
	file := func(name string) string {
		p := filepath.Join(ws, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := file(".big.go.covey-" + dead + "-123.tmp")
	staleToo := file(".other.md.covey-" + dead + "-9.tmp")
	otherMark := file(".b.go.covey-999.1-5.tmp")
	userFile := file("main.go")
	oldStyle := file(".c.go.covey-4242.tmp")
	locked := file(".d.go.covey-" + dead + "-7.tmp")
	mine := file(".e.go.covey-" + live + "-8.tmp")
	held, err := os.Open(locked)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	lockTemp(held)
	list := func(owner string, paths ...string) {
		if err := os.WriteFile(filepath.Join(journal, owner+".list"), []byte(strings.Join(paths, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	list(dead, stale, staleToo, otherMark, userFile, oldStyle, locked, filepath.Join(ws, "gone.tmp"), "relative/.x.covey-"+dead+"-1.tmp")
	list(live, mine)

	removed, err := SweepTemps(journal)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(removed, ",") != stale+","+staleToo {
		t.Errorf("removed %v, want %s and %s", removed, stale, staleToo)
	}
	for _, p := range []string{otherMark, userFile, oldStyle, locked, mine} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
	if _, err := os.Stat(filepath.Join(journal, dead+".list")); !os.IsNotExist(err) {
		t.Errorf("the dead covey's journal is left: %v", err)
	}
	if _, err := os.Stat(filepath.Join(journal, live+".list")); err != nil {
		t.Errorf("the live covey's journal was removed: %v", err)
	}
}
