package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(small, link); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		path    string
		limit   int64
		want    string
		wantErr error
		inErr   string
	}{
		"small":                   {path: small, limit: 10, want: "hello"},
		"exactly the limit":       {path: small, limit: 5, want: "hello"},
		"symlink to a file":       {path: link, limit: 10, want: "hello"},
		"over the limit":          {path: big, limit: 99, wantErr: ErrTooLarge, inErr: "99 bytes limit"},
		"symlink to /dev/zero":    {path: zero, limit: 10, wantErr: ErrNotRegular, inErr: "a character device"},
		"FIFO":                    {path: fifo, limit: 10, wantErr: ErrNotRegular, inErr: "a FIFO"},
		"folder":                  {path: dir, limit: 10, wantErr: ErrNotRegular, inErr: "a folder"},
		"missing":                 {path: filepath.Join(dir, "nope"), limit: 10, wantErr: fs.ErrNotExist},
		"device named directly":   {path: "/dev/null", limit: 10, wantErr: ErrNotRegular},
		"device never read whole": {path: "/dev/zero", limit: 1 << 30, wantErr: ErrNotRegular},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			done := make(chan struct{})
			var got []byte
			var err error
			go func() {
				defer close(done)
				got, err = Read(tc.path, tc.limit)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Read blocked")
			}
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.inErr) || !strings.Contains(err.Error(), tc.path) {
					t.Fatalf("err %q should name %q and the path", err, tc.inErr)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("Read = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestReadPrefix(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("abcdef"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit int64
		want  string
		cut   bool
	}{{3, "abc", true}, {6, "abcdef", false}, {100, "abcdef", false}, {0, "", true}} {
		got, cut, err := ReadPrefix(path, tc.limit)
		if err != nil || string(got) != tc.want || cut != tc.cut {
			t.Errorf("ReadPrefix(%d) = %q, %v, %v; want %q, %v", tc.limit, got, cut, err, tc.want, tc.cut)
		}
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{10: "10 bytes", 64 << 10: "64 KB", 1 << 20: "1 MB", 3 << 29: "1.5 GB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
