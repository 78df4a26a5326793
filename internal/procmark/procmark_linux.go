package procmark

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// Supported reports whether Find can see other processes' marks here.
const Supported = true

// Find returns the processes whose environment holds the entry kv
// ("NAME=value") exactly, leaving out the calling process. Processes it
// may not read (another user's) are not covey's and are skipped.
func Find(kv string) []int {
	return Match(func(env []byte) bool { return hasEntry(env, kv) })
}

// Match returns the processes whose environment (NUL-separated, as in
// /proc/<pid>/environ) match accepts, leaving out the calling process and
// processes of another pid namespace (a container's), whose marks name
// pids that mean something else here.
func Match(match func(env []byte) bool) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	ns, _ := os.Readlink("/proc/self/ns/pid")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !match(env) {
			continue
		}
		if theirs, err := os.Readlink("/proc/" + e.Name() + "/ns/pid"); ns != "" && (err != nil || theirs != ns) {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// Value returns the value of name in env (NUL-separated), or "".
func Value(env []byte, name string) string {
	prefix := []byte(name + "=")
	for len(env) > 0 {
		var entry []byte
		entry, env, _ = bytes.Cut(env, []byte{0})
		if v, ok := bytes.CutPrefix(entry, prefix); ok {
			return string(v)
		}
	}
	return ""
}

func hasEntry(env []byte, kv string) bool {
	name, value, _ := strings.Cut(kv, "=")
	for len(env) > 0 {
		var entry []byte
		entry, env, _ = bytes.Cut(env, []byte{0})
		if n, v, ok := bytes.Cut(entry, []byte("=")); ok && string(n) == name {
			return string(v) == value
		}
	}
	return false
}

// stat reads the state (field 3) and the start time (field 22) of
// /proc/<pid>/stat; both "" when it cannot be read.
func stat(pid int) (state, start string) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", ""
	}
	// The command name (field 2) may hold spaces and parentheses.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", ""
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 20 {
		return "", ""
	}
	return fields[0], fields[19]
}
