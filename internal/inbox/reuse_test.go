package inbox_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"filebridge/internal/folder"
	"filebridge/internal/journal"
)

// countingFolder counts the Open and Stat calls of each path of its
// folder.
type countingFolder struct {
	folder.Folder
	mu           sync.Mutex
	opens, stats map[string]int
}

func (c *countingFolder) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	c.mu.Lock()
	c.opens[name]++
	c.mu.Unlock()
	return c.Folder.Open(ctx, name)
}

func (c *countingFolder) Stat(ctx context.Context, name string) (folder.Entry, error) {
	c.mu.Lock()
	c.stats[name]++
	c.mu.Unlock()
	return c.Folder.Stat(ctx, name)
}

// TestLocalFileOpenedOnce: a local file claimed in a round is opened by
// its claim and processed through that open file: no second open, no
// Stat of its folder (the handle tells whether its writer changed it).
// Beyond the round's budget of open files a file is opened again, as
// before.
func TestLocalFileOpenedOnce(t *testing.T) {
	const n = 3
	for _, tc := range []struct {
		name         string
		keptMax      int
		opens, stats int // of the files in processing/, all together
	}{
		{"within the budget", 0, n, 0},
		{"one kept open", 1, 1 + 2*(n-1), n - 1},
		{"none kept open", -1, 2 * n, n},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, envOpts{routes: route("SUPPLIERS*", "suppliers")})
			cf := &countingFolder{opens: map[string]int{}, stats: map[string]int{}}
			e.in = e.newInbox(e.client, func(ctx context.Context) (folder.Folder, error) {
				f, err := folder.Open(ctx, e.folder())
				cf.Folder = f
				return cf, err
			})
			if tc.keptMax != 0 {
				e.in.SetKeptMax(max(tc.keptMax, 0))
			}
			for i := range n {
				e.drop(fmt.Sprintf("SUPPLIERS_%d.csv", i), suppliersFile(fmt.Sprintf("SUP-R%d", i), 2))
			}
			rr := e.runOnce()
			for i := range n {
				if res := result(t, rr, fmt.Sprintf("SUPPLIERS_%d.csv", i)); res.State != journal.FileDone || res.DocsOK != 2 {
					t.Fatalf("%s: state %s, %d in the portal (%s); want done, 2", res.Name, res.State, res.DocsOK, res.Message)
				}
			}
			cf.mu.Lock()
			defer cf.mu.Unlock()
			opens, stats := 0, 0
			for p, k := range cf.opens {
				if strings.HasPrefix(p, "processing/") {
					opens += k
				}
			}
			for p, k := range cf.stats {
				if strings.HasPrefix(p, "processing/") {
					stats += k
				}
			}
			if opens != tc.opens || stats != tc.stats {
				t.Errorf("%d opens and %d Stat calls of the %d files in processing/, want %d and %d (opens %v, stats %v)",
					opens, stats, n, tc.opens, tc.stats, cf.opens, cf.stats)
			}
		})
	}
}
