package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"filebridge/internal/folder/sftptest"
)

// supplierFile is a one-supplier Edition A file.
func supplierFile(code string) []byte {
	return []byte("code,name,relationship\n" + code + ",Bench supplier " + code + ",Manufacturer\n")
}

// BenchmarkPickupLatency measures, for a local inbox with settle 300ms,
// the time from a file being closed (renamed into the inbox) to its first
// document on the simulator, over 100 files dropped one after the other;
// it reports the median and the 90th percentile in ms beside the settle.
func BenchmarkPickupLatency(b *testing.B) {
	const n = 100
	const settle = 300 * time.Millisecond
	for b.Loop() {
		s, dir, inbox := simAndInbox(b, "A")
		cfg := runConfig(b, dir, s, "", inboxSpec{name: "erp", url: inbox, extra: fmt.Sprintf("settle = %q\npoll = \"60s\"", settle)})
		cfgText := strings.Replace(readFile(b, cfg), `level = "debug"`, `level = "warn"`, 1)
		mustWrite(b, cfg, cfgText)
		p := start(b, "run", "run", "--config", cfg)
		time.Sleep(300 * time.Millisecond) // let it start watching
		lat := make([]time.Duration, 0, n)
		for i := range n {
			writeAtomic(b, filepath.Join(inbox, fmt.Sprintf("SUPPLIERS_PICK_%03d.csv", i)), supplierFile(fmt.Sprintf("PK-%05d", i)))
			closed := time.Now()
			for s.stats(b).Counts["connections"] < i+1 {
				if time.Since(closed) > 30*time.Second {
					b.Fatalf("file %d not picked up within 30s", i)
				}
				time.Sleep(2 * time.Millisecond)
			}
			lat = append(lat, time.Since(closed))
		}
		p.stop(b, 25*time.Second)
		slices.Sort(lat)
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		b.ReportMetric(ms(lat[n/2]), "ms-median")
		b.ReportMetric(ms(lat[n*9/10]), "ms-p90")
		b.ReportMetric(ms(settle), "ms-settle")
		b.Logf("pickup latency over %d files: median %.0f ms, p90 %.0f ms, min %.0f ms, max %.0f ms (settle %s)",
			n, ms(lat[n/2]), ms(lat[n*9/10]), ms(lat[0]), ms(lat[n-1]), settle)
	}
}

// BenchmarkLocalInboxFiles measures how fast `filebridge run` takes 1,000
// one-supplier files already waiting in a local inbox (an inbox that was
// down for a night) through to the simulator, with file_concurrency 1, 4
// and 16: files/s of each, beside the floor of the same machine: the
// lifecycle's file operations alone, done by a bare loop
// (bareLocalLifecycle).
func BenchmarkLocalInboxFiles(b *testing.B) {
	const n = 1000
	b.Run("bare_file_ops", func(b *testing.B) {
		for b.Loop() {
			inbox := b.TempDir()
			names := make([]string, n)
			for i := range names {
				names[i] = fmt.Sprintf("SUPPLIERS_NIGHT_%04d.csv", i)
				writeAtomic(b, filepath.Join(inbox, names[i]), supplierFile(fmt.Sprintf("NT-%05d", i)))
			}
			took := bareLocalLifecycle(b, inbox, names)
			b.ReportMetric(float64(n)/took.Seconds(), "files/s")
			b.Logf("%d files through the lifecycle's file operations alone (%d at once, no journal, no portal): %.0f files/s (%s)",
				n, floorWorkers, float64(n)/took.Seconds(), took.Round(time.Millisecond))
		}
	})
	for _, fc := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("file_concurrency=%d", fc), func(b *testing.B) {
			for b.Loop() {
				s, dir, inbox := simAndInbox(b, "A")
				for i := range n {
					writeAtomic(b, filepath.Join(inbox, fmt.Sprintf("SUPPLIERS_NIGHT_%04d.csv", i)), supplierFile(fmt.Sprintf("NT-%05d", i)))
				}
				cfg := runConfig(b, dir, s, "", inboxSpec{name: "erp", url: inbox, extra: fmt.Sprintf("settle = \"0s\"\npoll = \"60s\"\nfile_concurrency = %d", fc)})
				mustWrite(b, cfg, strings.Replace(readFile(b, cfg), `level = "debug"`, `level = "warn"`, 1))
				began := time.Now()
				p := start(b, "run", "run", "--config", cfg)
				for s.stats(b).Counts["connections"] < n {
					if time.Since(began) > 5*time.Minute {
						b.Fatalf("not through within 5 minutes")
					}
					time.Sleep(20 * time.Millisecond)
				}
				took := time.Since(began)
				p.stop(b, 25*time.Second)
				b.ReportMetric(float64(n)/took.Seconds(), "files/s")
				b.Logf("%d one-supplier files, file_concurrency %d: %.0f files/s (%s)", n, fc, float64(n)/took.Seconds(), took.Round(time.Millisecond))
			}
		})
	}
}

