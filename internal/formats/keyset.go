package formats

import (
	"math"
	"sort"
)

// keySet holds the key of every master-data document of a file with the row
// it first appeared on, to report a key that appears again.
//
// Keys that come in ascending order, as from an export sorted by its key,
// are appended end to end to a sorted run: no hashing, no random memory
// access, about half the memory of a map entry (on a million sorted SKUs
// the map's lookups were a fifth of the command's CPU time and its entries
// most of its peak memory; see BenchmarkValidateSKUs1M). The run is held in
// chunks of runChunk bytes or values, which never move: growing one slice
// left its old arrays to the collector, ten more MiB at the peak. A key not
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
	// shortKeyLen bytes in short, the others in long.
	short map[shortKey]int32
	long  map[string]int32
}

// runChunk is the size of a chunk of the run, in bytes of keys or in values
// of ends and rows.
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
	if len(key) <= shortKeyLen {
		k := shortKey{n: uint8(len(key))}
		copy(k.b[:], key)
		if first, dup = s.short[k]; !dup {
			if s.short == nil {
				s.short = map[shortKey]int32{}
			}
			s.short[k] = row
		}
		return first, dup
	}
	if first, dup = s.long[key]; !dup {
		if s.long == nil {
			s.long = map[string]int32{}
		}
		// The key is cloned: it may share the memory of its row's text.
		s.long[string([]byte(key))] = row
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
		s.keys = append(s.keys, make([]byte, 0, runChunk))
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
		c.chunks = append(c.chunks, make([]T, 0, runChunk))
	}
	c.chunks[c.n/runChunk] = append(c.chunks[c.n/runChunk], v)
	c.n++
}

func (c *chunked[T]) at(i int) T { return c.chunks[i/runChunk][i%runChunk] }

// shortKeyLen is the longest key held in a shortKey: SKUs and codes.
const shortKeyLen = 15

// shortKey is a key of up to shortKeyLen bytes, by value: a map of them
// holds no pointers, so the collector never scans it, and needs no string
// per key. On a million shuffled SKUs it halves the peak memory of
// validation and saves a third of its CPU time against a map[string]int32.
type shortKey struct {
	n uint8
	b [shortKeyLen]byte
}
