package folder

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"

	"filebridge/internal/backoff"
)

// sftpLink is the one SSH connection (with its SFTP session) that every
// folder of a process on one account shares: same user, host and port,
// same credentials and host key settings. It is redialled lazily when it
// drops (the one reconnect layer) and closed when the last of its folders
// is: some servers allow one connection per user.
type sftpLink struct {
	key     string // in links
	addr    string // host:port
	display string // sftp://user@host:port, for logs and errors
	sshCfg  *ssh.ClientConfig
	hk      *hostKeyChecker
	log     *slog.Logger
	// timeout bounds a keepalive; keepAlive is their interval (from the
	// options of the first folder opened).
	timeout, keepAlive time.Duration

	// now is the clock of the redial backoff: time.Now, or a test's.
	now func() time.Time

	mu       sync.Mutex
	refs     int // open folders using the link (under links.mu)
	conn     *sftpConn
	dialing  chan struct{} // non-nil while a dial runs; closed when it ends
	dialErr  error         // last dial failure
	nextDial time.Time     // no new dial before this after a failure
	// dialFailures counts the failed dials since the last success.
	dialFailures int
	closed       bool
}

// links holds the open links by key.
var links = struct {
	mu sync.Mutex
	m  map[string]*sftpLink
}{m: map[string]*sftpLink{}}

// acquireLink returns the link of user@addr for opts, shared with the
// folders already open with the same settings, or a new one. Each call
// is matched by a release.
func acquireLink(user, addr string, opts Options) (*sftpLink, error) {
	key := linkKey(user, addr, opts)
	links.mu.Lock()
	defer links.mu.Unlock()
	if l := links.m[key]; l != nil {
		l.refs++
		return l, nil
	}
	cfg, hk, err := sshClientConfig(user, addr, opts)
	if err != nil {
		return nil, err
	}
	display := "sftp://" + user + "@" + addr
	l := &sftpLink{
		key: key, addr: addr, display: display, sshCfg: cfg, hk: hk,
		log: opts.Logger.With("sftp", display), timeout: opts.Timeout, keepAlive: opts.KeepAlive,
		now: time.Now, refs: 1,
	}
	links.m[key] = l
	return l, nil
}

// release ends one use of the link; the last closes the connection.
func (l *sftpLink) release() {
	links.mu.Lock()
	l.refs--
	last := l.refs == 0
	if last {
		delete(links.m, l.key)
	}
	links.mu.Unlock()
	if !last {
		return
	}
	l.mu.Lock()
	l.closed = true
	c := l.conn
	l.conn = nil
	l.mu.Unlock()
	if c != nil {
		c.kill()
	}
}

func (l *sftpLink) String() string { return l.display }

// linkKey identifies the settings of a connection: the account and a
// digest of the credentials and of the host key settings (the known_hosts
// file's content included, so a changed file is read by a new link).
func linkKey(user, addr string, opts Options) string {
	h := sha256.New()
	field := func(b []byte) {
		h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(b))))
		h.Write(b)
	}
	field([]byte(opts.Password))
	field(opts.PrivateKey)
	field([]byte(opts.PrivateKeyPassphrase))
	field([]byte(opts.KnownHostsFile))
	if opts.KnownHostsFile != "" {
		kh, err := os.ReadFile(opts.KnownHostsFile)
		if err != nil {
			kh = []byte(err.Error())
		}
		field(kh)
	}
	field([]byte(opts.HostKeyFingerprint))
	return fmt.Sprintf("%s@%s/%s", user, addr, hex.EncodeToString(h.Sum(nil)))
}

// redial is the wait after consecutive failed dials: 1s doubling to 1m.
var redial = backoff.Backoff{Initial: time.Second, Max: time.Minute}

