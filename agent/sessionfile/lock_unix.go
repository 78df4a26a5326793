//go:build unix

package sessionfile

import (
	"bufio"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// lockFile takes the exclusive lock of a session file (flock: tied to
// this open file, released when it is closed or the process dies, however
// it dies). A file locked already fails with the holder's pid where the
// system shows it. A file system without locks (some network mounts) is
// used unlocked rather than not at all.
func lockFile(f *os.File) (holder int, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return 0, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return lockHolder(f), errLocked
	case errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.EINVAL):
		return 0, nil
	}
	return 0, err
}

// lockHolder finds in /proc/locks the process holding a flock on f's
// inode; 0 when it cannot tell.
func lockHolder(f *os.File) int {
	info, err := f.Stat()
	if err != nil {
		return 0
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	locks, err := os.Open("/proc/locks")
	if err != nil {
		return 0
	}
	defer locks.Close()
	ino := ":" + strconv.FormatUint(st.Ino, 10)
	sc := bufio.NewScanner(locks)
	for sc.Scan() {
		// 1: FLOCK  ADVISORY  WRITE 1234 00:2d:5678 0 EOF
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" || fields[3] != "WRITE" || !strings.HasSuffix(fields[5], ino) {
			continue
		}
		if pid, err := strconv.Atoi(fields[4]); err == nil && pid > 0 {
			return pid
		}
	}
	return 0
}
