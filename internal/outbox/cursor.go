package outbox

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	"filebridge/internal/journal"
)

// stamp identifies one state of one document: its key and the timestamp
// (updatedAt or createdAt) the cursor follows.
type stamp struct {
	key  string
	sec  int64
	nsec int
}

func stampOf(key string, ts time.Time) stamp {
	return stamp{key: key, sec: ts.Unix(), nsec: ts.Nanosecond()}
}

func (s stamp) time() time.Time { return time.Unix(s.sec, int64(s.nsec)).UTC() }

// window is the cursor logic of one run.
//
// The portal's updatedAt[after] and createdAt[after] filters are inclusive,
// so a run lists from the cursor's instant At again and must drop what it
// already exported. A saved cursor holds At and the keys of the documents
// exported at At or later, each with its timestamp; a document is exported
// when its (key, timestamp) pair is new, so a document that changes again
// (a new updatedAt) is exported again, and one already exported is not.
//
// The new At is not simply the greatest timestamp seen: it is that instant
// minus an overlap (the run's duration plus a margin, see Runner.Overlap),
// and the keys of every document at or after it are kept. A list spread
// over several pages is not a snapshot: a document updated while the pages
// are read may land on a page already read while a later page shows a
// newer timestamp, and a row committed late may carry a timestamp older
// than rows already visible. Reading the overlap again on the next run
// picks such documents up; the kept keys keep everything else from being
// written twice. When nothing changed within the overlap the cursor is the
// classic pair: the greatest timestamp and the keys at exactly that instant.
type window struct {
	at     time.Time
	done   map[stamp]bool
	byKey  map[string]bool      // keys of done, for admitTimeless; built on first use
	latest map[string]time.Time // newest timestamp of each key seen in this run
	max    time.Time
	seen   bool
}

// newWindow starts from a saved cursor (or from since, with no keys).
func newWindow(at time.Time, keys []string) *window {
	w := &window{at: at.UTC(), done: make(map[stamp]bool, len(keys)), latest: map[string]time.Time{}}
	for _, k := range keys {
		w.done[decodeKey(k, w.at)] = true
	}
	return w
}

// admit reports whether the document state (key, ts) is to be exported,
// and records it.
func (w *window) admit(key string, ts time.Time) bool {
	if ts.Before(w.at) {
		return false // covered by an earlier run
	}
	if !w.seen || ts.After(w.max) {
		w.max, w.seen = ts, true
	}
	if l, ok := w.latest[key]; !ok || ts.After(l) {
		w.latest[key] = ts
	}
	s := stampOf(key, ts)
	if w.done[s] {
		return false
	}
	w.done[s] = true
	return true
}

// admitTimeless reports whether a document without a timestamp is to be
// exported, and records it. Its key carries the digest of its rows, so a
// document that changed (a status 75 then 80) has a new key. It is stamped
// with the time of the query q, the documents' own cursor
// ("updatedAt[after]=<time of the last query>"): its hidden updatedAt is at
// most q, so while q is not before the cursor's At the portal may list it
// again and its key is kept, and once At has passed q a portal that
// honours the filter cannot list that state again. A key already recorded
// is not exported again, whatever its stamp, and is stamped again with q:
// a portal that ignores the filter (variants' updatedAt[after] is not in
// the parameter tables) lists every document every time, and the keys of
// the last listing are what keeps each row from being exported again.
func (w *window) admitTimeless(key string, q time.Time) bool {
	if w.byKey == nil {
		w.byKey = make(map[string]bool, len(w.done))
		for s := range w.done {
			w.byKey[s.key] = true
		}
	}
	if q.Before(w.at) {
		q = w.at
	}
	if !w.seen || q.After(w.max) {
		w.max, w.seen = q, true
	}
	known := w.byKey[key]
	w.byKey[key] = true
	w.done[stampOf(key, q)] = true
	w.latest[key] = q
	return !known
}

// keyDigestSep joins a timeless document's key and the digest of its rows.
const keyDigestSep = "#"

// rowsDigest is a short digest of a document's rows: equal rows, equal
// digest.
func rowsDigest(rows []any) string {
	h := fnv.New64a()
	for _, r := range rows {
		fmt.Fprintf(h, "%+v\n", r)
	}
	return strconv.FormatUint(h.Sum64(), 36)
}

// next returns the cursor to save after a successful run: At moves to the
// greatest timestamp seen less overlap (never back), and the keys of every
// state at or after it are kept. changed is false when the cursor is the
// one the run started from.
func (w *window) next(overlap time.Duration) (at time.Time, keys []string, changed bool) {
	if !w.seen {
		return w.at, w.keys(w.at), false
	}
	at = w.max.UTC()
	if overlap > 0 {
		at = at.Add(-overlap).Truncate(time.Second)
	}
	if at.Before(w.at) {
		at = w.at
	}
	return at, w.keys(at), true
}

func (w *window) keys(at time.Time) []string {
	var keys []string
	for s := range w.done {
		ts := s.time()
		if l, ok := w.latest[s.key]; ok && l.After(ts) {
			continue // an older state of a document seen again since
		}
		if !ts.Before(at) {
			keys = append(keys, encodeKey(s, at))
		}
	}
	slices.Sort(keys)
	return keys
}

// keySep separates a key from its timestamp in a saved cursor key.
const keySep = "@"

// encodeKey writes a key as saved in journal.Cursor.Keys: the plain key for
// a state at exactly At, else "key@timestamp".
func encodeKey(s stamp, at time.Time) string {
	ts := s.time()
	if ts.Equal(at) {
		return s.key
	}
	return s.key + keySep + ts.Format(time.RFC3339Nano)
}

// decodeKey reads a saved cursor key back.
func decodeKey(k string, at time.Time) stamp {
	if i := strings.LastIndex(k, keySep); i >= 0 {
		if ts, err := time.Parse(time.RFC3339Nano, k[i+1:]); err == nil {
			return stampOf(k[:i], ts)
		}
	}
	return stampOf(k, at)
}

// cursorOf builds the journal cursor of a job.
func cursorOf(job Job, at time.Time, keys []string) journal.Cursor {
	return journal.Cursor{Outbox: job.Outbox, Export: string(job.Type), At: at, Keys: keys}
}
