package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"

	"filebridge/internal/portalsim"
	"filebridge/internal/templates/gentest"
	"filebridge/internal/testkit"
)

// csvCase is a CSV file as a clerk or an ERP makes it, read through a
// route of an Edition A inbox of suppliers.
type csvCase struct {
	name  string
	route string // extra keys of the route (type = "suppliers" is set)
	data  []byte
	// valid: validate and process both exit 0.
	valid bool
	// partial: the route's policy is partial (valid rows of an invalid
	// file are created).
	partial bool
}

func win1252(s string) []byte {
	b, err := charmap.Windows1252.NewEncoder().Bytes([]byte(s))
	if err != nil {
		panic(err)
	}
	return b
}

// csvCases are the cases of issue 24 on CSV files.
func csvCases() []csvCase {
	const head = "code,name,relationship\n"
	return []csvCase{
		// Excel's text marker: dropped before a digit or '+', kept in a name.
		{name: "apostrophe", valid: true, data: []byte(head +
			"'01000,'s-Hertogenbosch Depot,Manufacturer\n" +
			"'00123,'+31 Logistics,Manufacturer\n" +
			"SUP-C,O'Brien & Sons,Manufacturer\n")},
		// Bytes that are UTF-8 in a windows-1252 route.
		{name: "utf8_in_windows1252", route: `charset = "windows-1252"`, data: []byte(head +
			"SUP-A,Supplier A,Manufacturer\n" +
			"SUP-B,Café Müller,Manufacturer\n")},
		// A Windows-1252 file in a Latin-1 route: € – “ ” are C1 controls there.
		{name: "windows1252_in_latin1", route: `charset = "iso-8859-1"`, data: win1252(head +
			"SUP-A,Supplier A,Manufacturer\n" +
			"SUP-B,“Müller” – € store,Manufacturer\n")},
		// The same file in its own charset is read as the clerk sees it.
		{name: "windows1252", route: `charset = "windows-1252"`, valid: true, data: win1252(head +
			"SUP-A,Supplier A,Manufacturer\n" +
			"SUP-B,“Müller” – € store,Manufacturer\n")},
		// A quote left open swallows the lines after it into one broken
		// record; text after a closing quote breaks its line only.
		{name: "open_quote", route: `policy = "partial"`, partial: true, data: []byte(head +
			"SUP-A,Supplier A,Manufacturer\n" +
			"SUP-B,\"Shelf \"A\" 12\",Manufacturer\n" +
			"SUP-C,Supplier C,Manufacturer\n" +
			"SUP-D,\"Monitor 24\"\",Manufacturer\n" +
			"SUP-E,Supplier E,Manufacturer\n" +
			"SUP-F,Supplier F,Manufacturer\n")},
		// A title above the header: skipped by the route's header_row, or
		// refused with the line of the header and the setting.
		{name: "title_row", route: `header_row = 3`, valid: true, data: []byte("Suppliers, March 2026,\n\n" + head +
			"SUP-A,Supplier A,Manufacturer\n")},
		{name: "title_row_unset", data: []byte("Suppliers, March 2026,\n\n" + head +
			"SUP-A,Supplier A,Manufacturer\n")},
		// Excel's sep= line names the delimiter; CR-only line ends.
		{name: "sep_line", valid: true, data: []byte("sep=;\r\ncode;name;relationship\r\nSUP-A;Supplier A, Depot;Manufacturer\r\n")},
		{name: "cr_only", valid: true, data: []byte("code;name;relationship\rSUP-A;Supplier A;Manufacturer\rSUP-B;\"Two\rlines\";Manufacturer\r")},
		// Latin-1 text in the documented spelling of its charset.
		{name: "latin1", route: `charset = "iso-8859-1"`, valid: true, data: win1252(head +
			"SUP-A,Café Müller,Manufacturer\n")},
	}
}