// sftpConn is one SSH connection with its SFTP session.
type sftpConn struct {
	ssh         *ssh.Client
	sftp        *sftp.Client
	posixRename bool
	fsync       bool
	hardlink    bool
	noLink      atomic.Bool // hardlink advertised, but a link of a file failed

	renameMu  sync.Mutex
	rename    renameMode // what a plain rename onto an existing name does
	renameErr error      // why the probe could not tell (renameUnknown)

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

// alive reports whether c may still be used: not killed (watch kills it
// before it closes dead).
func (c *sftpConn) alive() bool { return !c.killed.Load() }

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
func (l *sftpLink) connect(ctx context.Context, timeout time.Duration) (*sftpConn, error) {
	for {
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			return nil, fmt.Errorf("using %s: %w", l, net.ErrClosed)
		}
		if l.conn != nil && l.conn.alive() {
			c := l.conn
			l.mu.Unlock()
			return c, nil
		}
		l.conn = nil
		if ch := l.dialing; ch != nil {
			l.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, fmt.Errorf("connecting to %s: %w", l, ctxError(ctx))
			}
		}
		if wait := l.nextDial.Sub(l.now()); wait > 0 && l.dialErr != nil {
			err := l.dialErr
			l.mu.Unlock()
			return nil, fmt.Errorf("%w (next attempt in %s)", err, wait.Round(time.Millisecond))
		}
		ch := make(chan struct{})
		l.dialing = ch
		l.mu.Unlock()

		c, err := l.dial(ctx, timeout)

		l.mu.Lock()
		l.dialing = nil
		close(ch)
		switch {
		case err == nil:
			l.conn, l.dialErr, l.dialFailures = c, nil, 0
		case ctx.Err() == nil:
			// A failure of the server, not of this caller: back off.
			l.dialErr, l.nextDial = err, l.now().Add(redial.Next(l.dialFailures))
			l.dialFailures++
		}
		closed := l.closed
		l.mu.Unlock()
		if closed && c != nil {
			c.kill()
			return nil, fmt.Errorf("using %s: %w", l, net.ErrClosed)
		}
		return c, err
	}
}

// dial opens a new SSH connection and SFTP session within the timeout.
// A server has a key of each of several types and presents the one of the
// first type offered that it has. A fingerprint does not tell its key's
// type: when the key presented is refused and fingerprints are pinned,
// dial shakes hands again without that type, until the server presents a
// pinned key or has no other; the type that matched is offered first from
// then on.
func (l *sftpLink) dial(ctx context.Context, timeout time.Duration) (*sftpConn, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	offer := l.hk.offer()
	var (
		firstErr error           // the first refusal
		others   []ssh.PublicKey // the keys refused after it
	)
	for {
		c, key, err := l.dialOnce(ctx, offer)
		if err == nil {
			l.hk.accepted(key)
			l.log.Debug("connected", "host_key", key.Type(), "posix_rename", c.posixRename, "hardlink", c.hardlink, "fsync", c.fsync)
			go l.watch(c)
			return c, nil
		}
		if key != nil {
			if firstErr == nil {
				firstErr = err
			} else {
				others = append(others, key)
			}
			if next := l.hk.retryWithout(offer, key); len(next) > 0 && ctx.Err() == nil {
				offer = next
				continue
			}
		}
		if firstErr == nil {
			return nil, err
		}
		// Whatever ended the later handshakes, the refusal is the news.
		return nil, alsoRefused(firstErr, others)
	}
}

// dialOnce connects and shakes hands offering the host key algorithms
// offer. It returns the key the server presented: refused when err is a
// host key error, accepted when err is nil.
func (l *sftpLink) dialOnce(ctx context.Context, offer []string) (c *sftpConn, key ssh.PublicKey, err error) {
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", l.addr)
	if err != nil {
		return nil, nil, fmt.Errorf("connecting to %s: %w", l, err)
	}
	cfg := *l.sshCfg
	cfg.HostKeyAlgorithms = offer
	var refused bool
	cfg.HostKeyCallback = func(hostname string, remote net.Addr, k ssh.PublicKey) error {
		key = k
		err := l.hk.check(hostname, remote, k)
		refused = err != nil
		return err
	}
	// The handshake and the SFTP init take no context: close the socket if
	// ctx ends first.
	stop := context.AfterFunc(ctx, func() { _ = raw.Close() })
	c, err = l.handshake(raw, &cfg)
	if !stop() {
		if c != nil {
			c.kill()
		}
		_ = raw.Close()
		return nil, nil, fmt.Errorf("connecting to %s: %w", l, ctxError(ctx))
	}
	if err != nil {
		_ = raw.Close()
		if !refused {
			key = nil
		}
		return nil, key, err
	}
	return c, key, nil
}

