package testkit

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// InotifyInstances counts the inotify instances process pid holds ("self":
// this one): its descriptors that link to anon_inode:inotify.
func InotifyInstances(pid string) (int, error) {
	dir := filepath.Join("/proc", pid, "fd")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("counting inotify instances: %w", err)
	}
	n := 0
	for _, e := range entries {
		if link, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && link == "anon_inode:inotify" {
			n++
		}
	}
	return n, nil
}

// RSS returns the resident set size of process pid ("self": this one),
// in bytes, from /proc/PID/status.
func RSS(pid string) (int64, error) { return procStatus(pid, "VmRSS") }

// PeakRSS returns the peak resident set size of process pid (VmHWM), in
// bytes.
func PeakRSS(pid string) (int64, error) { return procStatus(pid, "VmHWM") }

// procStatus reads the size line key ("VmRSS") of /proc/PID/status, in
// bytes.
func procStatus(pid, key string) (int64, error) {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "status"))
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", key, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == key+":" {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("reading %s: %q: %w", key, sc.Text(), err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("reading %s: no such line in /proc/%s/status", key, pid)
}
