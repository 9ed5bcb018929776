package inbox_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"filebridge/internal/inbox"
	"filebridge/internal/testkit"
)

var skuRoute = route("SKU_*", "skus") + route("SUPPLIERS_*", "suppliers")

// TestUnmatched: files no route matches are left in place and listed once
// (unmatched = "leave", the default), excluded ones silently; entries
// with unsafe names or links leading outside are listed once too; with
// unmatched = "error" such a file goes to error/ as before.
func TestUnmatched(t *testing.T) {
	t.Run("leave", func(t *testing.T) {
		e := newEnv(t, envOpts{routes: skuRoute, inbox: `exclude = ["*.tmpl"]`})
		var logs testkit.Buffer
		in, err := inbox.New(e.cfg.Inboxes[0], inbox.Deps{Journal: e.j, Portal: e.client,
			Logger: slog.New(slog.NewTextHandler(&logs, nil)), Options: e.options})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = in.Close() })
		e.drop("invoice.pdf", "%PDF-1.4")
		e.drop("prices.tmpl", "x")
		outside := filepath.Join(t.TempDir(), "secret.csv")
		if err := os.WriteFile(outside, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(e.dir, "SKU_LINK.csv")); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if _, err := in.RunOnce(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		for _, name := range []string{"invoice.pdf", "prices.tmpl", "SKU_LINK.csv"} {
			if !e.exists(name) {
				t.Errorf("%s was taken from the inbox: %v", name, e.ls(""))
			}
		}
		if got := e.ls("error"); len(got) > 0 {
			t.Errorf("files went to error/: %v", got)
		}
		st := in.Status()
		reasons := map[string]string{}
		for _, g := range st.Ignored {
			reasons[g.Name] = g.Reason
		}
		if !strings.Contains(reasons["invoice.pdf"], "no route") || !strings.Contains(reasons["SKU_LINK.csv"], "link") || len(reasons) != 2 {
			t.Errorf("status lists %+v, want invoice.pdf (no route) and SKU_LINK.csv (link)", st.Ignored)
		}
		out := logs.String()
		for _, name := range []string{"invoice.pdf", "SKU_LINK.csv"} {
			if n := strings.Count(out, "file="+name); n != 1 {
				t.Errorf("%s logged %d times over 3 rounds, want once:\n%s", name, n, out)
			}
		}
		if strings.Contains(out, "prices.tmpl") {
			t.Errorf("an excluded file was logged:\n%s", out)
		}
		// Gone from the folder: no longer listed.
		if err := os.Remove(filepath.Join(e.dir, "invoice.pdf")); err != nil {
			t.Fatal(err)
		}
		if _, err := in.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		for _, g := range in.Status().Ignored {
			if g.Name == "invoice.pdf" {
				t.Errorf("a removed file is still listed: %+v", in.Status().Ignored)
			}
		}
	})

	t.Run("error", func(t *testing.T) {
		e := newEnv(t, envOpts{routes: skuRoute, inbox: `unmatched = "error"`})
		e.drop("invoice.pdf", "%PDF-1.4")
		e.runOnce()
		if !e.exists("error/invoice.pdf") {
			t.Errorf("with unmatched = \"error\" the file is not in error/: %v", e.ls(""))
		}
	})
}

// TestTypeHint: a file named like SKUs whose header is a suppliers file's
// fails with a note naming the suppliers type.
func TestTypeHint(t *testing.T) {
	e := newEnv(t, envOpts{routes: skuRoute})
	e.drop("SKU_WRONG.csv", suppliersA)
	r := result(t, e.runOnce(), "SKU_WRONG.csv")
	rep := e.read(r.ReportPath)
	if !strings.Contains(rep, `header row is that of a ""suppliers"" file`) {
		t.Errorf("the report has no hint naming the suppliers type:\n%s", rep)
	}
}