func (l *sftpLink) handshake(raw net.Conn, cfg *ssh.ClientConfig) (*sftpConn, error) {
	conn, chans, reqs, err := ssh.NewClientConn(raw, l.addr, cfg)
	if err != nil {
		var algo *ssh.AlgorithmNegotiationError
		if errors.As(err, &algo) && algo.What == "host key" {
			// known_hosts (or the pins) hold only key types the server
			// does not offer: its key cannot be verified.
			return nil, fmt.Errorf("%w: %s offers host keys of type %s only, but known_hosts has none of these types for it (only %s); "+
				"if the server's keys were changed on purpose, add its key (ssh-keyscan -p PORT HOST), otherwise this may be an attack",
				ErrHostKeyMismatch, l, strings.Join(algo.RequestedAlgorithms, ", "), strings.Join(algo.SupportedAlgorithms, ", "))
		}
		if strings.Contains(err.Error(), "unable to authenticate") {
			return nil, fmt.Errorf("logging in to %s: %w; check the user name and the password or key", l, err)
		}
		return nil, fmt.Errorf("connecting to %s: %w", l, err)
	}
	client := ssh.NewClient(conn, chans, reqs)
	sc, err := sftp.NewClient(client)
	if err != nil {
		_ = client.Close()
		return nil, fmt.Errorf("starting the SFTP session on %s (is the sftp subsystem enabled?): %w", l, err)
	}
	c := &sftpConn{ssh: client, sftp: sc, dead: make(chan struct{})}
	_, c.posixRename = sc.HasExtension("posix-rename@openssh.com")
	_, c.hardlink = sc.HasExtension("hardlink@openssh.com")
	v, ok := sc.HasExtension("fsync@openssh.com")
	c.fsync = ok && v == "1"
	return c, nil
}

// watch marks c dead when either layer ends and sends keepalives; a
// keepalive without answer within the timeout closes the connection.
func (l *sftpLink) watch(c *sftpConn) {
	ended := make(chan struct{}, 2)
	go func() { _ = c.ssh.Wait(); ended <- struct{}{} }()
	go func() { _ = c.sftp.Wait(); ended <- struct{}{} }()
	tick := time.NewTicker(l.keepAlive)
	defer tick.Stop()
	for {
		select {
		case <-ended:
			c.kill()
			close(c.dead)
			l.mu.Lock()
			closed := l.closed
			l.mu.Unlock()
			if !closed {
				l.log.Info("SFTP connection closed; the next operation reconnects")
			}
			return
		case <-tick.C:
			go l.keepalive(c)
		}
	}
}

func (l *sftpLink) keepalive(c *sftpConn) {
	done := make(chan error, 1)
	go func() {
		// OpenSSH answers this unknown request with a failure: any answer
		// proves the connection is alive.
		_, _, err := c.ssh.SendRequest("keepalive@openssh.com", true, nil)
		done <- err
	}()
	t := time.NewTimer(l.timeout)
	defer t.Stop()
	select {
	case err := <-done:
		if err != nil {
			l.log.Warn("SFTP keepalive failed, closing the connection", "error", err)
			c.kill()
		}
	case <-t.C:
		l.log.Warn("SFTP keepalive unanswered, closing the connection", "timeout", l.timeout)
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
		if f.closed.Load() {
			cancel()
			return fmt.Errorf("using %s: %w", f, net.ErrClosed)
		}
		c, err := f.link.connect(octx, f.opts.Timeout)
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
