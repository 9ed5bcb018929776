package testkit

import (
	"net"
	"sync"
	"testing"
	"time"
)

// LatencyProxy listens on a loopback port and forwards each connection
// to a target address, delaying every chunk it reads by a fixed time in
// each direction, as a server that far away would: a round trip takes
// twice the delay more, while any number of chunks may be on their way at
// once (the delay line does not hold the reading up), so requests
// pipelined on one connection overlap as they would on a real network.
type LatencyProxy struct {
	// Addr is the proxy's address (127.0.0.1:port).
	Addr string

	ln     net.Listener
	target string
	delay  time.Duration

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// StartLatencyProxy starts a proxy to target that delays each direction
// by oneWay (a round trip takes 2*oneWay longer); it stops when the test
// ends.
func StartLatencyProxy(t testing.TB, target string, oneWay time.Duration) *LatencyProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("latency proxy: %v", err)
	}
	p := &LatencyProxy{Addr: ln.Addr().String(), ln: ln, target: target, delay: oneWay, conns: map[net.Conn]struct{}{}}
	p.wg.Go(p.accept)
	t.Cleanup(p.Close)
	return p
}

// Close stops listening and closes every connection.
func (p *LatencyProxy) Close() {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	_ = p.ln.Close()
	p.wg.Wait()
}

// track adds c to the connections Close closes (false: closing already).
func (p *LatencyProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *LatencyProxy) accept() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = in.Close()
			continue
		}
		if !p.track(in) || !p.track(out) {
			_ = in.Close()
			_ = out.Close()
			return
		}
		p.wg.Go(func() {
			var both sync.WaitGroup
			both.Go(func() { p.pipe(out, in) })
			both.Go(func() { p.pipe(in, out) })
			both.Wait()
			_ = in.Close()
			_ = out.Close()
		})
	}
}

// chunk is what one read got, and when it may be written on.
type chunk struct {
	data []byte
	due  time.Time
}

// pipe copies from src to dst, each chunk delay after it was read. At
// the end of src it closes dst's writing side once everything read went
// through.
func (p *LatencyProxy) pipe(dst, src net.Conn) {
	line := make(chan chunk, 4096)
	go func() {
		defer close(line)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				line <- chunk{data: buf[:n], due: time.Now().Add(p.delay)}
			}
			if err != nil {
				return
			}
		}
	}()
	failed := false
	for c := range line {
		if failed {
			continue // drain, so that the reader ends
		}
		time.Sleep(time.Until(c.due)) // the injected latency itself
		if _, err := dst.Write(c.data); err != nil {
			failed = true
			_ = src.Close()
		}
	}
	if tcp, ok := dst.(*net.TCPConn); ok {
		_ = tcp.CloseWrite()
	}
}
