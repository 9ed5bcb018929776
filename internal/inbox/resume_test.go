package inbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"filebridge/internal/journal"
	"filebridge/internal/model"
	"filebridge/internal/portal"
	"filebridge/internal/portalsim"
)

func skuRow(i int, supplier string) string {
	return fmt.Sprintf("SKU-%d,Item %d,%s,1,10,10,10,1,1,9.5,%s\n", i, i, ean13(int64(i)), supplier)
}

const skuHeader = "sku,name,ean,quantityPerBox,length,width,height,grossWeight,grossWeightBox,buyPrice,supplierCode\n"

// skuRows is an SKU file of SKU-1 to SKU-n, of supplier SUP-A.
func skuRows(n int) string {
	content := skuHeader
	for i := 1; i <= n; i++ {
		content += skuRow(i, "SUP-A")
	}
	return content
}

// skuInProcessing writes an SKU file of n rows into processing/, as a
// crash in its submission leaves it, and returns its journal record.
func (e *env) skuInProcessing(n int) journal.File {
	content := skuRows(n)
	e.drop("processing/SKU.csv", content)
	return journal.File{Inbox: "erp", Name: "SKU.csv", Path: "processing/SKU.csv",
		Size: int64(len(content)), DocType: "skus", State: journal.FileSubmitting}
}

// skuDocs are the documents SKU-1 to SKU-n, each on its row of the file.
func skuDocs(n int) []journal.Document {
	var docs []journal.Document
	for i := 1; i <= n; i++ {
		docs = append(docs, journal.Document{Key: fmt.Sprintf("SKU-%d", i), Rows: strconv.Itoa(i + 1)})
	}
	return docs
}

// ean13 makes a valid EAN-13 from a number.
func ean13(n int64) string {
	digits := fmt.Sprintf("200%09d", n)
	return digits + string(model.EANCheckDigit(digits))
}

func item(i int, supplier string) model.Item {
	d := func(s string) model.Decimal { return model.Decimal(s) }
	return model.Item{SKU: fmt.Sprintf("SKU-%d", i), Name: fmt.Sprintf("Item %d", i), EAN: ean13(int64(i)),
		QuantityPerBox: d("1"), Length: d("10"), Width: d("10"), Height: d("10"), GrossWeight: d("1"),
		GrossWeightBox: d("1"), BuyPrice: d("9.5"), SupplierCode: supplier}
}

// TestResumeAfterCrash rebuilds the state a crash leaves behind: a file in
// processing/ whose journal says some documents were created, some were
// being sent (created on the portal or not), some pending and some never
// recorded. One round finishes it: every SKU exists exactly once, none is
// posted twice, and the file ends in processed/.
func TestResumeAfterCrash(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, envOpts{workers: 1})
	e.drop("SUPPLIERS.csv", suppliersA)
	e.runOnce()

	id, err := e.j.ClaimFile(ctx, e.skuInProcessing(8))
	if err != nil {
		t.Fatal(err)
	}
	// SKU-1 created and recorded; SKU-2 and SKU-3 sent and created but the
	// answer lost; SKU-4 sending, never arrived; SKU-5 pending; 6-8 never
	// recorded.
	if err := e.j.AddDocuments(ctx, id, skuDocs(5)); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		out, err := e.client.CreateItem(ctx, item(i, "SUP-A"))
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			err = e.j.SetResult(ctx, id, "SKU-1", journal.ResultCreated, strconv.FormatInt(out.ID, 10), "")
		} else {
			err = e.j.StartAttempt(ctx, id, fmt.Sprintf("SKU-%d", i))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := e.j.StartAttempt(ctx, id, "SKU-4"); err != nil {
		t.Fatal(err)
	}

	r := result(t, e.runOnce(), "SKU.csv")
	if r.State != journal.FileDone || r.DocsOK != 8 || r.FinalPath != processed+"/SKU.csv" {
		t.Fatalf("state %s, %d ok, final %s: %s", r.State, r.DocsOK, r.FinalPath, r.Message)
	}
	e.onceEach(portal.Variants, "SKU-", 8)
	// SKU-2 and SKU-3 were looked up before anything was sent: no create
	// was refused as a repeat.
	if n := e.sim.RepeatedCreates(); n != 0 {
		t.Errorf("%d create(s) sent again and refused as already used, want 0", n)
	}
	golden(t, "resume.report.csv", e.read(r.ReportPath))
}

