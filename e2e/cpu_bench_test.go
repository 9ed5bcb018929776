package e2e

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// procCPU reads the CPU time (user plus system) of a running process
// from /proc.
func procCPU(tb testing.TB, pid int) time.Duration {
	tb.Helper()
	file := "/proc/" + strconv.Itoa(pid) + "/stat"
	// The fields after the command name, which is in parentheses and may
	// hold spaces, start with the state (field 3): utime is the 12th of
	// them, stime the 13th.
	_, rest, _ := strings.Cut(readProc(tb, file), ") ")
	return cpuTicks(tb, file, strings.Fields(rest), 11, 12)
}

// machineCPU reads from /proc/stat the CPU time all processors of the
// machine spent busy (user, nice, system, interrupts, stolen) since boot.
func machineCPU(tb testing.TB) time.Duration {
	tb.Helper()
	line, _, _ := strings.Cut(readProc(tb, "/proc/stat"), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	if len(f) == 0 || f[0] != "cpu" {
		tb.Fatalf("/proc/stat starts with %q, want the cpu line", line)
	}
	return cpuTicks(tb, "/proc/stat", f, 1, 2, 3, 6, 7, 8)
}

func readProc(tb testing.TB, file string) string {
	tb.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		tb.Fatalf("reading CPU times: %v", err)
	}
	return string(b)
}

// cpuTicks adds up the fields at idx of a line of file, CPU times in
// clock ticks of 1/100 s (USER_HZ on Linux).
func cpuTicks(tb testing.TB, file string, fields []string, idx ...int) time.Duration {
	tb.Helper()
	var ticks int64
	for _, i := range idx {
		if i >= len(fields) {
			tb.Fatalf("%s: %d fields, want more than %d", file, len(fields), i)
		}
		n, err := strconv.ParseInt(fields[i], 10, 64)
		if err != nil {
			tb.Fatalf("%s: field %d: %v", file, i, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / 100
}

// cpuPerFile is a CPU time per file in milliseconds.
func cpuPerFile(d time.Duration, files int) float64 {
	return float64(d) / float64(time.Millisecond) / float64(files)
}
