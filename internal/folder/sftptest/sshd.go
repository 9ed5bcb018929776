package sftptest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"filebridge/internal/folder"
	"filebridge/internal/testkit"
)

// SSHDPath is the OpenSSH daemon StartSSHD runs.
const SSHDPath = "/usr/sbin/sshd"

// SSHD is a real OpenSSH sshd on a loopback port, with key login only and
// the internal-sftp subsystem.
type SSHD struct {
	endpoint // User is the current user
	// Root is the absolute directory the tests use as folder root.
	Root string

	// RSAFingerprint is the SHA-256 fingerprint of the RSA host key sshd
	// has besides its ed25519 key, with SSHDConfig.RSAHostKey.
	RSAFingerprint string

	cmd    *exec.Cmd
	exited chan struct{}
	stderr *testkit.Buffer
}

// SSHDConfig changes how StartSSHDConfig's sshd is set up.
type SSHDConfig struct {
	// RSAHostKey gives sshd an RSA host key besides its ed25519 key,
	// which clients that offer both get first.
	RSAHostKey bool
}

// StartSSHD starts sshd for a folder rooted at rootDir (an absolute local
// path, which is also the path on the server) and stops it when the test
// ends. Without sshd the test is skipped, or fails when $CI is set: CI must
// run these tests.
func StartSSHD(t testing.TB, rootDir string) *SSHD {
	t.Helper()
	return StartSSHDConfig(t, rootDir, SSHDConfig{})
}

// StartSSHDConfig starts sshd as StartSSHD does, set up by cfg.
func StartSSHDConfig(t testing.TB, rootDir string, cfg SSHDConfig) *SSHD {
	t.Helper()
	if _, err := os.Stat(SSHDPath); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("OpenSSH sshd not found at %s and CI is set: install openssh-server", SSHDPath)
		}
		t.Skipf("SKIPPING OpenSSH tests: sshd not found at %s (install openssh-server to run them)", SSHDPath)
	}
	u, err := user.Current()
	if err != nil {
		t.Fatalf("looking up the current user: %v", err)
	}
	// sshd refuses to start without its privilege separation directory.
	_ = os.MkdirAll("/run/sshd", 0o755)

	dir := t.TempDir()
	host := newKeyPair(t)
	client := newKeyPair(t)
	hostKeyFile := filepath.Join(dir, "ssh_host_ed25519_key")
	authKeys := filepath.Join(dir, "authorized_keys")
	mustWrite(t, hostKeyFile, host.pem, 0o600)
	mustWrite(t, authKeys, ssh.MarshalAuthorizedKey(client.signer.PublicKey()), 0o600)

	s := &SSHD{
		endpoint: endpoint{User: u.Username, ClientKey: client.pem, HostKey: host.signer.PublicKey(), clientAuth: client.signer},
		Root:     rootDir,
	}
	hostKeys := []string{hostKeyFile}
	if cfg.RSAHostKey {
		rsaKey := newRSAKeyPair(t)
		rsaFile := filepath.Join(dir, "ssh_host_rsa_key")
		mustWrite(t, rsaFile, rsaKey.pem, 0o600)
		hostKeys = append(hostKeys, rsaFile)
		s.RSAFingerprint = ssh.FingerprintSHA256(rsaKey.signer.PublicKey())
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		if lastErr = s.start(t, dir, hostKeys, authKeys); lastErr == nil {
			s.hostKeyInfo = newHostKeyInfo(t, s.Addr, s.HostKey)
			return s
		}
	}
	t.Fatalf("starting sshd: %v", lastErr)
	return nil
}

func (s *SSHD) start(t testing.TB, dir string, hostKeys []string, authKeys string) error {
	port, err := testkit.FreePort()
	if err != nil {
		return err
	}
	cfgFile := filepath.Join(dir, "sshd_config")
	var hk strings.Builder
	for _, k := range hostKeys {
		fmt.Fprintf(&hk, "HostKey %s\n", k)
	}
	cfg := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
%sAuthorizedKeysFile %s
PermitRootLogin yes
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
Subsystem sftp internal-sftp
PidFile %s
UseDNS no
MaxStartups 100:30:200
MaxSessions 100
LogLevel ERROR
`, port, hk.String(), authKeys, filepath.Join(dir, "sshd.pid"))
	mustWrite(t, cfgFile, []byte(cfg), 0o600)

	s.stderr = &testkit.Buffer{}
	s.cmd = exec.Command(SSHDPath, "-D", "-e", "-f", cfgFile)
	s.cmd.Stdout = s.stderr
	s.cmd.Stderr = s.stderr
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("running %s: %w", SSHDPath, err)
	}
	s.exited = make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))

	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-s.exited:
			return fmt.Errorf("sshd exited at start: %s", s.stderr.String())
		default:
		}
		c, err := net.DialTimeout("tcp", s.Addr, time.Second)
		if err == nil {
			_ = c.Close()
			break
		}
		if time.Now().After(deadline) {
			s.stop()
			return fmt.Errorf("sshd did not answer on %s within 10s: %s", s.Addr, s.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			t.Logf("sshd output:\n%s", s.stderr.String())
		}
	})
	return nil
}

// stop kills sshd's process group and waits for it.
func (s *SSHD) stop() {
	if s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	}
	<-s.exited
}

// Options returns folder options for dir with key login, the known_hosts
// file and a 10s operation timeout.
func (s *SSHD) Options(dir string) folder.Options {
	return folder.Options{
		Location: location(s.URL(dir)), PrivateKey: s.ClientKey,
		KnownHostsFile: s.KnownHostsFile, Timeout: 10 * time.Second,
	}
}

func mustWrite(t testing.TB, name string, data []byte, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(name, data, perm); err != nil {
		t.Fatalf("writing %s: %v", name, err)
	}
}

// Delayed returns the sshd as reached through a proxy that delays every
// chunk by oneWay in each direction (testkit.LatencyProxy): a server a
// round trip of 2*oneWay away. Addr, URL and the known_hosts file are the
// proxy's; the files and the keys are the same.
func (s *SSHD) Delayed(t testing.TB, oneWay time.Duration) *SSHD {
	t.Helper()
	p := testkit.StartLatencyProxy(t, s.Addr, oneWay)
	d := *s
	d.Addr = p.Addr
	d.hostKeyInfo = newHostKeyInfo(t, p.Addr, s.HostKey)
	return &d
}
