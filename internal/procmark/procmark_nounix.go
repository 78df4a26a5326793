//go:build !unix

package procmark

import "time"

// OwnerVar is the variable every tool process carries.
const OwnerVar = "COVEY_OWNER"

// Owner is the value of OwnerVar for pid.
func Owner(pid int) string { return itoa(pid) + "." }

// OwnerEnv is OwnerVar=Owner(pid).
func OwnerEnv(pid int) string { return OwnerVar + "=" + Owner(pid) }

// Alive cannot tell here: every owner counts as alive, so nothing is
// stopped by mistake.
func Alive(string) bool { return true }

// StartTime is unknown here.
func StartTime(int) string { return "" }

// Stop does nothing here: Find never finds anything to stop.
func Stop([]int, time.Duration) error { return nil }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
