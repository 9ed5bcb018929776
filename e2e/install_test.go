package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serviceID is the uid and gid the install test gives the service's user:
// a number no account of the machine has, so that nothing but the group
// grants it access.
const serviceID = 64917

// TestInstallService runs the README's install step (deploy/install.sh)
// into a temporary root, verifies the unit with systemd-analyze (its
// binary and man pages found there), and starts the installed binary as
// the unit's user would run, with setpriv: another uid, the service's
// group and no other, reading /etc/filebridge/config.toml and its token.
// The same config with the 0640 root:root of the old instructions is
// refused with exit 2, as the service met it.
func TestInstallService(t *testing.T) {
	if os.Geteuid() != 0 {
		skipUnlessCI(t, "installing needs root (chown to the service's group, setpriv)")
	}
	for _, tool := range []string{"setpriv", "systemd-analyze", "man"} {
		if _, err := exec.LookPath(tool); err != nil {
			skipUnlessCI(t, tool+" is not installed")
		}
	}
	t.Parallel()
	s := startSim(t, "A")
	root := t.TempDir()
	openUp(t, root)
	id := strconv.Itoa(serviceID)

	// The admin's config: an absolute journal in the state directory, the
	// token read from the file beside it.
	state := filepath.Join(root, "var", "lib", "filebridge")
	mkdir(t, state)
	if err := os.Chown(state, serviceID, serviceID); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "config.toml")
	mustWrite(t, src, "[journal]\npath = "+strconv.Quote(filepath.Join(state, "filebridge.db"))+`
[server]
listen = ""

[portals.main]
edition = "A"
base_url = `+strconv.Quote(s.Base)+`
company = 42
token_file = "token"
`)

	out, err := runInstall(root, id, src)
	if err != nil {
		t.Fatalf("deploy/install.sh: %v\n%s", err, out)
	}
	etc := filepath.Join(root, "etc", "filebridge")
	token := filepath.Join(etc, "token")
	mustWrite(t, token, s.Token+"\n")
	for path, want := range map[string]os.FileMode{
		filepath.Join(root, "usr/local/bin/filebridge"):                               0o755,
		filepath.Join(root, "etc/systemd/system/filebridge.service"):                  0o644,
		filepath.Join(root, "usr/local/share/man/man1/filebridge.1"):                  0o644,
		filepath.Join(root, "usr/local/share/man/man1/filebridge-run.1"):              0o644,
		filepath.Join(root, "usr/local/share/bash-completion/completions/filebridge"): 0o644,
		filepath.Join(etc, "config.toml"):                                             0o640,
	} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Errorf("not installed: %v", err)
			continue
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", path, fi.Mode().Perm(), want)
		}
	}
	for _, path := range []string{filepath.Join(etc, "config.toml"), token} {
		if err := os.Chown(path, 0, serviceID); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, 0o640); err != nil {
			t.Fatal(err)
		}
	}

	// systemd-analyze verify checks the unit's binary and its man pages:
	// point it at the temporary root's.
	unit := strings.ReplaceAll(readFile(t, filepath.Join(root, "etc/systemd/system/filebridge.service")),
		"/usr/local/bin/filebridge", filepath.Join(root, "usr/local/bin/filebridge"))
	unitPath := filepath.Join(t.TempDir(), "filebridge.service")
	mustWrite(t, unitPath, unit)
	verify := exec.Command("systemd-analyze", "verify", unitPath)
	verify.Env = append(os.Environ(), "MANPATH="+filepath.Join(root, "usr/local/share/man"))
	if out, err := verify.CombinedOutput(); err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}

	installed := filepath.Join(root, "usr/local/bin/filebridge")
	cfg := filepath.Join(etc, "config.toml")
	if out, code := asService(t, id, installed, "check", "--config", cfg); code != 0 || !strings.Contains(out, "ok   journal") {
		t.Errorf("check as the service's user: exit %d, want 0:\n%s", code, out)
	}
	// The old instructions: config 0640 root:root, unreadable to the
	// service's user, a configuration error (exit 2) that
	// RestartPreventExitStatus=2 keeps from restarting for ever.
	if err := os.Chown(cfg, 0, 0); err != nil {
		t.Fatal(err)
	}
	if out, code := asService(t, id, installed, "check", "--config", cfg); code != 2 || !strings.Contains(out, "permission denied") {
		t.Errorf("check as the service's user with a root:root config: exit %d, want 2 and permission denied:\n%s", code, out)
	}
	if !strings.Contains(readFile(t, filepath.Join(root, "etc/systemd/system/filebridge.service")), "RestartPreventExitStatus=2") {
		t.Error("the unit restarts after a configuration error (exit 2)")
	}
}

