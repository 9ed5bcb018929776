package inbox_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"filebridge/internal/app"
	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/portal"
	"filebridge/internal/portalsim"
)

// supplierRows are the rows of suppliers prefix<from> to prefix<to>.
func supplierRows(prefix string, from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%s%d,Supplier %[1]s%[2]d,Manufacturer\n", prefix, i)
	}
	return b.String()
}

// TestFileChangedAfterClaim: a writer goes on appending 5 rows at a time
// to a file already claimed, each time while a create of the file is in
// flight (held by the test at the portal): the file is read again whole
// each time it settles, all 50 suppliers reach the portal once (50 POSTs,
// no repeated create), the file is done with its 50 rows, and the report
// says it changed after its claim.
func TestFileChangedAfterClaim(t *testing.T) {
	e := newEnv(t, envOpts{routes: route("SUPPLIERS*", "suppliers")})
	var armed atomic.Bool
	var posts atomic.Int64
	arrived, release := make(chan struct{}), make(chan struct{})
	sim := e.sim.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/connections") {
			posts.Add(1)
			if armed.CompareAndSwap(true, false) {
				arrived <- struct{}{}
				<-release
			}
		}
		sim.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	pc := *e.cfg.Portal("main")
	pc.BaseURL = srv.URL + "/api"
	client, err := app.NewPortal(&pc, app.PortalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := e.newInbox(client, nil)

	const name = "SUPPLIERS_W.csv"
	w, err := os.OpenFile(filepath.Join(e.dir, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	write := func(s string) {
		if _, err := w.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	write("code,name,relationship\n" + supplierRows("SUP-W", 1, 5))
	armed.Store(true)
	type outcome struct {
		rr  inbox.RoundResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		rr, err := in.RunOnce(context.Background())
		done <- outcome{rr, err}
	}()
	for k := 2; k <= 10; k++ {
		select {
		case <-arrived:
		case o := <-done:
			t.Fatalf("the file was finished before rows %d-%d were appended: %+v, %v", 5*k-4, 5*k, o.rr, o.err)
		case <-time.After(30 * time.Second):
			t.Fatal("no create of the file in flight after 30s")
		}
		write(supplierRows("SUP-W", 5*k-4, 5*k)) // while a create is held: before the file's end
		armed.Store(k < 10)
		release <- struct{}{}
	}
	var o outcome
	select {
	case o = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the round did not end within 60s")
	}
	if o.err != nil {
		t.Fatal(o.err)
	}
	res := result(t, o.rr, name)
	if res.State != journal.FileDone || res.Rows != 50 {
		t.Errorf("state %s with %d rows (%q), want done with 50", res.State, res.Rows, res.Message)
	}
	e.onceEach(portal.Connections, "SUP-W", 50)
	if n := posts.Load(); n != 50 {
		t.Errorf("%d creates sent, want 50", n)
	}
	if st := e.sim.Stats(); st.RepeatedCreates != 0 {
		t.Errorf("%d repeated creates", st.RepeatedCreates)
	}
	if report := e.read(processed + "/SUPPLIERS_W.report.csv"); !strings.Contains(report, "the file changed after it was claimed") {
		t.Errorf("the report does not say the file changed:\n%s", report)
	}
}

// TestFileChangedInProcessing: a file rewritten in processing/ while
// filebridge was down (its hash is no longer the claim's) is not stuck on
// the documents of its old content that it no longer holds ("documents
// still unsettled" at every retry): those are settled unsent and said so,
// its new content is submitted once, and it goes to error/ with a report
// saying it changed.
func TestFileChangedInProcessing(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, envOpts{routes: route("SUPPLIERS*", "suppliers")})
	const name = "SUPPLIERS_R.csv"
	old := "code,name,relationship\n" + supplierRows("SUP-R", 1, 5)
	sum := sha256.Sum256([]byte(old))
	id, err := e.j.ClaimFile(ctx, journal.File{Inbox: "erp", Name: name, Path: "processing/" + name,
		Size: int64(len(old)), SHA256: hex.EncodeToString(sum[:]), DocType: "suppliers", State: journal.FileSubmitting})
	if err != nil {
		t.Fatal(err)
	}
	var docs []journal.Document
	for i := 1; i <= 5; i++ {
		docs = append(docs, journal.Document{Key: fmt.Sprintf("SUP-R%d", i), Rows: fmt.Sprint(i + 1)})
	}
	if err := e.j.AddDocuments(ctx, id, docs); err != nil {
		t.Fatal(err)
	}
	if err := e.j.StartAttempt(ctx, id, "SUP-R1"); err != nil { // sent, its answer lost
		t.Fatal(err)
	}
	e.drop("processing/"+name, "code,name,relationship\n"+supplierRows("SUP-R", 3, 8))

	res := result(t, e.runOnce(), name)
	if res.State != journal.FileFailed || !strings.Contains(res.Message, "2 of 8 document(s) failed") {
		t.Errorf("state %s (%q), want failed for the 2 documents no longer in the file", res.State, res.Message)
	}
	for i := 3; i <= 8; i++ {
		if c := e.sim.Count(portalsim.Connections, fmt.Sprintf("SUP-R%d", i)); c != 1 {
			t.Errorf("SUP-R%d exists %d times, want 1", i, c)
		}
	}
	if n := e.sim.Stats().Counts["connections"]; n != 6 {
		t.Errorf("%d suppliers on the portal, want 6", n)
	}
	if st := e.sim.Stats(); st.RepeatedCreates != 0 {
		t.Errorf("%d repeated creates", st.RepeatedCreates)
	}
	report := e.read("error/SUPPLIERS_R.report.csv")
	for _, want := range []string{"the file changed after it was claimed", "no longer in the file", "sent before the file changed"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report does not say %q:\n%s", want, report)
		}
	}
}
