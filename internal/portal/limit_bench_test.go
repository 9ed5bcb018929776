package portal

import (
	"context"
	"testing"
	"time"
)

// BenchmarkLimiter measures a slot taken and given back by parallel
// callers, against the plain channel semaphore the adaptive limiter
// replaced: what the limiter costs per request.
func BenchmarkLimiter(b *testing.B) {
	const slots = 8
	b.Run("adaptive", func(b *testing.B) {
		l := newLimiter(slots, time.Now)
		ctx := context.Background()
		b.SetParallelism(16) // 32 callers for 8 slots: most wait
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				e, err := l.acquire(ctx)
				if err != nil {
					b.Error(err)
					return
				}
				l.release(e, signalAnswered, 0)
			}
		})
	})
	b.Run("channel", func(b *testing.B) {
		sem := make(chan struct{}, slots)
		ctx := context.Background()
		b.SetParallelism(16)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					return
				}
				<-sem
			}
		})
	})
}
