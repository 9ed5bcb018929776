package app

import (
	"sync"
	"time"
)

// aheadClock is a clock for Options.Now that runs with the real one
// until the test moves it ahead (ahead sets how far; safe to call while
// the daemon reads the clock).
func aheadClock() (clock func() time.Time, ahead func(time.Duration)) {
	var (
		mu sync.Mutex
		by time.Duration
	)
	clock = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return time.Now().Add(by)
	}
	ahead = func(d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		by = d
	}
	return clock, ahead
}
