// Command benchratio reads `go test -bench` output and prints each of
// filebridge's benchmarks beside the baseline measured in the same run, with
// the ratio and the target. It is run by scripts/bench.sh.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// pair is one side-by-side comparison: ours against a baseline, on a metric
// reported by both benchmarks.
type pair struct {
	what, ours, base, metric string
	higherBetter             bool
	target                   float64 // minimum ratio (ours relative to base, >1 = better)
	baseMetric               string  // the baseline's metric when it differs from metric
}

var pairs = []pair{
	{"portal creates, concurrency 1", "BenchmarkCreates/client/c1", "BenchmarkCreates/raw/c1", "creates/s", true, 0.8, ""},
	{"portal creates, concurrency 8", "BenchmarkCreates/client/c8", "BenchmarkCreates/raw/c8", "creates/s", true, 0.8, ""},
	{"portal creates, concurrency 32", "BenchmarkCreates/client/c32", "BenchmarkCreates/raw/c32", "creates/s", true, 0.8, ""},
	{"validate 1M-row SKU CSV vs encoding/csv", "BenchmarkValidateSKUs1M", "BenchmarkRawCSV1M", "rows/s", true, 0, ""},
	{"validate 1M SKUs vs Miller (mlr --icsv --ojson)", "BenchmarkCLIValidateSKUs1M", "BenchmarkMillerSKUs1M", "rows/s", true, 3, ""},
	{"validate 1M quoted SKUs vs Miller", "BenchmarkCLIValidateSKUsQuoted1M", "BenchmarkMillerSKUsQuoted1M", "rows/s", true, 3, ""},
	{"read 200k-row XLSX vs bare excelize Rows()", "BenchmarkXLSX200k", "BenchmarkXLSXBareRows200k", "rows/s", true, 0.8, ""},
	{"read 200k-row XLSX vs xlsx2csv", "BenchmarkXLSX200k", "BenchmarkXLSX2CSV200k", "rows/s", true, 2.0, ""},
	{"read 200k-row openpyxl XLSX (inline strings) vs xlsx2csv", "BenchmarkXLSXOpenpyxl200k/inline", "BenchmarkXLSXOpenpyxl200k/inline", "rows/s", true, 2.0, "rows/s-xlsx2csv"},
	{"read 200k-row openpyxl XLSX (shared strings) vs xlsx2csv", "BenchmarkXLSXOpenpyxl200k/shared", "BenchmarkXLSXOpenpyxl200k/shared", "rows/s", true, 2.0, "rows/s-xlsx2csv"},
	{"CPU a row, openpyxl XLSX (inline) vs xlsx2csv", "BenchmarkXLSXOpenpyxl200k/inline", "BenchmarkXLSXOpenpyxl200k/inline", "cpu-ns/row", false, 0, "cpu-ns/row-xlsx2csv"},
	{"CPU a row, openpyxl XLSX (shared) vs xlsx2csv", "BenchmarkXLSXOpenpyxl200k/shared", "BenchmarkXLSXOpenpyxl200k/shared", "cpu-ns/row", false, 0, "cpu-ns/row-xlsx2csv"},
	{"stock export 100k SKUs vs raw page loop", "BenchmarkStockSnapshot100k", "BenchmarkStockRawPages100k", "s/export", false, 0.8, ""},
	{"SFTP inbox 1000 files vs rclone move", "BenchmarkSFTPInbox", "BenchmarkSFTPInbox", "files/s-filebridge", true, 0.6, "files/s-rclone"},
	{"SFTP 20ms away, defaults vs rclone 16/16", "BenchmarkSFTPRemote/rtt=20ms", "BenchmarkSFTPRemote/rtt=20ms", "files/s-filebridge", true, 2.0, "files/s-rclone"},
	{"SFTP 50ms away, defaults vs rclone 16/16", "BenchmarkSFTPRemote/rtt=50ms", "BenchmarkSFTPRemote/rtt=50ms", "files/s-filebridge", true, 2.0, "files/s-rclone"},
	{"SFTP bare lifecycle loop vs rclone move", "BenchmarkSFTPInbox", "BenchmarkSFTPInbox", "files/s-bare", true, 0, "files/s-rclone"},
	{"SFTP CPU a file, whole machine, vs rclone move", "BenchmarkSFTPInbox", "BenchmarkSFTPInbox", "cpu-ms/file-filebridge", false, 0, "cpu-ms/file-rclone"},
	{"SFTP inbox vs bare lifecycle loop", "BenchmarkSFTPInbox", "BenchmarkSFTPInbox", "files/s-filebridge", true, 0, "files/s-bare"},
	{"local inbox fc16 vs bare lifecycle loop", "BenchmarkLocalInboxFiles/file_concurrency=16", "BenchmarkLocalInboxFiles/bare_file_ops", "files/s", true, 0.5, ""},
	{"2000 suppliers, 50ms portal, c16 vs 16/50ms", "BenchmarkSlowPortal/latency", "BenchmarkSlowPortal/latency", "docs/s", true, 0.85, "docs/s-ideal"},
	{"--throttle 0.2 vs the unthrottled run", "BenchmarkSlowPortal/throttle", "BenchmarkSlowPortal/latency", "docs/s", true, 0.5, ""},
	{"--throttle 0.2: suppliers landed once", "BenchmarkSlowPortal/throttle", "BenchmarkSlowPortal/throttle", "docs-once", true, 1.0, "docs"},
	{"--fail-rate/--drop-rate 0.05: landed once", "BenchmarkSlowPortal/faults", "BenchmarkSlowPortal/faults", "docs-once", true, 1.0, "docs"},
	{"adaptive limiter slot vs channel semaphore", "BenchmarkLimiter/adaptive", "BenchmarkLimiter/channel", "ns/op", false, 0.5, ""},
}

