package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// bin is the filebridge binary built by TestMain.
var bin string

// repoRoot is the module root (the parent of this package's folder).
var repoRoot string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	_, file, _, _ := runtime.Caller(0)
	repoRoot = filepath.Dir(filepath.Dir(file))
	dir, err := os.MkdirTemp("", "filebridge-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "creating the build folder:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin = filepath.Join(dir, "filebridge")
	build := exec.Command("go", "build", "-o", bin, "./cmd/filebridge")
	build.Dir = repoRoot
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building filebridge:", err)
		return 1
	}
	return m.Run()
}