// TestCSVFiles: each case is validated, then processed on a simulator;
// both agree (same verdict, nothing created from an invalid file), every
// physical line of the file is accounted for in the report, and the
// golden file testdata/csvfiles/NAME.golden holds what the clerk gets:
// validate's table, the report, the rejected rows and the suppliers the
// portal holds (go test -update rewrites them).
func TestCSVFiles(t *testing.T) {
	for _, tc := range csvCases() {
		t.Run(tc.name, func(t *testing.T) {
			_, srv := testkit.Sim(t, portalsim.Options{Edition: portalsim.EditionA})
			baseURL := srv.URL + "/api"
			cfg, in := processEnv(t, "demo-token", baseURL)
			route := "\n[[inboxes.routes]]\nmatch = \"*\"\ntype = \"suppliers\"\n" + tc.route + "\n"
			base, err := os.ReadFile(cfg)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, cfg, string(base)+route, 0o644)
			name := "SUPPLIERS_" + tc.name + ".csv"
			src := filepath.Join(t.TempDir(), name)
			writeFile(t, src, string(tc.data), 0o644)

			var g strings.Builder
			vout, vcode := runValidateCmd(t, "--config", cfg, "--inbox", "erp", src)
			fmt.Fprintf(&g, "# validate: exit %d\n%s", vcode, vout)
			pout, pcode := runProcessCmd(t, "--config", cfg, "--inbox", "erp", src)
			fmt.Fprintf(&g, "# process: exit %d\n", pcode)
			want := exitOK
			if !tc.valid {
				want = exitInvalid
			}
			if vcode != want || pcode != want {
				t.Errorf("validate exit %d, process exit %d, want both %d\n%s\n%s", vcode, pcode, want, vout, pout)
			}
			report := readInboxFile(t, in, strings.TrimSuffix(name, ".csv")+".report.csv")
			rejected := readInboxFile(t, in, strings.TrimSuffix(name, ".csv")+".rejected.csv")
			fmt.Fprintf(&g, "# report\n%s# rejected\n%s", withoutPortalIDs(t, report), rejected)
			created := portalConnections(t, baseURL)
			fmt.Fprintf(&g, "# portal connections\n%s", created)
			if !tc.valid && !tc.partial && created != "" {
				t.Errorf("the invalid file created documents:\n%s", created)
			}
			for _, l := range unaccounted(t, tc.data, report) {
				t.Errorf("line %d of the file is not in the report:\n%s", l, report)
			}
			checkGolden(t, filepath.Join("testdata", "csvfiles", tc.name+".golden"), g.String())
		})
	}
}

// readInboxFile returns the content of the file name wherever the
// inbox's processing put it (processed/... or error/), its byte order
// mark dropped; "(none)\n" when there is none.
func readInboxFile(t *testing.T, in, name string) string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(in, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == name {
			found = append(found, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	switch len(found) {
	case 0:
		return "(none)\n"
	case 1:
	default:
		t.Fatalf("%s found %d times: %v", name, len(found), found)
	}
	b, err := os.ReadFile(found[0])
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(string(b), "\uFEFF")
}

// portalConnections lists the code and name of every connection on the
// portal, one per line, sorted.
func portalConnections(t *testing.T, baseURL string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, baseURL+"/connections?itemsPerPage=100", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer demo-token")
	req.Header.Set("Accept", "application/ld+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		t.Fatalf("listing connections: %v", err)
	}
	raw := page["hydra:member"]
	if raw == nil {
		raw = page["member"]
	}
	var members []struct {
		Code string `json:"code"`
		Name string `json:"name"`
	}
	if err := json.Unmarshal(raw, &members); err != nil {
		t.Fatalf("listing connections: %v", err)
	}
	var lines []string
	for _, m := range members {
		lines = append(lines, fmt.Sprintf("%q %q\n", m.Code, m.Name))
	}
	slices.Sort(lines)
	return strings.Join(lines, "")
}

// lineRange is "lines 5–9" (or "lines 5-9") in a report message.
var lineRange = regexp.MustCompile(`lines (\d+)[–-](\d+)`)

// unaccounted returns the non-empty physical lines of data after the
// header (the first line starting with "code") that no line of the
// report names (in its row column, or as a
// range of lines in its message). A file-level error without a row
// accounts for every line.
func unaccounted(t *testing.T, data []byte, report string) []int {
	t.Helper()
	recs := reportRecords(t, report)
	covered := map[int]bool{}
	for _, rec := range recs[1:] {
		row, result, msg := rec[0], rec[2], rec[len(rec)-1]
		if row == "" && result == "error" {
			return nil
		}
		for part := range strings.SplitSeq(row, ",") {
			a, b, ok := strings.Cut(part, "-")
			if !ok {
				b = a
			}
			lo, err1 := strconv.Atoi(a)
			hi, err2 := strconv.Atoi(b)
			if err1 == nil && err2 == nil {
				for l := lo; l <= hi; l++ {
					covered[l] = true
				}
			}
		}
		for _, m := range lineRange.FindAllStringSubmatch(msg, -1) {
			lo, _ := strconv.Atoi(m[1])
			hi, _ := strconv.Atoi(m[2])
			for l := lo; l <= hi; l++ {
				covered[l] = true
			}
		}
	}
	if !bytes.Contains(data, []byte("\n")) {
		data = bytes.ReplaceAll(data, []byte("\r"), []byte("\n"))
	}
	// A record's quoted line breaks are lines of its row.
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord, cr.Comma = -1, ';'
	if !bytes.Contains(data, []byte(";")) {
		cr.Comma = ','
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			continue // a broken record: its message names its lines
		}
		start, _ := cr.FieldPos(0)
		last, _ := cr.FieldPos(len(rec) - 1)
		end := last + strings.Count(rec[len(rec)-1], "\n")
		for l := start + 1; covered[start] && l <= end; l++ {
			covered[l] = true
		}
	}
	var missing []int
	header := false
	for i, l := range bytes.Split(data, []byte("\n")) {
		switch {
		case !header:
			header = bytes.HasPrefix(l, []byte("code"))
		case len(bytes.TrimSpace(l)) > 0 && !covered[i+1]:
			missing = append(missing, i+1)
		}
	}
	return missing
}

// checkGolden compares got with the golden file, or rewrites it with -update.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	gentest.Golden(t, path, []byte(got), *update, "-update")
}