// supplierFiles writes n supplier files prefix_NNNN.csv (suppliers
// code-NNNNN) into each of dirs and returns their names.
func supplierFiles(b *testing.B, n int, prefix, code string, dirs ...string) []string {
	var names []string
	for i := range n {
		name := fmt.Sprintf("%s_%04d.csv", prefix, i)
		data := string(supplierFile(fmt.Sprintf("%s-%05d", code, i)))
		for _, d := range dirs {
			mustWrite(b, filepath.Join(d, name), data)
		}
		names = append(names, name)
	}
	return names
}

// rcloneMove is `rclone move --sftp-disable-hashcheck` (and flags) of the
// folder from on sshd to the local folder to, logged in with key.
func rcloneMove(rclone string, sshd *sftptest.SSHD, key, from, to string, flags ...string) *exec.Cmd {
	host, port, _ := strings.Cut(sshd.Addr, ":")
	cmd := exec.Command(rclone, slices.Concat([]string{"move", "--sftp-disable-hashcheck"}, flags, []string{"X:" + from, to})...)
	cmd.Env = append(os.Environ(),
		"RCLONE_CONFIG_X_TYPE=sftp", "RCLONE_CONFIG_X_HOST="+host, "RCLONE_CONFIG_X_PORT="+port,
		"RCLONE_CONFIG_X_USER="+sshd.User, "RCLONE_CONFIG_X_KEY_FILE="+key,
		"RCLONE_CONFIG_X_KNOWN_HOSTS_FILE="+sshd.KnownHostsFile)
	return cmd
}

// BenchmarkSFTPInbox puts 1,000 one-supplier files into an SFTP inbox
// served by OpenSSH sshd and measures how fast `filebridge run` takes them
// through (download, validate, submit, report, move), beside `rclone move
// --sftp-disable-hashcheck` taking the same files off the same sshd, with
// the same key, to a local folder: files/s of each and their ratio.
func BenchmarkSFTPInbox(b *testing.B) {
	const n = 1000
	rclone, err := exec.LookPath("rclone")
	if err != nil {
		b.Skip("SKIPPING: rclone is not installed")
	}
	for b.Loop() {
		dir := b.TempDir()
		root := filepath.Join(dir, "srv")
		mkdir(b, root, "in")
		mkdir(b, root, "rclone")
		mkdir(b, root, "bare")
		sshd := sftptest.StartSSHD(b, root)
		key := filepath.Join(dir, "id_ed25519")
		mustWrite(b, key, string(sshd.ClientKey))
		names := supplierFiles(b, n, "SUPPLIERS_BENCH", "SB", filepath.Join(root, "rclone"), filepath.Join(root, "in"), filepath.Join(root, "bare"))
		bareBefore := machineCPU(b)
		bareTook := bareSFTPLifecycle(b, sshd, filepath.Join(root, "bare"), names)
		bareBusy := machineCPU(b) - bareBefore

		// rclone move of the same files from the same server to a local folder.
		local := filepath.Join(dir, "moved")
		cmd := rcloneMove(rclone, sshd, key, filepath.Join(root, "rclone"), local)
		begin, busy := time.Now(), machineCPU(b)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("rclone move: %v\n%s", err, out)
		}
		rcloneTook := time.Since(begin)
		rcloneCPU := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		rcloneBusy := machineCPU(b) - busy
		if got, left := len(files(b, local)), len(files(b, filepath.Join(root, "rclone"))); got != n || left != 0 {
			b.Fatalf("rclone moved %d files of %d, left %d on the server", got, n, left)
		}

		s := startSim(b, "A")
		cfg := runConfig(b, dir, s, "", inboxSpec{name: "erp", url: sshd.URL(root + "/in"),
			extra: "private_key_file = \"" + key + "\"\nknown_hosts = \"" + sshd.KnownHostsFile + "\"\nsettle = \"100ms\"\npoll = \"100ms\""})
		mustWrite(b, cfg, strings.Replace(readFile(b, cfg), `level = "debug"`, `level = "warn"`, 1))
		simBefore := procCPU(b, s.cmd.Process.Pid)
		begin, busy = time.Now(), machineCPU(b)
		p := start(b, "run", "run", "--config", cfg)
		processed := filepath.Join(root, "in", "processed")
		waitFiled(b, 10*time.Minute, processed, n)
		fbTook := time.Since(begin)
		fbBusy := machineCPU(b) - busy
		runCPU, simCPU := procCPU(b, p.cmd.Process.Pid), procCPU(b, s.cmd.Process.Pid)-simBefore
		p.stop(b, 25*time.Second)
		if c := s.stats(b).Counts["connections"]; c < n {
			b.Errorf("%d suppliers on the portal, want at least %d", c, n)
		}
		fb, rc, bare := float64(n)/fbTook.Seconds(), float64(n)/rcloneTook.Seconds(), float64(n)/bareTook.Seconds()
		b.ReportMetric(fb, "files/s-filebridge")
		b.ReportMetric(rc, "files/s-rclone")
		b.ReportMetric(bare, "files/s-bare")
		b.ReportMetric(fb/rc, "ratio")
		b.Logf("1,000 files: filebridge %.1f files/s (%s, through the API), rclone move %.1f files/s (%s, download and delete only), ratio %.2f",
			fb, fbTook.Round(time.Millisecond), rc, rcloneTook.Round(time.Millisecond), fb/rc)
		fbCPU, rcCPU := cpuPerFile(fbBusy, n), cpuPerFile(rcloneBusy, n)
		b.ReportMetric(fbCPU, "cpu-ms/file-filebridge")
		b.ReportMetric(rcCPU, "cpu-ms/file-rclone")
		b.Logf("CPU a file, whole machine: filebridge %.2f ms (run %.2f, simulator %.2f, sshd and the rest %.2f), %.1f of %d cores busy; rclone %.2f ms (rclone %.2f, sshd and the rest %.2f), %.1f cores busy",
			fbCPU, cpuPerFile(runCPU, n), cpuPerFile(simCPU, n), fbCPU-cpuPerFile(runCPU+simCPU, n), fbBusy.Seconds()/fbTook.Seconds(), runtime.NumCPU(),
			rcCPU, cpuPerFile(rcloneCPU, n), rcCPU-cpuPerFile(rcloneCPU, n), rcloneBusy.Seconds()/rcloneTook.Seconds())
		b.Logf("the lifecycle's SFTP requests alone (bare pkg/sftp loop, %d at once, no journal, no portal): %.1f files/s (%s), %.2f of rclone move",
			floorWorkers, bare, bareTook.Round(time.Millisecond), bare/rc)
		b.Logf("CPU a file of the bare loop, whole machine (its client and sshd): %.2f ms", cpuPerFile(bareBusy, n))
	}
}

