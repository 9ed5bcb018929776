package portal

import (
	"context"
	"fmt"
	"iter"
	"net/url"
)

// maxPasses bounds how many times a list that keeps moving while it is
// paged is read again.
const maxPasses = 8

// stableList reads a list whose documents may change while its pages are
// read, so that no document is skipped, and yields each document (by key)
// once. The documents give no default order of a list: on a portal that
// orders it by updatedAt, a document updated between two page reads moves
// from a page already read to the end, and the first document of the next
// page slides onto the page just read, unseen. Such a pass is recognised
// by a key seen twice (the moved document, met again at the end) or a
// total that changed between pages; the list is then read again from its
// first page, the documents already yielded skipped, until a pass reads
// it without a move, or every document the list announces has been seen
// over the passes. A document with an empty key is yielded every time it
// is listed. After maxPasses the list is an error: the export writes
// nothing, keeps its cursor and runs again at its next time.
func stableList[M any](c *Client, ctx context.Context, d docWire[M], q url.Values, o listOpts, key func(M) string) iter.Seq2[M, error] {
	return func(yield func(M, error) bool) {
		var zero M
		yielded := map[string]bool{}
		for pass := 1; ; pass++ {
			pages, last, changed := 0, int64(-1), false
			o.total = func(n int64) {
				if pages++; pages > 1 && n != last {
					changed = true
				}
				last = n
			}
			seen := map[string]bool{}
			twice := false
			for m, err := range listAll(c, ctx, d, q, o) {
				if err != nil {
					yield(m, err)
					return
				}
				k := key(m)
				if k == "" {
					if !yield(m, nil) {
						return
					}
					continue
				}
				if seen[k] {
					twice = true
				}
				seen[k] = true
				if yielded[k] {
					continue
				}
				yielded[k] = true
				if !yield(m, nil) {
					return
				}
			}
			if !twice && !changed {
				return
			}
			if !changed && last >= 0 && int64(len(yielded)) >= last {
				return // every document announced was seen over the passes
			}
			if pass == maxPasses {
				yield(zero, fmt.Errorf("listing %s: the list kept changing while its pages were read (%d passes); it is read again at the next run", d.res, pass))
				return
			}
			c.log.Info("portal list changed while its pages were read: reading it again", "path", c.paths[d.res], "pass", pass+1,
				"key_seen_twice", twice, "total_changed", changed)
		}
	}
}
