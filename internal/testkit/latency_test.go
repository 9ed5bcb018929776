package testkit

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"
)

// TestLatencyProxy: a message through the proxy to an echo server and
// back takes at least twice the one-way delay, and ten messages sent at
// once come back in about one round trip, not ten.
func TestLatencyProxy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(c, c); _ = c.Close() }()
		}
	}()
	const oneWay = 50 * time.Millisecond
	p := StartLatencyProxy(t, ln.Addr().String(), oneWay)
	c, err := net.Dial("tcp", p.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	roundTrip := func(lines int) time.Duration {
		began := time.Now()
		for range lines {
			if _, err := io.WriteString(c, "ping\n"); err != nil {
				t.Fatal(err)
			}
		}
		for range lines {
			if s, err := r.ReadString('\n'); err != nil || s != "ping\n" {
				t.Fatalf("echo: %q, %v", s, err)
			}
		}
		return time.Since(began)
	}
	if d := roundTrip(1); d < 2*oneWay {
		t.Errorf("one round trip took %s, want at least %s", d, 2*oneWay)
	}
	if d := roundTrip(10); d < 2*oneWay || d > 5*2*oneWay {
		t.Errorf("ten pipelined round trips took %s, want between %s and %s (they overlap)", d, 2*oneWay, 5*2*oneWay)
	}
}
