package formats

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// TestUniqueKeyOrders checks the duplicate messages of files whose keys
// come in ascending order, out of order, and both: a duplicate of a key of
// the sorted run, of a key kept out of order (short and long), and keys
// that are prefixes of one another.
func TestUniqueKeyOrders(t *testing.T) {
	long := strings.Repeat("L", shortKeyLen) // with one more byte: kept in a string map
	tests := []struct {
		name string
		keys []string
		// dups maps a row's index in keys to the line its key first
		// appeared on.
		dups map[int]int
	}{
		{"ascending", []string{"A", "B", "C", "D"}, nil},
		{"ascending then a run key again", []string{"A", "B", "C", "B", "D", "A"}, map[int]int{3: 3, 5: 2}},
		{"descending", []string{"D", "C", "B", "A", "C"}, map[int]int{4: 3}},
		{"out of order then again", []string{"M", "N", "B", "Z", "B", "N"}, map[int]int{4: 4, 5: 3}},
		{"prefixes", []string{"AB", "A", "AB0", "AB", "A", "AB00", "AB0"}, map[int]int{3: 2, 4: 3, 6: 4}},
		{"long keys", []string{long + "2", long + "1", long + "3", long + "1", long + "2", long}, map[int]int{3: 3, 4: 2}},
		{"same key in a row", []string{"A", "A", "A"}, map[int]int{1: 2, 2: 2}},
		{"around tinyKeyLen", []string{"Z", strings.Repeat("T", tinyKeyLen+1), strings.Repeat("T", tinyKeyLen), strings.Repeat("T", tinyKeyLen-1),
			strings.Repeat("T", tinyKeyLen), strings.Repeat("T", tinyKeyLen+1), strings.Repeat("T", tinyKeyLen-1)}, map[int]int{4: 4, 5: 3, 6: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString(skuHead + "\n")
			for _, k := range tt.keys {
				fmt.Fprintf(&b, "%s,Chair,4006381333931,1,45,50,90,6.5,7.2,89.90,SUP-001\n", k)
			}
			res := decodeBytes(t, "S.csv", []byte(b.String()), Options{Edition: B, Type: "skus"})
			if res.err != nil || len(res.docs) != len(tt.keys) {
				t.Fatalf("%d docs, %v", len(res.docs), res.err)
			}
			for i, d := range res.docs {
				want := ""
				if first, ok := tt.dups[i]; ok {
					want = fmt.Sprintf("SKU %q already appears on line %d: each one may appear only once in a file", d.Key, first)
				}
				got := ""
				for _, is := range d.Issues {
					if is.Column == "sku" {
						got = is.Message
					}
				}
				if got != want {
					t.Errorf("line %d (%q): issue %q, want %q", i+2, d.Key, got, want)
				}
			}
		})
	}
}

// TestUniqueKeysMemory checks what the duplicate check holds per key of a
// file sorted by SKU, as exports often are: the keys end to end with their
// end offset and row, under 24 bytes a key, where a map of them held 44
// (its tables had just split at this count).
func TestUniqueKeysMemory(t *testing.T) {
	for _, tc := range []struct {
		name    string
		shuffle bool
		most    float64
	}{
		{"sorted", false, 24},
		// Keys in no order are held in a map, 16 bytes an entry for an
		// 11-byte SKU, where a map of 15-byte keys held 20.
		{"shuffled", true, 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			perKey := keyMemory(t, tc.shuffle)
			t.Logf("%.1f bytes held per key", perKey)
			if perKey > tc.most {
				t.Errorf("%.1f bytes held per key, want at most %v", perKey, tc.most)
			}
		})
	}
}

// keyMemory decodes a file of 11-byte SKUs, in order or not, and returns
// the bytes of heap that the rows left held, per row.
func keyMemory(t *testing.T, shuffle bool) float64 {
	const n = 240_000
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if shuffle {
		rand.New(rand.NewPCG(1, 2)).Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	var b strings.Builder
	b.WriteString(skuHead + "\n")
	for _, i := range order {
		fmt.Fprintf(&b, "SKU%08d,Chair,4006381333931,1,45,50,90,6.5,7.2,89.90,SUP-001\n", i)
	}
	data := []byte(b.String())
	var first, last uint64
	docs := 0
	live := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	_, err := Decode(context.Background(), strings.NewReader(b.String()), int64(len(data)), "S.csv", Options{Edition: B, Type: "skus"}, func(d Doc) error {
		docs++
		switch docs {
		case 1:
			first = live()
		case n:
			last = live()
		}
		return nil
	})
	if err != nil || docs != n {
		t.Fatalf("%d docs: %v", docs, err)
	}
	return float64(int64(last)-int64(first)) / n
}

// TestKeySetChunks adds ascending keys of many lengths, over several
// chunks of the run, then each again: every one is found on its row; keys
// between them are new.
func TestKeySetChunks(t *testing.T) {
	var s keySet
	var keys []string
	for i := 0; len(keys) == 0 || len(s.keys) < 4; i++ {
		k := fmt.Sprintf("K%07d%s", i, strings.Repeat("x", i%41))
		keys = append(keys, k)
		if _, dup := s.add(k, int32(i+2)); dup {
			t.Fatalf("%q: duplicate on first sight", k)
		}
	}
	if s.short != nil || s.long != nil {
		t.Fatalf("ascending keys went into the maps: %d short, %d long", len(s.short), len(s.long))
	}
	for i, k := range keys {
		if first, dup := s.add(k, 1e9); !dup || first != int32(i+2) {
			t.Fatalf("%q again: first row %d, dup %v; want %d", k, first, dup, i+2)
		}
		if _, dup := s.add(k+"!", int32(i)); dup { // between k and the next key
			t.Fatalf("%q: duplicate on first sight", k+"!")
		}
	}
}
