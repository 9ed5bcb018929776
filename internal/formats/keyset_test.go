package formats

import (
	"strconv"
	"strings"
	"testing"
)

func TestKeySet(t *testing.T) {
	k := newKeySet(10) // grows several times
	defer k.free()
	keys := benchKeys(20000)
	keys = append(keys, "", strings.Repeat("x", keyMaxLen+1), "SKU\x00A", "SKU")
	for pass := 0; pass < 2; pass++ {
		for i := 0; i < len(keys); i += pendingBatch {
			batch := keys[i:min(i+pendingBatch, len(keys))]
			hashes := make([]uint64, len(batch))
			for j, key := range batch {
				hashes[j] = k.hash(key)
			}
			k.touch(hashes)
			for j, key := range batch {
				row := 2*(i+j) + pass
				first, dup := k.addHash(key, hashes[j], row)
				if want := pass == 1; dup != want || dup && first != 2*(i+j) {
					t.Fatalf("pass %d: add(%.20q) = %d, %v", pass, key, first, dup)
				}
			}
		}
	}
}

func benchKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "SKU" + strconv.Itoa(10000000+i)
	}
	return keys
}

// BenchmarkKeySet1M adds 1M distinct keys one by one, as a 1M-row file
// would without the batches of flushPending. (A map[string]int32 took about
// three times as long, and 100 MB of heap, when the key set was written.)
func BenchmarkKeySet1M(b *testing.B) {
	keys := benchKeys(1_000_000)
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		k := newKeySet(860_000)
		for r, key := range keys {
			if _, dup := k.add(key, r+2); dup {
				b.Fatal("dup")
			}
		}
		k.free()
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N*len(keys)), "cpu-ns/key")
}

func TestKeySetMapped(t *testing.T) {
	k := newKeySet(2_000_000) // a table above keyHeapMax
	defer k.free()
	if len(k.slots)*8 <= keyHeapMax {
		t.Fatalf("table of %d slots", len(k.slots))
	}
	for i, key := range []string{"a", "b", "a"} {
		if first, dup := k.add(key, i+1); dup != (i == 2) || dup && first != 1 {
			t.Fatalf("add(%q) = %d, %v", key, first, dup)
		}
	}
}

func TestKeySetHeapAndMappedChunks(t *testing.T) {
	k := newKeySet(750_000) // a 16 MiB table on the heap: room for 4 chunks there
	defer k.free()
	if k.mapped || len(k.slots)*8 != keyHeapMax/2 {
		t.Fatalf("table of %d slots, mapped %v", len(k.slots), k.mapped)
	}
	// Keys of 60000 bytes: 69 per chunk, 6 chunks.
	keys := make([]string, 6*70)
	for i := range keys {
		keys[i] = strconv.Itoa(i) + strings.Repeat("k", 60000)
	}
	for pass := 0; pass < 2; pass++ {
		for i, key := range keys {
			if first, dup := k.add(key, 2*i+pass); dup != (pass == 1) || dup && first != 2*i {
				t.Fatalf("pass %d: add(key %d) = %d, %v", pass, i, first, dup)
			}
		}
	}
	if len(k.chunks) != 7 || k.heapChunks != 4 {
		t.Fatalf("%d chunks, %d on the heap; want 7 and 4", len(k.chunks), k.heapChunks)
	}
}