// runInstall runs deploy/install.sh into root with the service's group id
// and the config src.
func runInstall(root, group, src string) ([]byte, error) {
	cmd := exec.Command("sh", filepath.Join(repoRoot, "deploy", "install.sh"), bin, src)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "DESTDIR="+root, "FILEBRIDGE_GROUP="+group)
	return cmd.CombinedOutput()
}

// asService runs the installed binary as the unit's user: uid and gid id,
// no supplementary groups.
func asService(t *testing.T, id, binary string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "setpriv", append([]string{"--reuid=" + id, "--regid=" + id, "--clear-groups", "--", binary}, args...)...)
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	if err == nil {
		return string(out), 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		if st, ok := ee.Sys().(syscall.WaitStatus); ok {
			return string(out), st.ExitStatus()
		}
	}
	t.Fatalf("setpriv %s: %v\n%s", binary, err, out)
	return "", 0
}

// skipUnlessCI skips the test, saying why; in CI (.ci/run installs what
// the tests need, as root) it fails it instead.
func skipUnlessCI(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(why + ": .ci/run runs as root and installs systemd, util-linux and man-db")
	}
	t.Skip("SKIPPED: " + why)
}

// openUp lets any user traverse dir and the folders above it that the
// test made (t.TempDir makes them 0700).
func openUp(t *testing.T, dir string) {
	t.Helper()
	for d := dir; d != os.TempDir() && d != "/" && d != "."; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDockerfileHealthcheck: the image's HEALTHCHECK runs a command this
// binary has, with flags it takes (docker build cannot run here).
func TestDockerfileHealthcheck(t *testing.T) {
	t.Parallel()
	df := readFile(t, filepath.Join(repoRoot, "deploy", "Dockerfile"))
	_, after, ok := strings.Cut(df, "HEALTHCHECK")
	if !ok {
		t.Fatal("deploy/Dockerfile has no HEALTHCHECK")
	}
	_, cmdJSON, ok := strings.Cut(after, "CMD ")
	if !ok {
		t.Fatal("the HEALTHCHECK has no CMD")
	}
	cmdJSON, _, _ = strings.Cut(cmdJSON, "\n")
	var argv []string
	if err := json.Unmarshal([]byte(cmdJSON), &argv); err != nil || len(argv) < 2 || argv[0] != "/usr/local/bin/filebridge" {
		t.Fatalf("HEALTHCHECK CMD %s: want an exec-form JSON array running /usr/local/bin/filebridge (%v)", cmdJSON, err)
	}
	// The same arguments with --help: cobra refuses an unknown command or
	// flag with exit 2 before printing help.
	if out, code := runCmd(t, 30*time.Second, append(argv[1:], "--help")...); code != 0 {
		t.Errorf("filebridge %s --help: exit %d:\n%s", strings.Join(argv[1:], " "), code, out)
	}
	if !strings.Contains(df, "\nCOPY . .") || !strings.Contains(readFile(t, filepath.Join(repoRoot, ".dockerignore")), "\n.git\n") {
		t.Error("the build context copies .git: .dockerignore should leave it out")
	}
}
