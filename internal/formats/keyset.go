package formats

import (
	"math"
	"sort"
	"strings"
)

// keySet holds the key of every master-data document of a file with the row
// it first appeared on, to report a key that appears again.
//
// Keys that come in ascending order, as from an export sorted by its key,
// are appended end to end to a sorted run: no hashing, no random memory
// access, about half the memory of a map entry (on a million sorted SKUs
// the map's lookups were a fifth of the command's CPU time and its entries
// most of its peak memory; see BenchmarkValidateSKUs1M). The run is held in
// chunks of at most runChunk bytes or values: growing one slice left its
// large old arrays to the collector, ten more MiB at the peak. A key not
// above the run's last one is looked up in the run by binary search and
// kept in a map: every key in the maps is below the run's last key, so a key
// above it is new without a look at either.
type keySet struct {
	// keys are the keys of the run, end to end in chunks of runChunk
	// bytes: a key that does not fit in the last chunk starts the next.
	keys [][]byte
	// ends are where each key of the run ends, counting every chunk as
	// runChunk bytes; rows are the row each one appeared on.
	ends chunked[uint32]
	rows chunked[int32]

	// The keys out of order (or too long for a chunk): those of up to
	// tinyKeyLen bytes in tiny, of up to shortKeyLen in short, the others
	// in long.
	tiny  map[tinyKey]int32
	short map[shortKey]int32
	long  map[string]int32
}

// runChunk is the size of a chunk of the run, in bytes of keys or in values
// of ends and rows. A chunk grows as a slice up to it, so that a small
// file's run stays small.
const runChunk = 1 << 16

// add returns the row a key first appeared on (dup true), or records the
// key as appearing on row. The key is copied.
func (s *keySet) add(key string, row int32) (first int32, dup bool) {
	n := s.ends.n
	if (n == 0 || string(s.key(n-1)) < key) && len(key) <= runChunk {
		if s.append(key, row) {
			return 0, false
		}
	} else if i := sort.Search(n, func(i int) bool { return string(s.key(i)) >= key }); i < n && string(s.key(i)) == key {
		return s.rows.at(i), true
	}
	switch {
	case len(key) <= tinyKeyLen:
		return addTo(&s.tiny, newTinyKey(key), row)
	case len(key) <= shortKeyLen:
		return addTo(&s.short, newShortKey(key), row)
	}
	if first, dup = s.long[key]; !dup {
		if s.long == nil {
			s.long = map[string]int32{}
		}
		// The key is cloned: it may share the memory of its row's text.
		s.long[strings.Clone(key)] = row
	}
	return first, dup
}

// append adds a key above every key of the run to it; it returns false
// when the run's offsets are full.
func (s *keySet) append(key string, row int32) bool {
	if len(s.keys) == 0 || len(s.keys[len(s.keys)-1])+len(key) > runChunk {
		if uint64(len(s.keys)+1)*runChunk > math.MaxUint32 {
			return false
		}
		s.keys = append(s.keys, nil)
	}
	last := &s.keys[len(s.keys)-1]
	*last = append(*last, key...)
	s.ends.add(uint32((len(s.keys)-1)*runChunk + len(*last)))
	s.rows.add(row)
	return true
}

// key is the i-th key of the run.
func (s *keySet) key(i int) []byte {
	end := int(s.ends.at(i))
	c := (end - 1) / runChunk // a key is never empty
	start := c * runChunk
	if i > 0 {
		start = max(start, int(s.ends.at(i-1)))
	}
	return s.keys[c][start-c*runChunk : end-c*runChunk]
}

// chunked is a list of values held in chunks of runChunk values.
type chunked[T any] struct {
	chunks [][]T
	n      int
}

func (c *chunked[T]) add(v T) {
	if c.n%runChunk == 0 {
		c.chunks = append(c.chunks, nil)
	}
	c.chunks[c.n/runChunk] = append(c.chunks[c.n/runChunk], v)
	c.n++
}

func (c *chunked[T]) at(i int) T { return c.chunks[i/runChunk][i%runChunk] }

// tinyKeyLen and shortKeyLen are the longest keys held in a tinyKey and a
// shortKey: SKUs and codes.
const (
	tinyKeyLen  = 11
	shortKeyLen = 15
)

// shortKey is a key of up to shortKeyLen bytes, by value: a map of them
// holds no pointers, so the collector never scans it, and needs no string
// per key. On a million shuffled SKUs it halves the peak memory of
// validation and saves a third of its CPU time against a map[string]int32.
// A tinyKey is one of up to tinyKeyLen bytes: with its row it fills 16
// bytes, where a shortKey's entry takes 20.
type (
	shortKey struct {
		n uint8
		b [shortKeyLen]byte
	}
	tinyKey struct {
		n uint8
		b [tinyKeyLen]byte
	}
)

func newTinyKey(key string) (k tinyKey) {
	k.n = uint8(copy(k.b[:], key))
	return k
}

func newShortKey(key string) (k shortKey) {
	k.n = uint8(copy(k.b[:], key))
	return k
}

// addTo is keySet.add for a map of keys by value, which it makes on its
// first key.
func addTo[K comparable](m *map[K]int32, k K, row int32) (first int32, dup bool) {
	if first, dup = (*m)[k]; !dup {
		if *m == nil {
			*m = map[K]int32{}
		}
		(*m)[k] = row
	}
	return first, dup
}
