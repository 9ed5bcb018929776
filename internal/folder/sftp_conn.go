package folder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"

	"filebridge/internal/backoff"
)

// redial is the wait after consecutive failed dials: 1s doubling to 1m.
var redial = backoff.Backoff{Initial: time.Second, Max: time.Minute}

// sftpConn is one SSH connection with its SFTP session.
type sftpConn struct {
	ssh         *ssh.Client
	sftp        *sftp.Client
	posixRename bool
	fsync       bool

	dead     chan struct{} // closed once the connection is gone
	killed   atomic.Bool
	killOnce sync.Once
}

// kill closes the connection; blocked calls on it return an error.
func (c *sftpConn) kill() {
	c.killed.Store(true)
	c.killOnce.Do(func() {
		// Closing the SSH connection first ends the SFTP receive loop;
		// sftp.Client.Close alone would wait for the server.
		_ = c.ssh.Close()
		_ = c.sftp.Close()
	})
}

func (c *sftpConn) alive() bool {
	if c.killed.Load() {
		return false
	}
	select {
	case <-c.dead:
		return false
	default:
		return true
	}
}

// guard runs fn, a call on c, under ctx: when ctx ends first the
// connection is closed, which makes fn return, and the error says why.
// pkg/sftp calls take no context; this is how they get a deadline.
func (c *sftpConn) guard(ctx context.Context, fn func() error) error {
	if err := ctx.Err(); err != nil {
		return ctxError(ctx)
	}
	stop := context.AfterFunc(ctx, c.kill)
	err := fn()
	if !stop() && err != nil {
		return ctxError(ctx)
	}
	return err
}

// ctxError explains why ctx ended; it wraps context.DeadlineExceeded or
// context.Canceled.
func ctxError(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer from the SFTP server in time, connection closed: %w", ctx.Err())
	}
	return fmt.Errorf("operation cancelled, connection closed: %w", ctx.Err())
}

// isConnError reports whether err means the connection is unusable.
func isConnError(err error) bool {
	var opErr *net.OpError
	return errors.Is(err, sftp.ErrSSHFxConnectionLost) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.As(err, &opErr) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}

// connect returns a live connection, dialling when there is none. Callers
// arriving during a dial wait for it and share its result. After a failed
// dial, further attempts wait for a growing backoff and fail fast until
// then with the last error.
func (f *sftpFolder) connect(ctx context.Context) (*sftpConn, error) {
	for {
		f.mu.Lock()
		if f.closed {
			f.mu.Unlock()
			return nil, fmt.Errorf("using %s: %w", f, net.ErrClosed)
		}
		if f.conn != nil && f.conn.alive() {
			c := f.conn
			f.mu.Unlock()
			return c, nil
		}
		f.conn = nil
		if ch := f.dialing; ch != nil {
			f.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, fmt.Errorf("connecting to %s: %w", f, ctxError(ctx))
			}
		}
		if wait := f.nextDial.Sub(f.now()); wait > 0 && f.dialErr != nil {
			err := f.dialErr
			f.mu.Unlock()
			return nil, fmt.Errorf("%w (next attempt in %s)", err, wait.Round(time.Millisecond))
		}
		ch := make(chan struct{})
		f.dialing = ch
		f.mu.Unlock()

		c, err := f.dial(ctx)

		f.mu.Lock()
		f.dialing = nil
		close(ch)
		switch {
		case err == nil:
			f.conn, f.dialErr, f.dialFailures = c, nil, 0
		case ctx.Err() == nil:
			// A failure of the server, not of this caller: back off.
			f.dialErr, f.nextDial = err, f.now().Add(redial.Next(f.dialFailures))
			f.dialFailures++
		}
		closed := f.closed
		f.mu.Unlock()
		if closed && c != nil {
			c.kill()
			return nil, fmt.Errorf("using %s: %w", f, net.ErrClosed)
		}
		return c, err
	}
}

// dial opens a new SSH connection and SFTP session within the timeout.
func (f *sftpFolder) dial(ctx context.Context) (*sftpConn, error) {
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", f.addr)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", f, err)
	}
	// The handshake and the SFTP init take no context: close the socket if
	// ctx ends first.
	stop := context.AfterFunc(ctx, func() { _ = raw.Close() })
	c, err := f.handshake(raw)
	if !stop() {
		if c != nil {
			c.kill()
		}
		_ = raw.Close()
		return nil, fmt.Errorf("connecting to %s: %w", f, ctxError(ctx))
	}
	if err != nil {
		_ = raw.Close()
		return nil, err
	}
	f.log.Debug("connected", "posix_rename", c.posixRename, "fsync", c.fsync)
	go f.watch(c)
	return c, nil
}

