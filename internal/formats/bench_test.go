package formats

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"filebridge/internal/model"
)

var (
	benchDir     string
	benchDirOnce sync.Once
	benchFiles   sync.Map // name -> path
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		_ = os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchFile generates a benchmark input once per test binary.
func benchFile(b *testing.B, name string, gen func(path string) error) string {
	b.Helper()
	benchDirOnce.Do(func() {
		d, err := os.MkdirTemp("", "filebridge-formats-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchDir = d
	})
	if p, ok := benchFiles.Load(name); ok {
		return p.(string)
	}
	p := filepath.Join(benchDir, name)
	if err := gen(p); err != nil {
		b.Fatal(err)
	}
	benchFiles.Store(name, p)
	return p
}

// eanOf makes a valid EAN-13 from a number.
func eanOf(n int) string {
	s := fmt.Sprintf("400%09d", n)
	return s + string(model.EANCheckDigit(s))
}

// skuCells is a valid Edition A SKU row.
func skuCells(i int) []string {
	return []string{"SKU" + strconv.Itoa(10000000+i), "Oak chair " + strconv.Itoa(i), eanOf(i), "", "1",
		"45", "50", "90", "6.5", "7.2", "89.90", "SUP-001"}
}

var skuBenchHead = []string{"sku", "name", "ean", "eanBox", "quantityPerBox", "length", "width", "height", "grossWeight", "grossWeightBox", "buyPrice", "supplierCode"}

func genSKUCSV(rows int) func(string) error { return genSKUFile(rows, false) }

// genSKUFile writes the SKU file; quoted adds a description1 column, a
// quoted text holding a comma on a third of the rows.
func genSKUFile(rows int, quoted bool) func(string) error {
	return func(path string) error {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		cw := csv.NewWriter(w)
		if !quoted {
			_ = cw.Write(skuBenchHead)
		} else {
			_ = cw.Write(append(slices.Clone(skuBenchHead), "description1"))
		}
		for i := 0; i < rows; i++ {
			c := skuCells(i)
			if quoted {
				desc := ""
				if i%3 == 0 {
					desc = "Solid oak, dining chair " + strconv.Itoa(i)
				}
				c = append(c, desc)
			}
			_ = cw.Write(c)
		}
		cw.Flush()
		if err := w.Flush(); err != nil {
			return err
		}
		return f.Close()
	}
}

// peakRSS runs fn and returns the growth of the peak resident set size in
// MiB (Linux: VmHWM, reset through /proc/self/clear_refs), or -1.
func peakRSS(fn func()) float64 {
	runtime.GC()
	debug.FreeOSMemory()
	base := procStatus("VmRSS")
	if base < 0 || os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) != nil {
		fn()
		return -1
	}
	fn()
	return float64(procStatus("VmHWM")-base) / 1024
}

// procStatus reads a kB value of /proc/self/status.
func procStatus(key string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return -1
}

// reportRows reports rows per second of wall time and CPU nanoseconds per
// row (steadier on a busy machine; compare the pairs of benchmarks on it).
func reportRows(b *testing.B, rows int, cpu0 time.Duration) {
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	if c := cpuTime() - cpu0; c > 0 {
		b.ReportMetric(float64(c.Nanoseconds())/float64(rows), "cpu-ns/row")
	}
}

func decodeFile(b *testing.B, path string, opts Options) int {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	sum, err := Decode(context.Background(), f, st.Size(), filepath.Base(path), opts, func(Doc) error { return nil })
	if err != nil || !sum.Valid() {
		b.Fatalf("decode: %v, %d invalid, %v", err, sum.InvalidDocs, sum.FileIssues)
	}
	return sum.Rows
}

func benchSKUs(b *testing.B, rows int) {
	path := benchFile(b, fmt.Sprintf("SKU_%d.csv", rows), genSKUCSV(rows))
	benchDecode(b, path, Options{Edition: A, MaxSize: 1 << 30}, rows)
}

// benchDecode decodes the file of rows rows b.N times and reports its rows
// per second and the peak RSS of the first run.
func benchDecode(b *testing.B, path string, opts Options, rows int) {
	var peak float64
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if i == 0 {
			peak = peakRSS(func() { decodeFile(b, path, opts) })
			continue
		}
		decodeFile(b, path, opts)
	}
	reportRows(b, rows*b.N, cpu0)
	b.ReportMetric(peak, "peak-RSS-MiB")
}

// BenchmarkValidateSKUs1M decodes and validates a 1M-row Edition A SKU file.
// BenchmarkRawCSV1M is a reference; the targets (against Miller, peak RSS)
// are those of the command, in cmd/filebridge.
func BenchmarkValidateSKUs1M(b *testing.B) { benchSKUs(b, 1_000_000) }

// BenchmarkValidateSKUsQuoted1M is the same with a description column, a
// quoted text holding a comma on a third of the rows.
func BenchmarkValidateSKUsQuoted1M(b *testing.B) {
	path := benchFile(b, "SKU_QUOTED_1000000.csv", genSKUFile(1_000_000, true))
	benchDecode(b, path, Options{Edition: A, MaxSize: 1 << 30}, 1_000_000)
}

