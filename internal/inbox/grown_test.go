package inbox_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"filebridge/internal/journal"
	"filebridge/internal/portalsim"
)

// TestFileGrewAfterRead: a writer that paused longer than settle and then
// went on writing into the file it holds open (now in processed/) has its
// rows read: the inbox puts the grown file back, reads it again whole and
// creates only the new rows, looking the first ones up; once read, it is
// not put back again.
func TestFileGrewAfterRead(t *testing.T) {
	e := newEnv(t, envOpts{routes: route("SUPPLIERS*", "suppliers")})
	const name = "SUPPLIERS_G.csv"
	e.drop(name, "code,name,relationship\n"+supplierRows("SUP-G", 1, 5))
	first := result(t, e.runOnce(), name)
	if first.State != journal.FileDone {
		t.Fatalf("first reading: %s (%s)", first.State, first.Message)
	}
	// The writer's next rows land in the file where it went.
	final := filepath.Join(e.dir, filepath.FromSlash(first.FinalPath))
	fh, err := os.OpenFile(final, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fh.WriteString(supplierRows("SUP-G", 6, 10)); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(time.Minute) // the look for grown files comes at most every few seconds
	e.runOnce()              // sees it grew, puts it back
	if !e.exists(name) {
		t.Fatal("the grown file was not put back into the inbox")
	}
	second := result(t, e.runOnce(), name)
	if second.State != journal.FileDone {
		t.Fatalf("second reading: %s (%s)", second.State, second.Message)
	}
	e.clock.Add(10 * time.Second)
	e.runOnce() // nothing grew since: nothing put back
	if e.exists(name) {
		t.Error("the file was put back although it did not grow again")
	}
	for i := 1; i <= 10; i++ {
		if c := e.sim.Count(portalsim.Connections, fmt.Sprintf("SUP-G%d", i)); c != 1 {
			t.Errorf("SUP-G%d exists %d times, want 1", i, c)
		}
	}
	if st := e.sim.Stats(); st.RepeatedCreates != 0 {
		t.Errorf("%d repeated creates: the rows read before were created again", st.RepeatedCreates)
	}
}