// BenchmarkLargeOrderFile takes a 100,000-line Edition A order file
// (50,000 orders of 2 lines) from a local inbox through the simulator and
// reports lines/s, from the file landing in the inbox to its move into
// processed/.
func BenchmarkLargeOrderFile(b *testing.B) {
	const orders, linesPer = 50000, 2
	data := ordersFile("A", "BG-", orders, linesPer, 100)
	for b.Loop() {
		s, dir, inbox := simAndInbox(b, "A", "--preload", "100")
		cfg := runConfig(b, dir, s, "", inboxSpec{name: "erp", url: inbox, extra: "settle = \"100ms\"\nmax_file_size = \"1GB\""})
		cfgText := strings.Replace(readFile(b, cfg), `level = "debug"`, `level = "warn"`, 1)
		cfgText = strings.Replace(cfgText, "concurrency = 8", "concurrency = 16", 1)
		mustWrite(b, cfg, cfgText)
		p := start(b, "run", "run", "--config", cfg)
		time.Sleep(300 * time.Millisecond)
		begin := time.Now()
		writeAtomic(b, filepath.Join(inbox, "ORDERS_BIG_20260401.csv"), data)
		allIn(b, 20*time.Minute, filepath.Join(inbox, "processed"), []string{"ORDERS_BIG_20260401.csv"})
		took := time.Since(begin)
		p.stop(b, 25*time.Second)
		if c := s.stats(b).Counts["sales_orders"]; c != orders {
			b.Errorf("%d orders on the portal, want %d", c, orders)
		}
		lines := float64(orders * linesPer)
		b.ReportMetric(lines/took.Seconds(), "lines/s")
		b.ReportMetric(float64(orders)/took.Seconds(), "orders/s")
		b.Logf("%d lines (%d orders, %.1f MB) in %s: %.0f lines/s", orders*linesPer, orders,
			float64(len(data))/1e6, took.Round(time.Millisecond), lines/took.Seconds())
	}
}