func (f *sftpFolder) handshake(raw net.Conn) (*sftpConn, error) {
	conn, chans, reqs, err := ssh.NewClientConn(raw, f.addr, f.sshCfg)
	if err != nil {
		var algo *ssh.AlgorithmNegotiationError
		if errors.As(err, &algo) && algo.What == "host key" {
			// known_hosts (or the pins) hold only key types the server
			// does not offer: its key cannot be verified.
			return nil, fmt.Errorf("%w: %s offers host keys of type %s only, but known_hosts has none of these types for it (only %s); "+
				"if the server's keys were changed on purpose, add its key (ssh-keyscan -p PORT HOST), otherwise this may be an attack",
				ErrHostKeyMismatch, f, strings.Join(algo.RequestedAlgorithms, ", "), strings.Join(algo.SupportedAlgorithms, ", "))
		}
		if strings.Contains(err.Error(), "unable to authenticate") {
			return nil, fmt.Errorf("logging in to %s: %w; check the user name and the password or key", f, err)
		}
		return nil, fmt.Errorf("connecting to %s: %w", f, err)
	}
	client := ssh.NewClient(conn, chans, reqs)
	sc, err := sftp.NewClient(client)
	if err != nil {
		_ = client.Close()
		return nil, fmt.Errorf("starting the SFTP session on %s (is the sftp subsystem enabled?): %w", f, err)
	}
	c := &sftpConn{ssh: client, sftp: sc, dead: make(chan struct{})}
	_, c.posixRename = sc.HasExtension("posix-rename@openssh.com")
	v, ok := sc.HasExtension("fsync@openssh.com")
	c.fsync = ok && v == "1"
	return c, nil
}

// watch marks c dead when either layer ends and sends keepalives; a
// keepalive without answer within the timeout closes the connection.
func (f *sftpFolder) watch(c *sftpConn) {
	ended := make(chan struct{}, 2)
	go func() { _ = c.ssh.Wait(); ended <- struct{}{} }()
	go func() { _ = c.sftp.Wait(); ended <- struct{}{} }()
	tick := time.NewTicker(f.opts.KeepAlive)
	defer tick.Stop()
	for {
		select {
		case <-ended:
			c.kill()
			close(c.dead)
			f.mu.Lock()
			closed := f.closed
			f.mu.Unlock()
			if !closed {
				f.log.Info("SFTP connection closed; the next operation reconnects")
			}
			return
		case <-tick.C:
			go f.keepalive(c)
		}
	}
}

func (f *sftpFolder) keepalive(c *sftpConn) {
	done := make(chan error, 1)
	go func() {
		// OpenSSH answers this unknown request with a failure: any answer
		// proves the connection is alive.
		_, _, err := c.ssh.SendRequest("keepalive@openssh.com", true, nil)
		done <- err
	}()
	t := time.NewTimer(f.opts.Timeout)
	defer t.Stop()
	select {
	case err := <-done:
		if err != nil {
			f.log.Warn("SFTP keepalive failed, closing the connection", "error", err)
			c.kill()
		}
	case <-t.C:
		f.log.Warn("SFTP keepalive unanswered, closing the connection", "timeout", f.opts.Timeout)
		c.kill()
	case <-c.dead:
	}
}

// run runs one remote operation under the per-operation timeout on a live
// connection. A connection error kills the connection so the next call
// redials; idempotent operations are retried once on a fresh connection.
func (f *sftpFolder) run(ctx context.Context, idempotent bool, fn func(ctx context.Context, c *sftpConn) error) error {
	for attempt := 0; ; attempt++ {
		octx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
		c, err := f.connect(octx)
		if err == nil {
			err = c.guard(octx, func() error { return fn(octx, c) })
		}
		cancel()
		if err == nil || c == nil || ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		if !isConnError(err) && c.alive() {
			return err
		}
		c.kill()
		if !idempotent || attempt > 0 {
			return err
		}
		f.log.Info("SFTP connection lost, retrying on a new connection", "error", err)
	}
}
