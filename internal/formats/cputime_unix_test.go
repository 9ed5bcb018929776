//go:build unix

package formats

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process used so far (user and system): a
// steadier measure than wall time on a busy machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
