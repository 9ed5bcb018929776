package inbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"filebridge/internal/folder/sftptest"
	"filebridge/internal/journal"
	"filebridge/internal/model"
	"filebridge/internal/portal"
	"filebridge/internal/portalsim"
)

const suppliersA = "code,name,relationship\nSUP-A,Supplier A,Manufacturer\nSUP-B,Supplier B,Manufacturer\n"

// TestDuplicateContent: the same content dropped again (under another
// name) is not submitted; it goes to processed/ with a report naming the
// first file.
func TestDuplicateContent(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.drop("SUPPLIERS_1.csv", suppliersA)
	if r := result(t, e.runOnce(), "SUPPLIERS_1.csv"); r.State != journal.FileDone {
		t.Fatalf("first file: %s: %s", r.State, r.Message)
	}
	e.drop("SUPPLIERS_2.csv", suppliersA)
	r := result(t, e.runOnce(), "SUPPLIERS_2.csv")
	if r.State != journal.FileDuplicate || !r.Duplicate || r.FinalPath != processed+"/SUPPLIERS_2.csv" {
		t.Fatalf("second file: state %s, final %s: %s", r.State, r.FinalPath, r.Message)
	}
	if n := e.sim.Count(portalsim.Connections, "SUP-A"); n != 1 {
		t.Errorf("SUP-A exists %d times, want 1", n)
	}
	golden(t, "duplicate.report.csv", e.read(r.ReportPath))
}

// TestNameCollision: the same name processed twice on one day gets a
// suffix in processed/, and so do its report's.
func TestNameCollision(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.drop("SUPPLIERS.csv", suppliersA)
	e.runOnce()
	e.drop("SUPPLIERS.csv", "code,name,relationship\nSUP-C,Supplier C,Manufacturer\n")
	r := result(t, e.runOnce(), "SUPPLIERS.csv")
	if r.State != journal.FileDone || r.FinalPath != processed+"/SUPPLIERS.1.csv" || r.ReportPath != processed+"/SUPPLIERS.1.report.csv" {
		t.Fatalf("state %s, final %s, report %s", r.State, r.FinalPath, r.ReportPath)
	}
	want := []string{processed + "/SUPPLIERS.1.csv", processed + "/SUPPLIERS.1.report.csv", processed + "/SUPPLIERS.csv", processed + "/SUPPLIERS.report.csv"}
	if got := e.ls("processed"); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("processed/ holds %v, want %v", got, want)
	}
	if !strings.Contains(e.read(processed+"/SUPPLIERS.1.csv"), "SUP-C") {
		t.Error("the second file was not moved under the suffixed name")
	}
}

