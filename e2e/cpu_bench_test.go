package e2e

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// userHZ is the unit of the CPU times in /proc/PID/stat on Linux.
const userHZ = 100

// procCPU reads the CPU time (user plus system) of a running process
// from /proc.
func procCPU(tb testing.TB, pid int) time.Duration {
	tb.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		tb.Fatalf("reading the CPU time of process %d: %v", pid, err)
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: state is field 3, utime 14, stime 15.
	_, rest, _ := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if len(f) < 13 {
		tb.Fatalf("/proc/%d/stat: %d fields after the name, want at least 13", pid, len(f))
	}
	var ticks int64
	for _, i := range []int{11, 12} {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			tb.Fatalf("/proc/%d/stat field %d: %v", pid, i+3, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ
}

// machineCPU reads from /proc/stat the CPU time all processors of the
// machine spent busy (user, system, interrupts, stolen) since boot.
func machineCPU(tb testing.TB) time.Duration {
	tb.Helper()
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		tb.Fatalf("reading the machine's CPU time: %v", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	if len(f) < 9 || f[0] != "cpu" {
		tb.Fatalf("/proc/stat starts with %q, want the cpu line", line)
	}
	var busy int64
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			tb.Fatalf("/proc/stat field %d: %v", i, err)
		}
		busy += n
	}
	return time.Duration(busy) * time.Second / userHZ
}

// cpuPerFile is a CPU time per file in milliseconds.
func cpuPerFile(d time.Duration, files int) float64 {
	return float64(d) / float64(time.Millisecond) / float64(files)
}