// withoutPortalIDs blanks the portal ids of a report, which depend on the
// order the concurrent creates reach the portal.
func withoutPortalIDs(t *testing.T, report string) string {
	t.Helper()
	if report == "(none)\n" {
		return report
	}
	recs := reportRecords(t, report)
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Comma = reportComma(report)
	for i, rec := range recs {
		if i > 0 && len(rec) > 3 && rec[3] != "" {
			rec[3] = "(id)"
		}
		_ = w.Write(rec)
	}
	w.Flush()
	return b.String()
}

// TestCheckUnknownColumn: check refuses a route whose column map names a
// column the route's document type does not have.
func TestCheckUnknownColumn(t *testing.T) {
	cfg, _ := processEnv(t, "demo-token", deadURL(t))
	base, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, cfg, string(base)+"[[inboxes.routes]]\nmatch = \"*\"\ntype = \"suppliers\"\n[inboxes.routes.columns]\n\"Lieferant\" = \"cod\"\n", 0o644)
	var out strings.Builder
	err = runCheck(t.Context(), cfg, &out)
	want := `routes[0]: columns: "Lieferant" = "cod": "cod" is not a column of suppliers (edition A); did you mean "code"?`
	if exitCode(err) != exitUsage || !strings.Contains(out.String(), "FAIL config") || !strings.Contains(out.String(), want) {
		t.Errorf("exit %d, output:\n%s\nwant FAIL config with %s", exitCode(err), out.String(), want)
	}
}

// reportComma is the delimiter of a report: the one of its file.
func reportComma(report string) rune {
	if first, _, _ := strings.Cut(report, "\n"); strings.Contains(first, ";") {
		return ';'
	}
	return ','
}

// reportRecords parses a report.
func reportRecords(t *testing.T, report string) [][]string {
	t.Helper()
	r := csv.NewReader(strings.NewReader(report))
	r.FieldsPerRecord = -1
	r.Comma = reportComma(report)
	recs, err := r.ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("report: %v\n%s", err, report)
	}
	return recs
}

// TestValidateHeaderRow: validate names its --header-row flag for a file
// with a title above the header, and reads the file with it.
func TestValidateHeaderRow(t *testing.T) {
	file := writeFile(t, filepath.Join(t.TempDir(), "SUPPLIERS.csv"),
		"Suppliers, March 2026,\n\ncode,name,relationship\nSUP-A,Supplier A,Manufacturer\n", 0o644)
	out, code := runValidateCmd(t, "--edition", "A", "--type", "suppliers", file)
	if want := "line 3 looks like it: add --header-row 3 (header_row = 3 on the route)"; code != exitInvalid || !strings.Contains(out, want) {
		t.Errorf("exit %d, want %d with %q:\n%s", code, exitInvalid, want, out)
	}
	out, code = runValidateCmd(t, "--edition", "A", "--type", "suppliers", "--header-row", "3", file)
	if code != exitOK || !strings.Contains(out, "1 row, 1 document valid") {
		t.Errorf("--header-row 3: exit %d:\n%s", code, out)
	}
}
