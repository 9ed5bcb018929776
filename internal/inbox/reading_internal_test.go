package inbox

import (
	"log/slog"
	"os"
	"strings"
	"testing"

	"filebridge/internal/config"
)

// TestReadingLedgerUnwritable: a reading ledger that cannot be written
// (its folder is taken by a file) does not stop the reading, and is
// logged once.
func TestReadingLedgerUnwritable(t *testing.T) {
	j := tempJournal(t)
	if err := os.WriteFile(j.Path()+".reading", []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	in := &Inbox{cfg: config.Inbox{Name: "erp"}, j: j, log: slog.New(slog.NewTextHandler(&logs, nil))}
	for _, name := range []string{"A.csv", "B.csv"} {
		end, err := in.beginRead(name, 10)
		if err != nil {
			t.Fatalf("reading %s with an unwritable ledger: %v", name, err)
		}
		end()
	}
	if n := strings.Count(logs.String(), "could not record the start of reading a file"); n != 1 {
		t.Errorf("the unwritable ledger was logged %d times, want once:\n%s", n, logs.String())
	}
}
