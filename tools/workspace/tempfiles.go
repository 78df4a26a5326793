package workspace

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"covey/internal/procmark"
)

// A temporary file of an atomic write is named after the file it replaces
// and the covey process writing it (.NAME.covey-PID.START-RANDOM.tmp), is
// flock'ed while it is written, and is listed in that process's temp
// journal before it holds a byte. A covey killed mid-write (SIGKILL during
// edit_file of a large file) leaves it behind; the next start finds it in
// the dead process's journal and removes it, and only it: a file is taken
// only when its journal, its name and a free lock all say it belongs to a
// covey that is gone.

// tempPattern is the os.CreateTemp pattern of a temporary file replacing
// base. A very long base is cut, so the name stays within the 255 bytes
// file systems allow.
func tempPattern(base string) string {
	if len(base) > 160 {
		base = base[:160]
	}
	return "." + base + ".covey-" + procmark.Owner(os.Getpid()) + "-*.tmp"
}

// TempJournal lists the temporary files one covey process creates, in a
// file of its own in a shared folder, so a later covey can clean up after
// it. It is safe for concurrent use; a nil *TempJournal lists nothing.
type TempJournal struct {
	dir string

	mu   sync.Mutex
	f    *os.File // opened at the first note
	err  error
	path string
}

// NewTempJournal returns the journal of this process in dir (created at
// the first temporary file).
func NewTempJournal(dir string) *TempJournal { return &TempJournal{dir: dir} }

// note lists path before anything is written to it.
func (j *TempJournal) note(path string) error {
	if j == nil {
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil && j.err == nil {
		if j.err = os.MkdirAll(j.dir, 0o700); j.err == nil {
			j.path = filepath.Join(j.dir, procmark.Owner(os.Getpid())+".list")
			j.f, j.err = os.OpenFile(j.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		}
	}
	if j.err != nil {
		return fmt.Errorf("temp journal: %w", j.err)
	}
	_, err = j.f.WriteString(abs + "\n")
	return err
}

// Close removes the journal: at a clean exit every temporary file was
// renamed or removed already.
func (j *TempJournal) Close() {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f != nil {
		_ = j.f.Close()
		_ = os.Remove(j.path)
		j.f = nil
	}
}

// journalName is <pid>.<start>.list, the owner being pid.start.
var journalName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]+\.[0-9]*)\.list$`) })

// SweepTemps removes the temporary files that covey processes now gone
// left behind, as their journals in dir list them, and the journals. A
// listed file is removed only if its name carries that process's mark and
// no one holds its lock. It returns the files it removed.
func SweepTemps(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sweep temporary files: %w", err)
	}
	var removed []string
	var errs []error
	for _, e := range ents {
		m := journalName().FindStringSubmatch(e.Name())
		if m == nil || procmark.Alive(m[1]) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		gone, err := sweepJournal(path, m[1])
		removed = append(removed, gone...)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return removed, errors.Join(errs...)
}

// sweepJournal removes what one dead owner's journal lists.
func sweepJournal(path, owner string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	suffix := ".covey-" + owner + "-"
	var removed []string
	var errs []error
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 1<<16)
	for sc.Scan() {
		tmp := sc.Text()
		base := filepath.Base(tmp)
		i := strings.LastIndex(base, suffix)
		if !filepath.IsAbs(tmp) || !strings.HasPrefix(base, ".") || i < 0 || !isDigitsTmp(base[i+len(suffix):]) {
			continue
		}
		info, err := os.Lstat(tmp)
		if err != nil || !info.Mode().IsRegular() {
			continue // renamed into place, removed, or not a file
		}
		if !unlocked(tmp) {
			continue
		}
		if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, tmp)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, err)
	}
	return removed, errors.Join(errs...)
}

// isDigitsTmp reports whether s is os.CreateTemp's random digits and ".tmp".
func isDigitsTmp(s string) bool {
	digits, ok := strings.CutSuffix(s, ".tmp")
	if !ok || digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
