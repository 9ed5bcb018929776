//go:build unix

package inbox

import "golang.org/x/sys/unix"

// handleBudget is how many claimed local files a round keeps open for
// their processing: a quarter of the process's descriptor limit, at most
// maxKept.
func handleBudget() int {
	var l unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &l); err != nil {
		return minKept
	}
	return int(min(uint64(l.Cur)/4, maxKept))
}