// floors are figures with an absolute target rather than a baseline: the
// smallest value allowed.
var floors = []struct {
	what, bench, metric string
	min                 float64
}{
	{"local inbox, 1000 files, file_concurrency 4", "BenchmarkLocalInboxFiles/file_concurrency=4", "files/s", 2000},
	{"local inbox, 1000 files, file_concurrency 16", "BenchmarkLocalInboxFiles/file_concurrency=16", "files/s", 2000},
	{"local bare lifecycle loop, 1000 files", "BenchmarkLocalInboxFiles/bare_file_ops", "files/s", 2000},
}

// ceilings are figures with an absolute target: the largest value allowed.
var ceilings = []struct {
	what, bench, metric string
	max                 float64
}{
	{"1000 tenants: 2000 files through", "BenchmarkTenants", "s-all-files", 5},
	{"1000 tenants: inotify instances", "BenchmarkTenants", "inotify", 4},
	{"1000 tenants: idle RSS", "BenchmarkTenants", "MiB-idle", 150},
	{"1000 tenants: dashboard", "BenchmarkTenants", "KB-dashboard", 100},
}

// rssLimit is the largest peak RSS (MiB) allowed of a benchmark or of a
// memory drill, named by name.
type rssLimit struct {
	what, name string
	max        float64
}

// rssTargets are the largest peak RSS (MiB) allowed of benchmarks.
var rssTargets = []rssLimit{
	{"validate 1M SKUs (command)", "BenchmarkCLIValidateSKUs1M", 100},
	{"validate 1M quoted SKUs (command)", "BenchmarkCLIValidateSKUsQuoted1M", 100},
	{"validate 1M SKUs (in process, growth)", "BenchmarkValidateSKUs1M", 100},
	{"validate 1M order lines (command)", "BenchmarkCLIValidateOrders1M", 250},
	{"validate 1M order lines by SKU (command)", "BenchmarkCLIValidateOrdersBySKU1M", 250},
}

// memTargets are the largest peak RSS (MiB) allowed of the memory drills
// of the e2e tests, which print "memory NAME: peak_rss_mib=N ..." lines.
var memTargets = []rssLimit{
	{"run: 300 MB order file, valid", "valid_300MB", 400},
	{"run: 300 MB order file, all invalid", "invalid_300MB", 400},
	{"run: 1M order lines, orders together", "orders_together_1000000_lines", 250},
	{"run: 1M order lines, orders scattered", "orders_scattered_1000000_lines", 250},
}

