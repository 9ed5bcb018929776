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
// access, about a third of the memory of a map entry (on a million sorted
// SKUs the map's lookups were a fifth of the command's CPU time and its
// entries most of its peak memory; see BenchmarkValidateSKUs1M). A key not
// above the run's last one is looked up in the run by binary search and
// kept in a map: every key in the maps is below the run's last key, so a key
// above it is new without a look at either.
type keySet struct {
	run  []byte   // the keys of the run, end to end, ascending
	ends []uint32 // where each key of the run ends in run
	rows []int32  // the row each key of the run appeared on

	// The keys out of order: those of up to shortKeyLen bytes in short,
	// the others in long.
	short map[shortKey]int32
	long  map[string]int32
}

// add returns the row a key first appeared on (dup true), or records the
// key as appearing on row. The key is copied.
func (s *keySet) add(key string, row int32) (first int32, dup bool) {
	n := len(s.ends)
	if (n == 0 || string(s.key(n-1)) < key) && len(s.run)+len(key) <= math.MaxUint32 {
		s.run = append(s.run, key...)
		s.ends = append(s.ends, uint32(len(s.run)))
		s.rows = append(s.rows, row)
		return 0, false
	}
	if i := sort.Search(n, func(i int) bool { return string(s.key(i)) >= key }); i < n && string(s.key(i)) == key {
		return s.rows[i], true
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

// key is the i-th key of the run.
func (s *keySet) key(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = s.ends[i-1]
	}
	return s.run[start:s.ends[i]]
}

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