// BenchmarkValidateSKUs10k is the same on 10k rows: its peak-RSS-MiB shows
// what does not depend on the number of rows.
func BenchmarkValidateSKUs10k(b *testing.B) { benchSKUs(b, 10_000) }

// BenchmarkRawCSV1M reads the same file with bare encoding/csv.
func BenchmarkRawCSV1M(b *testing.B) {
	path := benchFile(b, "SKU_1000000.csv", genSKUCSV(1_000_000))
	benchBare(b, path, func(f *os.File) (rows int) {
		r := csv.NewReader(f)
		r.ReuseRecord = true
		r.FieldsPerRecord = -1
		for {
			if _, err := r.Read(); err == io.EOF {
				return rows
			} else if err != nil {
				b.Fatal(err)
			}
			rows++
		}
	})
}

// benchBare opens the file b.N times for read, which returns the rows it
// read, and reports rows per second.
func benchBare(b *testing.B, path string, read func(*os.File) int) {
	b.ResetTimer()
	cpu0 := cpuTime()
	rows := 0
	for i := 0; i < b.N; i++ {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		rows += read(f)
		f.Close()
	}
	reportRows(b, rows, cpu0)
}

func genSKUXLSX(rows int) func(string) error {
	return func(path string) error {
		return writeBenchXLSX(path, skuBenchHead, rows, func(i int, row []any) {
			for j, v := range skuCells(i) {
				if j >= 4 && j <= 10 {
					n, _ := strconv.ParseFloat(v, 64)
					row[j] = n
				} else {
					row[j] = v
				}
			}
		})
	}
}

// writeBenchXLSX streams a workbook of the header head and rows rows, the
// cells of row i set by fill, to path.
func writeBenchXLSX(path string, head []string, rows int, fill func(i int, row []any)) error {
	f := excelize.NewFile()
	defer f.Close()
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		return err
	}
	row := make([]any, len(head))
	for i, h := range head {
		row[i] = h
	}
	if err := sw.SetRow("A1", row); err != nil {
		return err
	}
	for i := 0; i < rows; i++ {
		fill(i, row)
		cell, _ := excelize.CoordinatesToCellName(1, i+2)
		if err := sw.SetRow(cell, row); err != nil {
			return err
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return f.SaveAs(path)
}

// BenchmarkXLSX200k decodes a 200k-row SKU workbook. Target: rows/s at least
// 0.8 of BenchmarkXLSXBareRows200k, memory flat in rows.
func BenchmarkXLSX200k(b *testing.B) {
	path := benchFile(b, "SKU_200000.xlsx", genSKUXLSX(200_000))
	benchDecode(b, path, Options{Edition: A}, 200_000)
}

// BenchmarkXLSXBareRows200k reads every cell of the same workbook with a bare
// excelize Rows loop.
func BenchmarkXLSXBareRows200k(b *testing.B) {
	path := benchFile(b, "SKU_200000.xlsx", genSKUXLSX(200_000))
	benchBare(b, path, func(fh *os.File) (rows int) {
		f, err := excelize.OpenReader(fh, excelize.Options{RawCellValue: true})
		if err != nil {
			b.Fatal(err)
		}
		it, err := f.Rows("Sheet1")
		if err != nil {
			b.Fatal(err)
		}
		for it.Next() {
			if _, err := it.Columns(); err != nil {
				b.Fatal(err)
			}
			rows++
		}
		_ = it.Close()
		_ = f.Close()
		return rows
	})
}

// BenchmarkXLSXOpenpyxl200k decodes a 200k-row SKU workbook written by
// openpyxl, its strings inline and in a shared string table, and converts
// it with the xlsx2csv program right after, in every iteration, so that
// both meet the same load of the machine: rows/s and CPU a row of each.
// Target: decode at least twice xlsx2csv's rows/s, memory flat in rows.
func BenchmarkXLSXOpenpyxl200k(b *testing.B) {
	const rows = 200_000
	bin, err := exec.LookPath("xlsx2csv")
	if err != nil {
		b.Skip("xlsx2csv is not installed (apt-get install xlsx2csv)")
	}
	for _, strs := range []string{"inline", "shared"} {
		path := benchFile(b, "SKU_200000_"+strs+".xlsx", genSKUOpenpyxl(b, rows, strs))
		b.Run(strs, func(b *testing.B) {
			var ours, theirs, oursCPU, theirsCPU time.Duration
			var peak float64
			for i := 0; i < b.N; i++ {
				t0, cpu0 := time.Now(), cpuTime()
				if i == 0 {
					peak = peakRSS(func() { decodeFile(b, path, Options{Edition: A}) })
				} else {
					decodeFile(b, path, Options{Edition: A})
				}
				ours, oursCPU = ours+time.Since(t0), oursCPU+cpuTime()-cpu0
				t0 = time.Now()
				theirsCPU += runXLSX2CSV(b, bin, path)
				theirs += time.Since(t0)
			}
			n := float64(rows * b.N)
			b.ReportMetric(n/ours.Seconds(), "rows/s")
			b.ReportMetric(n/theirs.Seconds(), "rows/s-xlsx2csv")
			b.ReportMetric(float64(oursCPU.Nanoseconds())/n, "cpu-ns/row")
			b.ReportMetric(float64(theirsCPU.Nanoseconds())/n, "cpu-ns/row-xlsx2csv")
			b.ReportMetric(peak, "peak-RSS-MiB")
		})
	}
}

// genSKUOpenpyxl writes the rows of genSKUCSV into a workbook with
// testdata/bench/sku_openpyxl.py (Debian: python3-openpyxl), strings
// "inline" or "shared".
func genSKUOpenpyxl(b *testing.B, rows int, strs string) func(string) error {
	const python = "/usr/bin/python3" // Debian's, where python3-openpyxl installs
	if err := exec.Command(python, "-c", "import openpyxl").Run(); err != nil {
		b.Skip("openpyxl is not installed (apt-get install python3-openpyxl)")
	}
	return func(path string) error {
		src := path + ".csv"
		if err := genSKUCSV(rows)(src); err != nil {
			return err
		}
		defer os.Remove(src)
		out, err := exec.Command(python, filepath.Join("testdata", "bench", "sku_openpyxl.py"), src, path, strs).CombinedOutput()
		if err != nil {
			return fmt.Errorf("sku_openpyxl.py: %v: %s", err, out)
		}
		return nil
	}
}

// BenchmarkXLSX2CSV200k converts the workbook of BenchmarkXLSX200k with the
// xlsx2csv program (Debian package xlsx2csv), the outside baseline of the
// XLSX reader: rows/s by wall clock, the program's start included.
func BenchmarkXLSX2CSV200k(b *testing.B) {
	benchXLSX2CSV(b, benchFile(b, "SKU_200000.xlsx", genSKUXLSX(200_000)), 200_000)
}

// benchXLSX2CSV converts the workbook path of rows rows with xlsx2csv b.N
// times and reports its rows per second.
func benchXLSX2CSV(b *testing.B, path string, rows int) {
	bin, err := exec.LookPath("xlsx2csv")
	if err != nil {
		b.Skip("xlsx2csv is not installed (apt-get install xlsx2csv)")
	}
	b.ResetTimer()
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		cpu += runXLSX2CSV(b, bin, path)
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(rows*b.N), "cpu-ns/row")
}