var suffix = regexp.MustCompile(`-\d+$`)

// memLine is a memory drill's line: "memory valid_300MB: peak_rss_mib=86 rss_after_mib=39 seconds=27 limit_mib=400".
var memLine = regexp.MustCompile(`^memory (.+): (.*)$`)

func main() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: benchratio [bench.out [mem.out ...]] (standard input without files)")
	}
	flag.Parse()
	samples := map[string]map[string][]float64{}
	mem := map[string]map[string]float64{}
	var ins []*os.File
	for _, name := range flag.Args() {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchratio:", err)
			os.Exit(2)
		}
		defer f.Close()
		ins = append(ins, f)
	}
	if len(ins) == 0 {
		ins = append(ins, os.Stdin)
	}
	for _, in := range ins {
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			parseLine(sc.Text(), samples, mem)
		}
		if err := sc.Err(); err != nil {
			fmt.Fprintf(os.Stderr, "benchratio: reading %s: %v\n", in.Name(), err)
			os.Exit(2)
		}
	}
	report(samples, mem)
}

// parseLine adds a benchmark result line to samples, or a memory drill's
// line to mem; other lines are ignored.
func parseLine(line string, samples map[string]map[string][]float64, mem map[string]map[string]float64) {
	if m := memLine.FindStringSubmatch(line); m != nil {
		kv := map[string]float64{}
		for _, f := range strings.Fields(m[2]) {
			k, v, ok := strings.Cut(f, "=")
			if n, err := strconv.ParseFloat(v, 64); ok && err == nil {
				kv[k] = n
			}
		}
		mem[m[1]] = kv
		return
	}
	fields := strings.Fields(line)
	if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
		return
	}
	name := suffix.ReplaceAllString(fields[0], "")
	m := samples[name]
	if m == nil {
		m = map[string][]float64{}
		samples[name] = m
	}
	for i := 2; i+1 < len(fields); i += 2 {
		if v, err := strconv.ParseFloat(fields[i], 64); err == nil {
			m[fields[i+1]] = append(m[fields[i+1]], v)
		}
	}
}

// eachRun lists, for a benchmark run several times, each run's ratio of
// ours to base (in run order, each against the baseline of the same run),
// or each run's figure when base is nil.
func eachRun(ours, base []float64, higherBetter bool) string {
	if len(ours) < 2 || (base != nil && len(base) != len(ours)) {
		return ""
	}
	var b strings.Builder
	b.WriteString("  runs:")
	for i, o := range ours {
		r := o
		switch {
		case base == nil:
		case higherBetter:
			r = o / base[i]
		default:
			r = base[i] / o
		}
		fmt.Fprintf(&b, " %.3g", r)
	}
	return b.String()
}