// TestResumeOrphan: a file in processing/ without a journal row (a crash
// between the rename and the journal insert) is claimed at the next round.
func TestResumeOrphan(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.drop("processing/SUPPLIERS.csv", suppliersA)
	r := result(t, e.runOnce(), "SUPPLIERS.csv")
	if r.State != journal.FileDone || r.FinalPath != processed+"/SUPPLIERS.csv" {
		t.Fatalf("state %s, final %s: %s", r.State, r.FinalPath, r.Message)
	}
}

// TestResumeMove covers crashes around the final move: after the plan and
// the report but before the move (the file is still in processing/), and
// after the move but before the journal update.
func TestResumeMove(t *testing.T) {
	ctx := context.Background()
	for _, moved := range []bool{false, true} {
		t.Run(fmt.Sprintf("moved=%v", moved), func(t *testing.T) {
			e := newEnv(t, envOpts{})
			e.drop("SUPPLIERS.csv", suppliersA)
			first := result(t, e.runOnce(), "SUPPLIERS.csv")
			rows, err := e.j.RecentFiles(ctx, "erp", 1)
			if err != nil || len(rows) != 1 {
				t.Fatal(rows, err)
			}
			row := rows[0]
			row.State, row.Path = journal.FileSubmitting, "processing/SUPPLIERS.csv"
			if err := e.j.UpdateFile(ctx, row); err != nil {
				t.Fatal(err)
			}
			if !moved {
				if err := os.Rename(filepath.Join(e.dir, filepath.FromSlash(first.FinalPath)), filepath.Join(e.dir, "processing", "SUPPLIERS.csv")); err != nil {
					t.Fatal(err)
				}
			}
			r := result(t, e.runOnce(), "SUPPLIERS.csv")
			if r.State != journal.FileDone || r.FinalPath != first.FinalPath {
				t.Fatalf("state %s, final %s, want done at %s: %s", r.State, r.FinalPath, first.FinalPath, r.Message)
			}
			want := processed + "/SUPPLIERS.csv " + processed + "/SUPPLIERS.report.csv"
			if got := strings.Join(e.ls("processed"), " "); got != want {
				t.Errorf("processed/ holds %s, want %s", got, want)
			}
			if open, _ := e.j.OpenFiles(ctx, "erp"); len(open) != 0 {
				t.Errorf("open files left: %+v", open)
			}
			if n := e.sim.Count(portalsim.Connections, "SUP-A"); n != 1 {
				t.Errorf("SUP-A exists %d times", n)
			}
		})
	}
}

// TestResumeKeyless: a document without a key (an Edition B connection
// numbered by the portal) found "sending" after a crash cannot be looked
// up, so it is never sent again: it fails with a message telling to check
// the portal, and the file goes to error/.
func TestResumeKeyless(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, envOpts{edition: model.EditionB})
	content := "code,name,relationship,countryCode\n,Café Gunnarsson,Customer,SE\nCUST-2,Kranzler,Customer,DE\n"
	e.drop("processing/CONNECTIONS.csv", content)
	id, err := e.j.ClaimFile(ctx, journal.File{Inbox: "erp", Name: "CONNECTIONS.csv", Path: "processing/CONNECTIONS.csv",
		DocType: "connections", State: journal.FileSubmitting})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.j.AddDocuments(ctx, id, []journal.Document{{Key: " (line 2)", Rows: "2"}}); err != nil {
		t.Fatal(err)
	}
	if err := e.j.StartAttempt(ctx, id, " (line 2)"); err != nil {
		t.Fatal(err)
	}
	before := e.sim.Len(portalsim.Connections)
	r := result(t, e.runOnce(), "CONNECTIONS.csv")
	if r.State != journal.FileFailed || r.DocsOK != 1 || r.DocsFailed != 1 {
		t.Fatalf("state %s, %d ok, %d failed: %s", r.State, r.DocsOK, r.DocsFailed, r.Message)
	}
	if got := e.sim.Len(portalsim.Connections) - before; got != 1 {
		t.Errorf("%d connections created, want 1 (CUST-2 only)", got)
	}
	if rep := e.read(r.ReportPath); !strings.Contains(rep, "check on the portal") {
		t.Errorf("report does not explain the unknown outcome:\n%s", rep)
	}
}