// runXLSX2CSV converts the workbook path with the xlsx2csv program bin and
// returns the CPU time it took.
func runXLSX2CSV(b *testing.B, bin, path string) time.Duration {
	var stderr strings.Builder
	cmd := exec.Command(bin, path)
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("xlsx2csv: %v: %s", err, stderr.String())
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// orderBenchHead and orderCells make an Edition A order file of orders of
// two lines each.
var orderBenchHead = []string{"orderNumber", "externalOrderNumber", "deliveryMode", "warehouseLocation", "shipTo.firstName", "shipTo.lastName",
	"shipTo.streetAddress", "shipTo.zipcode", "shipTo.city", "shipTo.countryCode", "shipTo.email", "position", "sku", "quantity"}

func orderCells(row int) []string {
	num := fmt.Sprintf("SO-%07d", row/2)
	return []string{num, "EXT-" + num, "STANDARD", "3", "Jeanne", "Martin", "12 rue des Lilas", "69003", "Lyon", "FR",
		"jeanne.martin@example.org", strconv.Itoa(row%2 + 1), "SKU" + strconv.Itoa(10000000+row%5000), strconv.Itoa(1 + row%5)}
}

// genOrders writes rows rows of orders as CSV, or as a workbook with xlsx.
func genOrders(rows int, xlsx bool) func(string) error {
	return func(path string) error {
		if xlsx {
			return writeBenchXLSX(path, orderBenchHead, rows, func(i int, row []any) {
				for j, v := range orderCells(i) {
					row[j] = v
				}
			})
		}
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		cw := csv.NewWriter(w)
		_ = cw.Write(orderBenchHead)
		for i := 0; i < rows; i++ {
			_ = cw.Write(orderCells(i))
		}
		cw.Flush()
		if err := w.Flush(); err != nil {
			return err
		}
		return f.Close()
	}
}

// BenchmarkValidateOrders200k decodes and validates 100k Edition A orders
// of two lines, CSV: an index pass and a decoding pass over the file.
func BenchmarkValidateOrders200k(b *testing.B) {
	path := benchFile(b, "ORDERS_200000.csv", genOrders(200_000, false))
	benchDecode(b, path, Options{Edition: A, Type: "orders", MaxSize: 1 << 30}, 200_000)
}

// BenchmarkValidateOrdersXLSX200k is the same from a workbook.
func BenchmarkValidateOrdersXLSX200k(b *testing.B) {
	path := benchFile(b, "ORDERS_200000.xlsx", genOrders(200_000, true))
	benchDecode(b, path, Options{Edition: A, Type: "orders", MaxSize: 1 << 30}, 200_000)
}
