//go:build amd64

package formats

// havePrefetch says prefetchSlots is the processor's prefetch instruction.
const havePrefetch = true

// prefetchSlots asks the processor to bring the slots of a table that the
// hashes start probing at (slots[h&mask]) into its cache, without waiting
// for them (prefetch_amd64.s). A prefetch never faults.
//
//go:noescape
func prefetchSlots(slots *uint64, mask uint64, hashes []uint64)