// report prints the comparisons, the RSS figures beside their targets and
// the memory drills beside theirs.
func report(samples map[string]map[string][]float64, mem map[string]map[string]float64) {
	// A benchmark run several times (-count) counts with its median.
	metrics := map[string]map[string]float64{}
	for name, m := range samples {
		metrics[name] = map[string]float64{}
		for k, vs := range m {
			vs = slices.Sorted(slices.Values(vs))
			metrics[name][k] = vs[len(vs)/2]
		}
	}
	fmt.Printf("%-46s %14s %14s %-18s %7s %7s\n", "comparison", "ours", "baseline", "metric", "ratio", "target")
	for _, p := range pairs {
		o, ok1 := metrics[p.ours][p.metric]
		bm := p.metric
		if p.baseMetric != "" {
			bm = p.baseMetric
		}
		b, ok2 := metrics[p.base][bm]
		if !ok1 || !ok2 || o == 0 || b == 0 {
			fmt.Printf("%-46s %14s %14s %-18s %7s %7.2f\n", p.what, "-", "-", p.metric, "n/a", p.target)
			continue
		}
		r := o / b
		if !p.higherBetter {
			r = b / o
		}
		verdict := "ok"
		switch {
		case p.target == 0:
			verdict = "reference"
		case r < p.target:
			verdict = "BELOW"
		}
		fmt.Printf("%-46s %14.4g %14.4g %-18s %7.2f %7.2f %s%s\n", p.what, o, b, p.metric, r, p.target, verdict, eachRun(samples[p.ours][p.metric], samples[p.base][bm], p.higherBetter))
	}
	fmt.Printf("\n%-46s %14s %14s %-18s\n", "figure", "ours", "target", "metric")
	for _, f := range floors {
		v, ok := metrics[f.bench][f.metric]
		if !ok {
			fmt.Printf("%-46s %14s %14.0f %-18s n/a\n", f.what, "-", f.min, f.metric)
			continue
		}
		verdict := "ok"
		if v < f.min {
			verdict = "BELOW"
		}
		fmt.Printf("%-46s %14.4g %14.0f %-18s %s\n", f.what, v, f.min, f.metric, verdict)
	}
	for _, c := range ceilings {
		v, ok := metrics[c.bench][c.metric]
		verdict := "ok"
		switch {
		case !ok:
			fmt.Printf("%-46s %14s %14.0f %-18s n/a\n", c.what, "-", c.max, c.metric)
			continue
		case v > c.max:
			verdict = "ABOVE"
		}
		fmt.Printf("%-46s %14.4g %14.0f %-18s %s (at most)%s\n", c.what, v, c.max, c.metric, verdict, eachRun(samples[c.bench][c.metric], nil, true))
	}
	fmt.Printf("\n%-46s %14s %14s\n", "peak RSS", "MiB", "target")
	for _, t := range rssTargets {
		v, ok := metrics[t.name]["peak-RSS-MiB"]
		if !ok {
			fmt.Printf("%-46s %14s %14.0f n/a\n", t.what, "-", t.max)
			continue
		}
		verdict := "ok"
		if v > t.max {
			verdict = "ABOVE"
		}
		fmt.Printf("%-46s %14.1f %14.0f %s\n", t.what, v, t.max, verdict)
	}
	for _, n := range []string{"BenchmarkValidateSKUs10k", "BenchmarkValidateSKUs1M", "BenchmarkXLSX200k", "BenchmarkXLSXOpenpyxl200k/inline", "BenchmarkXLSXOpenpyxl200k/shared", "BenchmarkStockSnapshot100k"} {
		for k, v := range metrics[n] {
			if strings.Contains(k, "RSS") {
				fmt.Printf("%-46s %14.4g %s\n", "peak RSS "+strings.TrimPrefix(n, "Benchmark"), v, k)
			}
		}
	}
	for n, m := range metrics {
		for k, v := range m {
			if strings.HasPrefix(k, "ms-") || strings.Contains(k, "lines/s") || strings.Contains(k, "orders/s") {
				fmt.Printf("%-46s %14.4g %s\n", strings.TrimPrefix(n, "Benchmark"), v, k)
			}
		}
	}
	if len(mem) == 0 {
		return
	}
	fmt.Printf("\n%-46s %14s %14s %14s\n", "memory drills (e2e)", "peak RSS MiB", "target", "RSS after MiB")
	shown := map[string]bool{}
	line := func(what string, m map[string]float64, max float64) {
		verdict := "ok"
		if m["peak_rss_mib"] > max {
			verdict = "ABOVE"
		}
		after := "-"
		if v, ok := m["rss_after_mib"]; ok {
			after = strconv.FormatFloat(v, 'f', 0, 64)
		}
		fmt.Printf("%-46s %14.0f %14.0f %14s %s\n", what, m["peak_rss_mib"], max, after, verdict)
	}
	for _, t := range memTargets {
		m, ok := mem[t.name]
		if !ok {
			fmt.Printf("%-46s %14s %14.0f n/a\n", t.what, "-", t.max)
			continue
		}
		shown[t.name] = true
		line(t.what, m, t.max)
	}
	// Drills that print their own limit (limit_mib=N).
	var others []string
	for name, m := range mem {
		if _, ok := m["limit_mib"]; ok && !shown[name] {
			others = append(others, name)
		}
	}
	sort.Strings(others)
	for _, name := range others {
		line("run: "+strings.ReplaceAll(name, "_", " "), mem[name], mem[name]["limit_mib"])
	}
}