// TestSettle: a file still being written is not claimed before its size
// and mtime stay unchanged for settle; then it is processed whole. The
// writer appends a row every 100ms for as long as the round runs, so the
// round sees it grow whatever the machine's load.
func TestSettle(t *testing.T) {
	e := newEnv(t, envOpts{settle: true, inbox: `settle = "600ms"`})
	p := filepath.Join(e.dir, "SUPPLIERS.csv")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("code,name,relationship\n"); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	written := make(chan int, 1)
	go func() {
		n := 0
		for {
			n++
			if _, err := fmt.Fprintf(f, "SUP-%03d,Supplier,Manufacturer\n", n); err != nil {
				t.Error(err)
			}
			_ = f.Sync()
			select {
			case <-stop:
				if err := f.Close(); err != nil {
					t.Error(err)
				}
				written <- n
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	rr := e.runOnce() // looks twice 600ms apart while the writer appends
	close(stop)
	n := <-written
	if len(rr.Files) != 0 || rr.Waiting != 1 {
		t.Fatalf("a file being written was picked up: %+v", rr)
	}
	r := result(t, e.runOnce(), "SUPPLIERS.csv")
	if r.State != journal.FileDone || r.Rows != n || r.DocsOK != n {
		t.Fatalf("state %s, %d rows, %d ok, want %d: %s", r.State, r.Rows, r.DocsOK, n, r.Message)
	}
}

// markerRoute takes the suppliers files once their done marker is there.
var markerRoute = route("SUPPLIERS_*.csv", "suppliers", "done_marker = true")

// TestDoneMarker: a done_marker route waits for NAME.done (or NAME.ok)
// and removes it after the claim; temporary names are never claimed.
func TestDoneMarker(t *testing.T) {
	for _, marker := range []string{".done", ".ok"} {
		t.Run(marker, func(t *testing.T) {
			e := newEnv(t, envOpts{routes: markerRoute})
			e.drop("SUPPLIERS_1.csv", suppliersA)
			e.drop("SUPPLIERS_2.csv.part", suppliersA)
			e.drop(".SUPPLIERS_3.csv", suppliersA)
			e.drop("~$SUPPLIERS_4.csv", suppliersA)
			if rr := e.runOnce(); len(rr.Files) != 0 || rr.Waiting != 1 {
				t.Fatalf("claimed without its marker: %+v", rr)
			}
			e.drop("SUPPLIERS_1.csv"+marker, "")
			r := result(t, e.runOnce(), "SUPPLIERS_1.csv")
			if r.State != journal.FileDone {
				t.Fatalf("state %s: %s", r.State, r.Message)
			}
			if e.exists("SUPPLIERS_1.csv" + marker) {
				t.Error("the done marker was not removed")
			}
			for _, n := range []string{"SUPPLIERS_2.csv.part", ".SUPPLIERS_3.csv", "~$SUPPLIERS_4.csv"} {
				if !e.exists(n) {
					t.Errorf("temporary file %s was touched", n)
				}
			}
		})
	}
}

// TestStaleDoneMarker: a marker older than its file (left by a crash
// between an earlier claim and the marker's removal) does not release a
// new file of the same name; a fresh marker does.
func TestStaleDoneMarker(t *testing.T) {
	e := newEnv(t, envOpts{routes: markerRoute})
	e.drop("SUPPLIERS_1.csv.done", "")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(e.dir, "SUPPLIERS_1.csv.done"), old, old); err != nil {
		t.Fatal(err)
	}
	e.drop("SUPPLIERS_1.csv", suppliersA)
	if rr := e.runOnce(); len(rr.Files) != 0 || rr.Waiting != 1 {
		t.Fatalf("claimed on a marker older than the file: %+v", rr)
	}
	now := time.Now().Add(time.Second)
	if err := os.Chtimes(filepath.Join(e.dir, "SUPPLIERS_1.csv.done"), now, now); err != nil {
		t.Fatal(err)
	}
	if r := result(t, e.runOnce(), "SUPPLIERS_1.csv"); r.State != journal.FileDone {
		t.Fatalf("state %s: %s", r.State, r.Message)
	}
}

// TestMaxFileSize: a file over max_file_size goes to error/ unread, its
// size read from the folder (over SFTP, nothing of it is downloaded).
func TestMaxFileSize(t *testing.T) {
	content := suppliersA + suppliersA[23:]
	for _, remote := range []bool{false, true} {
		t.Run(map[bool]string{false: "local", true: "sftp"}[remote], func(t *testing.T) {
			srv, reqs := countRequests(t)
			o := envOpts{inbox: `max_file_size = "64B"`}
			if remote {
				o.sftp = srv
			}
			e := newEnv(t, o)
			read := e.read
			if remote {
				c := srv.Client(t)
				sftptest.WriteFile(t, c, "/in/SUPPLIERS.csv", []byte(content))
				read = func(p string) string { return string(sftptest.ReadFile(t, c, "/in/"+p)) }
			} else {
				e.drop("SUPPLIERS.csv", content)
			}
			r := result(t, e.runOnce(), "SUPPLIERS.csv")
			if r.State != journal.FileFailed || r.FinalPath != "error/SUPPLIERS.csv" || !strings.Contains(r.Message, "max_file_size") {
				t.Fatalf("state %s, final %s: %s", r.State, r.FinalPath, r.Message)
			}
			if e.sim.Len(portalsim.Connections) != 0 {
				t.Error("documents of a file over the limit were submitted")
			}
			golden(t, "maxsize.report.csv", read(r.ReportPath))
			reqs.mu.Lock()
			defer reqs.mu.Unlock()
			if n := reqs.read["/in/processing/SUPPLIERS.csv"]; n != 0 {
				t.Errorf("%d bytes of the file over the limit were downloaded", n)
			}
		})
	}
}

// TestNoMatchingRoute: with routes configured, none matching and
// unmatched = "error", the type comes from the header row and the report
// says so.
func TestNoMatchingRoute(t *testing.T) {
	e := newEnv(t, envOpts{routes: route("SKU_*.csv", "skus"), inbox: `unmatched = "error"`})
	e.drop("partners.csv", suppliersA)
	r := result(t, e.runOnce(), "partners.csv")
	if r.State != journal.FileDone || r.DocType != "suppliers" {
		t.Fatalf("state %s, type %s: %s", r.State, r.DocType, r.Message)
	}
	golden(t, "noroute.report.csv", e.read(r.ReportPath))
}

// TestDependencyOrder: an order file and the SKU and supplier files it
// needs, dropped in one round with names in the "wrong" order, all go
// through: partners, then SKUs, then orders.
func TestDependencyOrder(t *testing.T) {
	for _, ed := range []model.Edition{model.EditionA, model.EditionB} {
		t.Run(string(ed), func(t *testing.T) {
			e := newEnv(t, envOpts{edition: ed})
			if ed == model.EditionA {
				e.drop("A_ORDERS.csv", "orderNumber,externalOrderNumber,warehouseLocation,shipTo.lastName,shipTo.streetAddress,shipTo.zipcode,shipTo.city,shipTo.countryCode,position,sku,quantity\n"+
					"SO-1,EXT-1,3,Martin,1 rue X,69003,Lyon,FR,1,SKU-1,2\nSO-1,EXT-1,3,Martin,1 rue X,69003,Lyon,FR,2,SKU-2,1\n")
				e.drop("B_SKU.csv", "sku,name,ean,quantityPerBox,length,width,height,grossWeight,grossWeightBox,buyPrice,supplierCode\n"+
					"SKU-1,Item 1,7350123100419,1,10,10,10,1,1,9.5,SUP-A\nSKU-2,Item 2,7350123100587,1,10,10,10,1,1,9.5,SUP-B\n")
				e.drop("C_SUPPLIERS.csv", suppliersA)
			} else {
				e.drop("A_ORDERS.csv", "orderNumber,externalOrderNumber,warehouseCode,shipTo.name,shipTo.streetAddress,shipTo.zipcode,shipTo.city,shipTo.countryCode,position,sku,quantity\n"+
					"SO-1,EXT-1,WH-LYON,Martin,1 rue X,69003,Lyon,FR,1,SKU-1,2\nSO-1,EXT-1,WH-LYON,Martin,1 rue X,69003,Lyon,FR,2,SKU-2,1\n")
				e.drop("B_VARIANTS.csv", "sku,name,ean,length,width,height,grossWeight\nSKU-1,Item 1,7350123100419,10,10,10,1\nSKU-2,Item 2,7350123100587,10,10,10,1\n")
			}
			rr := e.runOnce()
			var order []string
			for _, f := range rr.Files {
				order = append(order, f.Name)
				if f.State != journal.FileDone {
					t.Errorf("%s: %s: %s", f.Name, f.State, f.Message)
				}
			}
			if n := len(order); order[n-1] != "A_ORDERS.csv" {
				t.Errorf("processing order %v: orders must come last", order)
			}
			if e.sim.Count(portalsim.SalesOrders, "SO-1") != 1 {
				t.Error("the order was not created")
			}
		})
	}
}

// TestReceptionCreatesSKUs: an Edition A reception whose lines carry
// item.* columns creates the SKUs missing on the portal first (supplier:
// the reception's), and the reception after them.
func TestReceptionCreatesSKUs(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.drop("SUPPLIERS.csv", suppliersA)
	e.drop("SKU.csv", "sku,name,ean,quantityPerBox,length,width,height,grossWeight,grossWeightBox,buyPrice,supplierCode\n"+
		"OLD-1,Old item,7350123100419,1,10,10,10,1,1,9.5,SUP-A\n")
	e.drop("RECEPTIONS.csv", "orderNumber,warehouseLocation,supplierCode,dueAt,position,sku,quantity,item.name,item.ean,item.quantityPerBox,item.length,item.width,item.height,item.grossWeight,item.grossWeightBox,item.buyPrice\n"+
		"REC-1,3,SUP-B,2026-04-01T07:00:00Z,1,OLD-1,10,,,,,,,,,\n"+
		"REC-1,3,SUP-B,2026-04-01T07:00:00Z,2,NEW-1,20,New item,7350123100587,1,20,20,20,2,2,19.9\n")
	rr := e.runOnce()
	for _, f := range rr.Files {
		if f.State != journal.FileDone {
			t.Fatalf("%s: %s: %s\n%s", f.Name, f.State, f.Message, e.read(f.ReportPath))
		}
	}
	for _, sku := range []string{"OLD-1", "NEW-1"} {
		if n := e.sim.Count(portalsim.Variants, sku); n != 1 {
			t.Errorf("SKU %s exists %d times, want 1", sku, n)
		}
	}
	if n := e.sim.Count(portalsim.PurchaseOrders, "REC-1"); n != 1 {
		t.Errorf("reception exists %d times", n)
	}
	items, err := collect(e.client.Items(context.Background(), portal.ItemFilter{Codes: []string{"NEW-1"}}))
	if err != nil || len(items) != 1 {
		t.Fatalf("listing NEW-1: %v %v", items, err)
	}
	supB, err := e.client.ResolvePartner(context.Background(), "SUP-B")
	if err != nil || items[0].SupplierID != supB {
		t.Errorf("NEW-1 has supplier %d, want SUP-B's id %d (%v)", items[0].SupplierID, supB, err)
	}
}

func collect[T any](seq func(func(T, error) bool)) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, nil
}

// TestJournalWritesPerFile: a one-supplier file costs six journal writes
// (its claim; its state with its document; the document's send and its
// result; the file's plan; its end), and the round one probe that the
// journal is writable: a write more per file would slow every round of
// small files. The writes run eight statements: the claim's insert (which
// looks for an open file of the path itself), the file's update with its summary and the document's insert,
// the send, the result, the plan, the end's update and the clearing of
// the document's body. A file claimed in the round is not asked for a
// decoding the journal cannot hold yet.
func TestJournalWritesPerFile(t *testing.T) {
	e := newEnv(t, envOpts{inbox: "file_concurrency = 4"})
	const n = 20
	for i := range n {
		e.drop(fmt.Sprintf("SUPPLIERS_%02d.csv", i), fmt.Sprintf("code,name,relationship\nSUP-%02d,Supplier %02d,Manufacturer\n", i, i))
	}
	before, reads := e.j.WriteStats(), e.j.Reads()
	rr := e.runOnce()
	if len(rr.Files) != n {
		t.Fatalf("%d files in the round, want %d", len(rr.Files), n)
	}
	for _, f := range rr.Files {
		if f.State != journal.FileDone || f.DocsOK != 1 {
			t.Errorf("%s: %s, %d ok: %s", f.Name, f.State, f.DocsOK, f.Message)
		}
	}
	after := e.j.WriteStats()
	writes, commits := after.Writes-before.Writes, after.Commits-before.Commits
	t.Logf("%d journal writes for %d files (%.1f a file) in %d commits", writes, n, float64(writes)/n, commits)
	if writes < 6*n || writes > 6*n+1 { // +1: the round's probe that the journal is writable
		t.Errorf("%d journal writes for %d one-document files, want 6 a file (%d) and the round's probe", writes, n, 6*n)
	}
	if commits > writes || commits == 0 {
		t.Errorf("%d commits for %d writes", commits, writes)
	}
	// Reads: the replay link, the duplicate look-up, the documents to
	// submit, their counts, the documents for the report and the two
	// looks for the failures the file resolves; and a few for the round.
	if reads = e.j.Reads() - reads; reads < 7*n || reads > 7*n+5 {
		t.Errorf("%d journal reads for %d one-document files, want 7 a file (%d) and a few for the round", reads, n, 7*n)
	}
	if stmts := after.Statements - before.Statements; stmts < 8*n || stmts > 8*n+1 {
		t.Errorf("%d journal statements for %d one-document files, want 8 a file (%d) and the round's probe", stmts, n, 8*n)
	}
}
