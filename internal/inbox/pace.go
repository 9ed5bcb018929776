package inbox

import (
	"context"
	"sync"
	"time"
)

// pace is how many files an inbox takes at once: its claims run up to
// width at a time, and the claims of small remote files and the
// processing of small files up to four times the width (claimQuarters,
// fileSlots). It starts at file_concurrency and grows while round trips
// are the limit, backing off when they are not (AIMD on the time a claim
// takes, which is SFTP requests and a journal write, never the portal,
// which has its own limiter):
//
//   - over each window of as many claims as the width, the mean time a
//     claim took is compared with the quickest window seen (the time a
//     claim takes with nothing queued: its round trips);
//   - while the mean stays within growBelow of it, more claims in flight
//     go through in the same time each: the width grows by a quarter;
//   - when the mean passes backOffAt times the quickest, claims queue
//     behind something (the server, the machine, the journal): the width
//     shrinks by a quarter, never below file_concurrency; between the
//     two it holds;
//   - at file_concurrency with claims still slower than the quickest
//     window, that reference ages (ageing a window), so that a slower
//     network path is followed in time.
//
// On a local folder a claim is a rename and a read on the machine itself,
// which queue as soon as more run than it has cores: the width stays
// near file_concurrency there. It never passes maxPaceFactor times
// file_concurrency.
type pace struct {
	mu       sync.Mutex
	min, max int
	width    int
	inflight int           // quarters of a place: a claim takes claimQuarters
	free     chan struct{} // a token when a place may have freed up

	best time.Duration // the quickest window's mean claim
	sum  time.Duration // of the current window
	n    int
}

// Tuning of pace.
const (
	maxPaceFactor = 8
	growBelow     = 1.2
	backOffAt     = 1.5
	ageing        = 1.02
)

// newPace returns the pace of an inbox with file_concurrency fc (width
// fixed at 1 when fc is 1: one file at a time was asked for).
func newPace(fc int) *pace {
	fc = max(fc, 1)
	p := &pace{min: fc, max: fc * maxPaceFactor, width: fc, free: make(chan struct{}, 1)}
	if fc == 1 {
		p.max = 1
	}
	return p
}

// Width is how many claims run at once now.
func (p *pace) Width() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.width
}

// claimQuarters is the share of a place the claim of a remote file of
// size bytes takes (size < 0: not known): a quarter for a small file, as
// its processing takes (see slots), whose claim is round trips rather
// than reading; a whole place otherwise, and at one file at a time. A
// local claim takes a whole place: it is work on this machine, which
// more at once only queue for.
func (p *pace) claimQuarters(size int64) int {
	if size >= 0 && size < smallFile && p.max > 1 {
		return 1
	}
	return 4
}

// acquire waits for q quarters of a place among the claims in flight;
// false when ctx ended first.
func (p *pace) acquire(ctx context.Context, q int) bool {
	for {
		p.mu.Lock()
		if p.inflight+q <= 4*p.width {
			p.inflight += q
			p.mu.Unlock()
			return true
		}
		p.mu.Unlock()
		select {
		case <-p.free:
		case <-ctx.Done():
			return false
		}
	}
}

// release gives q quarters back; took is how long the claim took (zero:
// it failed or was not a claim's full work, and does not count).
func (p *pace) release(q int, took time.Duration) {
	p.mu.Lock()
	p.inflight -= q
	if took > 0 {
		p.observe(took)
	}
	p.mu.Unlock()
	poke(p.free)
}

// observe adds a claim's time to the window and, once the window is
// full, moves the width (under mu).
func (p *pace) observe(took time.Duration) {
	p.sum += took
	p.n++
	if p.n < p.width {
		return
	}
	mean := p.sum / time.Duration(p.n)
	p.sum, p.n = 0, 0
	switch {
	case p.best == 0 || mean < p.best:
		p.best = mean
	case p.width == p.min:
		p.best = min(mean, time.Duration(float64(p.best)*ageing))
	}
	switch {
	case float64(mean) <= growBelow*float64(p.best):
		p.width = min(p.max, p.width+max(p.width/4, 1))
	case float64(mean) > backOffAt*float64(p.best):
		p.width = max(p.min, p.width-max(p.width/4, 1))
	}
}
