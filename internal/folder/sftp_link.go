package folder

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
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
