//go:build !linux

package procmark

// Supported reports whether Find can see other processes' marks here.
const Supported = false

// Find finds nothing where /proc does not show other processes'
// environments.
func Find(string) []int { return nil }

// Match finds nothing where /proc does not show other processes'
// environments.
func Match(func(env []byte) bool) []int { return nil }

// Value returns the value of name in env (NUL-separated), or "".
func Value(env []byte, name string) string {
	prefix := name + "="
	for len(env) > 0 {
		i := 0
		for i < len(env) && env[i] != 0 {
			i++
		}
		entry := string(env[:i])
		if len(entry) >= len(prefix) && entry[:len(prefix)] == prefix {
			return entry[len(prefix):]
		}
		if i == len(env) {
			break
		}
		env = env[i+1:]
	}
	return ""
}

func stat(int) (state, start string) { return "", "" }
