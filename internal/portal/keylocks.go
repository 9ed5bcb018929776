package portal

import (
	"slices"
	"sync"
)

// keyLocks serialise the creates of one key: documents by resource and
// key, and the parties Edition B orders embed by code. A create waits for
// the one of the same key in flight, and a key this client created lately
// is looked up rather than posted again, so no create is sent twice.
type keyLocks struct {
	mu    sync.Mutex
	locks map[string]*keyLock // keys with a create in flight or waiting
	done  map[string]bool     // keys this client created lately
	order []string            // done's keys, oldest first
}

type keyLock struct {
	sync.Mutex
	users int // holders and waiters: the entry goes when none is left
}

// recentCreates bounds how many created keys a client remembers.
const recentCreates = 1 << 16

// lock takes the locks of keys (sorted) and returns their release.
func (kl *keyLocks) lock(keys []string) (unlock func()) {
	held := make([]*keyLock, 0, len(keys))
	for _, k := range keys {
		kl.mu.Lock()
		if kl.locks == nil {
			kl.locks = map[string]*keyLock{}
		}
		l := kl.locks[k]
		if l == nil {
			l = new(keyLock)
			kl.locks[k] = l
		}
		l.users++
		kl.mu.Unlock()
		l.Lock()
		held = append(held, l)
	}
	return func() {
		for i, l := range held {
			l.Unlock()
			kl.mu.Lock()
			if l.users--; l.users == 0 {
				delete(kl.locks, keys[i])
			}
			kl.mu.Unlock()
		}
	}
}

// once runs do under the locks of keys. When this client created one of
// them lately, again runs first, and ends the call when it says done or
// fails; a do that succeeds marks the keys created.
func (kl *keyLocks) once(keys []string, again func() (Outcome, bool, error), do func() (Outcome, error)) (Outcome, error) {
	unlock := kl.lock(keys)
	defer unlock()
	if kl.madeAny(keys) {
		if out, done, err := again(); done || err != nil {
			return out, err
		}
	}
	out, err := do()
	if err == nil {
		kl.made(keys)
	}
	return out, err
}

func (kl *keyLocks) madeAny(keys []string) bool {
	kl.mu.Lock()
	defer kl.mu.Unlock()
	return slices.ContainsFunc(keys, func(k string) bool { return kl.done[k] })
}

func (kl *keyLocks) made(keys []string) {
	kl.mu.Lock()
	defer kl.mu.Unlock()
	if kl.done == nil {
		kl.done = map[string]bool{}
	}
	for _, k := range keys {
		if kl.done[k] {
			continue
		}
		kl.done[k] = true
		kl.order = append(kl.order, k)
		if len(kl.order) > recentCreates {
			delete(kl.done, kl.order[0])
			kl.order = kl.order[1:]
		}
	}
}
