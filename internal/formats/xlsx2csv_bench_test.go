package formats

import (
	"io"
	"os/exec"
	"strings"
	"testing"
)

// BenchmarkXLSX2CSV200k converts the workbook of BenchmarkXLSX200k with the
// xlsx2csv program (Debian package xlsx2csv), the outside baseline of the
// XLSX reader: rows/s by wall clock, the program's start included.
func BenchmarkXLSX2CSV200k(b *testing.B) {
	bin, err := exec.LookPath("xlsx2csv")
	if err != nil {
		b.Skip("xlsx2csv is not installed (apt-get install xlsx2csv)")
	}
	path := benchFile(b, "SKU_200000.xlsx", genSKUXLSX(200_000))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var stderr strings.Builder
		cmd := exec.Command(bin, path)
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		if err := cmd.Run(); err != nil {
			b.Fatalf("xlsx2csv: %v: %s", err, stderr.String())
		}
	}
	b.ReportMetric(float64(200_000*b.N)/b.Elapsed().Seconds(), "rows/s")
}
