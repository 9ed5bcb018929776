//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"filebridge/internal/model"
)

// The command-line benchmarks run the built filebridge binary (and Miller)
// as child processes on generated files, and report rows/s of wall time and
// the child's peak RSS (getrusage ru_maxrss, Linux).

var (
	benchOnce sync.Once
	benchDir  string
	benchBin  string
	benchErr  error
)

// benchSetup builds the binary once into a temporary folder.
func benchSetup(b *testing.B) string {
	b.Helper()
	benchOnce.Do(func() {
		if benchDir, benchErr = os.MkdirTemp("", "filebridge-validate-bench-"); benchErr != nil {
			return
		}
		benchBin = filepath.Join(benchDir, "filebridge")
		out, err := exec.Command("go", "build", "-o", benchBin, ".").CombinedOutput()
		if err != nil {
			benchErr = fmt.Errorf("building filebridge: %v\n%s", err, out)
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDir
}

// TestMain removes the benchmarks' folder.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		_ = os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchInput writes a generated file once into the benchmarks' folder.
func benchInput(b *testing.B, name string, gen func(w *bufio.Writer)) string {
	b.Helper()
	path := filepath.Join(benchSetup(b), name)
	if _, err := os.Stat(path); err == nil {
		return path
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	gen(w)
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// eanOf makes a valid EAN-13 from a number.
func eanOf(n int) string {
	s := fmt.Sprintf("400%09d", n)
	return s + string(model.EANCheckDigit(s))
}

// skuFile is the 1M-row Edition A SKU file of internal/formats' benchmarks;
// quoted adds a description1 column, quoted and holding a comma on a third
// of the rows.
func skuFile(rows int, quoted bool) func(w *bufio.Writer) {
	return func(w *bufio.Writer) {
		w.WriteString("sku,name,ean,eanBox,quantityPerBox,length,width,height,grossWeight,grossWeightBox,buyPrice,supplierCode")
		if quoted {
			w.WriteString(",description1")
		}
		w.WriteString("\n")
		for i := 0; i < rows; i++ {
			fmt.Fprintf(w, "SKU%d,Oak chair %d,%s,,1,45,50,90,6.5,7.2,89.90,SUP-001", 10000000+i, i, eanOf(i))
			switch {
			case quoted && i%3 == 0:
				fmt.Fprintf(w, ",\"Solid oak, dining chair %d\"", i)
			case quoted:
				w.WriteString(",")
			}
			w.WriteString("\n")
		}
	}
}

// orderLine is one row of an order file.
type orderLine struct{ order, pos int }

// ordersFile is an Edition A order file of orders of linesPer lines (143
// bytes a line); bySKU sorts the rows by line position, as a clerk sorting
// the sheet by SKU would, so that no order's rows are adjacent.
func ordersFile(orders, linesPer int, bySKU bool) func(w *bufio.Writer) {
	return func(w *bufio.Writer) {
		w.WriteString("orderNumber,externalOrderNumber,deliveryMode,warehouseLocation,shipTo.firstName,shipTo.lastName,shipTo.streetAddress,shipTo.zipcode,shipTo.city,shipTo.countryCode,shipTo.email,position,sku,quantity\n")
		lines := make([]orderLine, 0, orders*linesPer)
		for i := 1; i <= orders; i++ {
			for p := 1; p <= linesPer; p++ {
				lines = append(lines, orderLine{i, p})
			}
		}
		if bySKU {
			slices.SortStableFunc(lines, func(a, b orderLine) int { return a.pos - b.pos })
		}
		for _, l := range lines {
			num := fmt.Sprintf("SO-%07d", l.order)
			fmt.Fprintf(w, "%s,EXT-%s,STANDARD,3,Jeanne,Martin,12 rue des Lilas,69003,Lyon,FR,jeanne.martin@example.org,%d,PRE-%06d,%d\n",
				num, num, l.pos, l.pos, 1+l.order%5)
		}
	}
}

// runChild runs a command with its output discarded and returns its wall
// time and peak RSS in MiB.
func runChild(b *testing.B, okCodes []int, name string, args ...string) (time.Duration, float64) {
	b.Helper()
	cmd := exec.Command(name, args...)
	begin := time.Now()
	err := cmd.Run()
	took := time.Since(begin)
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok || !slices.Contains(okCodes, ee.ExitCode()) {
			b.Fatalf("%s %v: %v", name, args, err)
		}
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return took, -1
	}
	return took, float64(ru.Maxrss) / 1024
}

// benchChild runs the command b.N times and reports rows/s and the peak
// RSS of the largest run.
func benchChild(b *testing.B, rows int, name string, args ...string) {
	var wall time.Duration
	peak := 0.0
	for i := 0; i < b.N; i++ {
		took, rss := runChild(b, []int{0}, name, args...)
		wall += took
		peak = max(peak, rss)
	}
	b.ReportMetric(float64(rows*b.N)/wall.Seconds(), "rows/s")
	b.ReportMetric(peak, "peak-RSS-MiB")
}

func validateArgs(path string) []string {
	return []string{"validate", "--edition", "A", "--max-size", "1GB", path}
}

// BenchmarkCLIValidateSKUs1M runs `filebridge validate` on the 1M-row SKU
// file. Targets: rows/s at least 3× BenchmarkMillerSKUs1M; peak RSS at
// most 100 MiB.
func BenchmarkCLIValidateSKUs1M(b *testing.B) {
	path := benchInput(b, "SKU_1M.csv", skuFile(1_000_000, false))
	benchChild(b, 1_000_000, benchBin, validateArgs(path)...)
}

// BenchmarkCLIValidateSKUsQuoted1M is the same with quoted descriptions.
func BenchmarkCLIValidateSKUsQuoted1M(b *testing.B) {
	path := benchInput(b, "SKU_QUOTED_1M.csv", skuFile(1_000_000, true))
	benchChild(b, 1_000_000, benchBin, validateArgs(path)...)
}

// miller runs `mlr --icsv --ojson cat` on a file, the baseline of the
// validate benchmarks (Debian package miller).
func miller(b *testing.B, path string) {
	mlr, err := exec.LookPath("mlr")
	if err != nil {
		b.Skip("mlr (Debian package miller) is not installed")
	}
	benchChild(b, 1_000_000, "sh", "-c", `exec "$0" --icsv --ojson cat "$1" >/dev/null`, mlr, path)
}

// BenchmarkMillerSKUs1M converts the SKU file to JSON with Miller.
func BenchmarkMillerSKUs1M(b *testing.B) {
	miller(b, benchInput(b, "SKU_1M.csv", skuFile(1_000_000, false)))
}

// BenchmarkMillerSKUsQuoted1M is the same on the quoted variant.
func BenchmarkMillerSKUsQuoted1M(b *testing.B) {
	miller(b, benchInput(b, "SKU_QUOTED_1M.csv", skuFile(1_000_000, true)))
}

// BenchmarkCLIValidateOrders1M runs `filebridge validate` on a 1,000,000-line
// order file, 200,000 orders of 5 lines, each order's rows together.
// Target: peak RSS at most 250 MiB.
func BenchmarkCLIValidateOrders1M(b *testing.B) {
	path := benchInput(b, "ORDERS_1M.csv", ordersFile(200_000, 5, false))
	benchChild(b, 1_000_000, benchBin, validateArgs(path)...)
}

// BenchmarkCLIValidateOrdersBySKU1M is the same file sorted by SKU: no
// order's rows are adjacent. Target: peak RSS at most 250 MiB.
func BenchmarkCLIValidateOrdersBySKU1M(b *testing.B) {
	path := benchInput(b, "ORDERS_BY_SKU_1M.csv", ordersFile(200_000, 5, true))
	benchChild(b, 1_000_000, benchBin, validateArgs(path)...)
}
