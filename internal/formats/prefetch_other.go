//go:build !amd64

package formats

// havePrefetch says prefetchSlots is the processor's prefetch instruction:
// not on this architecture, where keySet.touch loads the slots instead.
const havePrefetch = false

func prefetchSlots(*uint64, uint64, []uint64) {}
