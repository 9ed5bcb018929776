package formats

import (
	"encoding/binary"
	"hash/maphash"
)

// keySet remembers the keys of a file and the row each first appeared on,
// for uniqueness checks over millions of rows.
//
// It holds no Go pointers: keys are copied into an arena of fixed-size
// chunks as [row int32][len uint16][bytes], and an open-addressing table
// of uint64 slots holds (hash<<32 | arena offset+1).
//
// A table of up to keyHeapMax bytes (4M slots, sized for 1.5M keys) lives
// on the Go heap: it is pointer-free, so the collector never scans it, and
// it raises the heap goal in proportion to the file, so that decoding a long
// file, which allocates every document, triggers several times fewer
// collections (for at most as much memory again in garbage between them).
// A bigger table is mapped outside the heap, so memory stays at one table.
// Arena chunks of a big file live on the heap too, for the same reason,
// while the table and the chunks there stay within keyHeapMax (see
// allocChunk); the others are mapped outside the heap on unix
// (alloc_linux.go, alloc_unix.go), and free releases them.
type keySet struct {
	seed   maphash.Seed
	slots  []uint64
	mapped bool // slots are mapped outside the heap
	count  int
	chunks [][]byte
	// heapChunks are the first chunks, those on the Go heap.
	heapChunks int
	used       int // bytes used in the last chunk
	spill      map[string]int32
	sink       uint64 // what touch loaded, so that the loads are kept
}

const (
	keyChunkBits = 22 // 4 MiB chunks
	keyChunkSize = 1 << keyChunkBits
	keyMaxChunks = 1 << (32 - keyChunkBits) // offsets fit 32 bits
	keyMaxLen    = 1<<16 - 1
	keyHeader    = 6
	keyHeapMax   = 32 << 20
)

// allocSlots makes a zeroed table of n slots; mapped says it is outside the
// Go heap.
func allocSlots(n int) (slots []uint64, mapped bool) {
	if n*8 <= keyHeapMax {
		return make([]uint64, n), false
	}
	return allocUint64(n), true
}

// freeSlots releases a table of allocSlots.
func freeSlots(slots []uint64, mapped bool) {
	if mapped {
		freeUint64(slots)
	}
}

// newKeySet makes a set sized for about hint keys (it grows as needed).
func newKeySet(hint int64) *keySet {
	n := 1 << 12
	for int64(n)*3 < hint*8 && n < 1<<26 {
		n <<= 1
	}
	slots, mapped := allocSlots(n)
	return &keySet{seed: maphash.MakeSeed(), slots: slots, mapped: mapped}
}

// add records key on row; when the key was already seen it returns the
// first row and true.
func (k *keySet) add(key string, row int) (int, bool) {
	return k.addHash(key, k.hash(key), row)
}

// hash returns the hash of key for touch and addHash.
func (k *keySet) hash(key string) uint64 { return maphash.String(k.seed, key) }

// touch prefetches the slots where keys of the hashes start probing. A
// lookup in a table of millions of keys is a cache miss; touching the slots
// of a batch of keys first lets the processor wait for those misses
// together, or not at all with a prefetch instruction, which does not wait
// for the data.
func (k *keySet) touch(hashes []uint64) {
	slots := k.slots
	mask := uint64(len(slots) - 1)
	if havePrefetch {
		if len(hashes) > 0 && len(slots) > 0 {
			prefetchSlots(&slots[0], mask, hashes)
		}
		return
	}
	var x uint64
	for _, h := range hashes {
		x ^= slots[h&mask]
	}
	k.sink ^= x
}

// addHash is add with the key's hash.
func (k *keySet) addHash(key string, h uint64, row int) (int, bool) {
	if len(key) > keyMaxLen || len(k.chunks) == keyMaxChunks && k.used+keyHeader+len(key) > keyChunkSize {
		return k.addSpill(key, row)
	}
	h32 := uint64(uint32(h>>32) | 1) // never 0: a 0 slot is empty
	mask := uint64(len(k.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := k.slots[i]
		if s == 0 {
			off := k.store(key, row)
			k.slots[i] = h32<<32 | uint64(off+1)
			k.count++
			if k.count*4 > len(k.slots)*3 {
				k.grow()
			}
			return 0, false
		}
		if s>>32 == h32 {
			if r, ok := k.match(uint32(s)-1, key); ok {
				return int(r), true
			}
		}
	}
}

// store appends a record to the arena and returns its offset.
func (k *keySet) store(key string, row int) uint32 {
	need := keyHeader + len(key)
	if len(k.chunks) == 0 || k.used+need > keyChunkSize {
		k.chunks = append(k.chunks, k.allocChunk())
		k.used = 0
	}
	c := k.chunks[len(k.chunks)-1]
	off := uint32((len(k.chunks)-1)<<keyChunkBits | k.used)
	binary.LittleEndian.PutUint32(c[k.used:], uint32(int32(row)))
	binary.LittleEndian.PutUint16(c[k.used+4:], uint16(len(key)))
	copy(c[k.used+keyHeader:], key)
	k.used += need
	return off
}

// allocChunk makes an arena chunk: on the heap when the table there is at
// least a chunk big (a file of some 200k rows: a small file does not need
// fewer collections) and the table and the chunks there stay within
// keyHeapMax; mapped otherwise.
func (k *keySet) allocChunk() []byte {
	table := len(k.slots) * 8
	if !k.mapped && table >= keyChunkSize && table+(k.heapChunks+1)*keyChunkSize <= keyHeapMax &&
		k.heapChunks == len(k.chunks) {
		k.heapChunks++
		return make([]byte, keyChunkSize)
	}
	return allocBytes(keyChunkSize)
}

// match compares the record at off with key.
func (k *keySet) match(off uint32, key string) (int32, bool) {
	c := k.chunks[off>>keyChunkBits]
	p := int(off & (keyChunkSize - 1))
	n := int(binary.LittleEndian.Uint16(c[p+4:]))
	if n != len(key) || string(c[p+keyHeader:p+keyHeader+n]) != key {
		return 0, false
	}
	return int32(binary.LittleEndian.Uint32(c[p:])), true
}

// grow doubles the table.
func (k *keySet) grow() {
	old, oldMapped := k.slots, k.mapped
	k.slots, k.mapped = allocSlots(2 * len(old))
	mask := uint64(len(k.slots) - 1)
	for _, s := range old {
		if s == 0 {
			continue
		}
		off := uint32(s) - 1
		c := k.chunks[off>>keyChunkBits]
		p := int(off & (keyChunkSize - 1))
		n := int(binary.LittleEndian.Uint16(c[p+4:]))
		h := maphash.Bytes(k.seed, c[p+keyHeader:p+keyHeader+n])
		for i := h & mask; ; i = (i + 1) & mask {
			if k.slots[i] == 0 {
				k.slots[i] = s
				break
			}
		}
	}
	freeSlots(old, oldMapped)
}

// addSpill handles the odd key too long for the arena.
func (k *keySet) addSpill(key string, row int) (int, bool) {
	if k.spill == nil {
		k.spill = map[string]int32{}
	}
	if r, ok := k.spill[key]; ok {
		return int(r), true
	}
	k.spill[string([]byte(key))] = int32(row)
	return 0, false
}

// free releases the memory of the set; it must not be used afterwards.
func (k *keySet) free() {
	freeSlots(k.slots, k.mapped)
	for _, c := range k.chunks[k.heapChunks:] {
		freeBytes(c)
	}
	k.slots, k.chunks, k.spill = nil, nil, nil
}
