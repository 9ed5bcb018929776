package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"filebridge/internal/config"
	"filebridge/internal/folder/sftptest"
	"filebridge/internal/testkit"
)

// BenchmarkSFTPRemote puts 1,000 one-supplier files into an SFTP inbox
// on OpenSSH sshd reached through a proxy that delays every chunk half a
// round trip each way (testkit.LatencyProxy), 20 ms and 50 ms round
// trips, as real servers sit, and measures `filebridge run` at its
// default config (no file_concurrency, settle or poll set) taking them
// through the API (the simulator on loopback, no latency), beside `rclone
// move --sftp-disable-hashcheck --transfers 16 --checkers 16` (rclone's
// best setting there) taking the same files through the same proxy in the
// same run. filebridge's figure leaves out the settle wait (default 5s)
// that files already waiting sit out before their first claim by design:
// files/s-filebridge counts from the start of the process to the last
// file in processed/, less that wait; files/s-filebridge-raw does not.
func BenchmarkSFTPRemote(b *testing.B) {
	const n = 1000
	rclone, err := exec.LookPath("rclone")
	if err != nil {
		b.Skip("SKIPPING: rclone is not installed")
	}
	for _, rtt := range []time.Duration{20 * time.Millisecond, 50 * time.Millisecond} {
		b.Run(fmt.Sprintf("rtt=%s", rtt), func(b *testing.B) {
			for b.Loop() {
				remoteRun(b, rclone, n, rtt)
			}
		})
	}
}

func remoteRun(b *testing.B, rclone string, n int, rtt time.Duration) {
	dir := b.TempDir()
	root := filepath.Join(dir, "srv")
	mkdir(b, root, "in")
	mkdir(b, root, "rclone")
	near := sftptest.StartSSHD(b, root)
	sshd := near.Delayed(b, rtt/2)
	key := filepath.Join(dir, "id_ed25519")
	mustWrite(b, key, string(sshd.ClientKey))
	supplierFiles(b, n, "SUPPLIERS_REMOTE", "SR", filepath.Join(root, "rclone"), filepath.Join(root, "in"))

	local := filepath.Join(dir, "moved")
	cmd := rcloneMove(rclone, sshd, key, filepath.Join(root, "rclone"), local, "--transfers", "16", "--checkers", "16")
	begin := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("rclone move: %v\n%s", err, out)
	}
	rcloneTook := time.Since(begin)
	if got, left := len(files(b, local)), len(files(b, filepath.Join(root, "rclone"))); got != n || left != 0 {
		b.Fatalf("rclone moved %d files of %d, left %d on the server", got, n, left)
	}

	// The default config: only what an inbox must say (where, how to log
	// in, which files are what).
	s := startSim(b, "A")
	mustWrite(b, filepath.Join(dir, "token"), s.Token+"\n")
	cfg := filepath.Join(dir, "config.toml")
	mustWrite(b, cfg, fmt.Sprintf(`[journal]
path = %q

[server]
listen = %q

[portals.main]
edition = "A"
base_url = %q
company = 42
token_file = "token"

[[inboxes]]
name = "erp"
portal = "main"
url = %q
private_key_file = %q
known_hosts = %q
%s
`, filepath.Join(dir, "var", "filebridge.db"), testkit.FreeAddr(b), s.Base, sshd.URL(root+"/in"), key, sshd.KnownHostsFile, routes("A")))
	begin = time.Now()
	p := start(b, "run", "run", "--config", cfg)
	processed := filepath.Join(root, "in", "processed")
	waitFiled(b, 10*time.Minute, processed, n)
	raw := time.Since(begin)
	p.stop(b, 25*time.Second)
	st := s.stats(b)
	if c := st.Counts["connections"]; c != n {
		b.Errorf("%d suppliers on the portal, want %d", c, n)
	}
	if st.RepeatedCreates != 0 {
		b.Errorf("%d repeated creates, want 0", st.RepeatedCreates)
	}
	fbTook := raw - config.DefaultSettle
	fb, rc := float64(n)/fbTook.Seconds(), float64(n)/rcloneTook.Seconds()
	b.ReportMetric(fb, "files/s-filebridge")
	b.ReportMetric(float64(n)/raw.Seconds(), "files/s-filebridge-raw")
	b.ReportMetric(rc, "files/s-rclone")
	b.ReportMetric(fb/rc, "ratio")
	b.Logf("%d files, %s round trips: filebridge (default config) %.1f files/s (%s less the %s settle wait; %s in all), rclone move --transfers 16 --checkers 16 %.1f files/s (%s), ratio %.2f",
		n, rtt, fb, fbTook.Round(time.Millisecond), config.DefaultSettle, raw.Round(time.Millisecond), rc, rcloneTook.Round(time.Millisecond), fb/rc)
}
