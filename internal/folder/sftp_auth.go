package folder

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Host key errors, wrapped by the error a refused connection returns.
var (
	// ErrHostKeyUnknown: known_hosts has no key for the server.
	ErrHostKeyUnknown = errors.New("SSH host key is unknown")
	// ErrHostKeyMismatch: the server key differs from the known or pinned one.
	ErrHostKeyMismatch = errors.New("SSH host key does not match")
	// ErrKnownHostsMissing: the known_hosts file does not exist (it is
	// not fs.ErrNotExist, which says the folder is missing).
	ErrKnownHostsMissing = errors.New("the known_hosts file is missing")
)

// sshClientConfig builds the SSH client configuration: the login methods
// from opts and the host key check for hostport ("host:port"), which
// sets HostKeyCallback and HostKeyAlgorithms at each handshake.
func sshClientConfig(user, hostport string, opts Options) (*ssh.ClientConfig, *hostKeyChecker, error) {
	auth, err := authMethods(opts)
	if err != nil {
		return nil, nil, err
	}
	hk, err := newHostKeyChecker(hostport, opts)
	if err != nil {
		return nil, nil, err
	}
	return &ssh.ClientConfig{User: user, Auth: auth, Timeout: opts.Timeout}, hk, nil
}

// authMethods returns public-key login first, then password and
// keyboard-interactive (answered with the password).
func authMethods(opts Options) ([]ssh.AuthMethod, error) {
	var methods []ssh.AuthMethod
	if len(opts.PrivateKey) > 0 {
		var signer ssh.Signer
		var err error
		if opts.PrivateKeyPassphrase != "" {
			signer, err = ssh.ParsePrivateKeyWithPassphrase(opts.PrivateKey, []byte(opts.PrivateKeyPassphrase))
		} else {
			signer, err = ssh.ParsePrivateKey(opts.PrivateKey)
		}
		var missing *ssh.PassphraseMissingError
		switch {
		case errors.As(err, &missing):
			return nil, errors.New("reading the SFTP private key: the key is encrypted; give its passphrase")
		case err != nil:
			// The parser's message never includes key material.
			return nil, fmt.Errorf("reading the SFTP private key: %w", err)
		}
		methods = append(methods, ssh.PublicKeys(signer))
	}
	if opts.Password != "" {
		pw := opts.Password
		methods = append(methods,
			ssh.Password(pw),
			ssh.KeyboardInteractive(func(_, _ string, questions []string, _ []bool) ([]string, error) {
				answers := make([]string, len(questions))
				for i := range answers {
					answers[i] = pw
				}
				return answers, nil
			}))
	}
	if len(methods) == 0 {
		return nil, errors.New("no SFTP login method: give a password or a private key")
	}
	return methods, nil
}

// hostKeyChecker verifies a server key against a known_hosts file and/or
// pinned SHA-256 fingerprints. Either one accepting the key is enough.
type hostKeyChecker struct {
	hostport   string
	khFile     string
	known      ssh.HostKeyCallback
	pins       []string
	algorithms []string // host key algorithms of the known keys, for the handshake

	mu sync.Mutex
	// matched is the type of the pinned key the server last presented:
	// its algorithms are offered first, so a reconnection needs one
	// handshake.
	matched string
}

func newHostKeyChecker(hostport string, opts Options) (*hostKeyChecker, error) {
	c := &hostKeyChecker{hostport: hostport, khFile: opts.KnownHostsFile}
	for _, p := range strings.Split(opts.HostKeyFingerprint, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !strings.HasPrefix(p, "SHA256:") {
			return nil, fmt.Errorf("host key fingerprint %q: expected the SHA256:... form printed by ssh-keygen -lf", p)
		}
		c.pins = append(c.pins, strings.TrimRight(p, "="))
	}
	if opts.KnownHostsFile == "" && len(c.pins) == 0 {
		return nil, fmt.Errorf("no way to verify the SSH host key of %s: set a known_hosts file or a host key fingerprint (there is no insecure default)", hostport)
	}
	if opts.KnownHostsFile != "" {
		cb, err := knownhosts.New(opts.KnownHostsFile)
		if errors.Is(err, fs.ErrNotExist) {
			// Not the folder missing: say which file, and how to fill it.
			host, port, serr := net.SplitHostPort(hostport)
			if serr != nil {
				host, port = hostport, "22"
			}
			return nil, fmt.Errorf("%w: %s does not exist; fill it with the server's key: ssh-keyscan -p %s %s >> %s, "+
				"then check the fingerprint it shows (ssh-keygen -lf %s) with the server's administrator",
				ErrKnownHostsMissing, opts.KnownHostsFile, port, host, opts.KnownHostsFile, opts.KnownHostsFile)
		}
		if err != nil {
			return nil, fmt.Errorf("reading known_hosts %s: %w", opts.KnownHostsFile, err)
		}
		c.known = cb
		c.algorithms = knownAlgorithms(cb, hostport)
	}
	if len(c.algorithms) == 0 || len(c.pins) > 0 {
		// No known key, or a pinned key whose type a fingerprint does not
		// tell: ask for the key types in OpenSSH's order of preference, so
		// the key offered is the one ssh-keyscan and ssh-keygen -lf show first.
		c.algorithms = appendNew(c.algorithms, preferredHostKeyAlgorithms...)
	}
	return c, nil
}

// preferredHostKeyAlgorithms follows OpenSSH's client default order.
var preferredHostKeyAlgorithms = []string{
	ssh.KeyAlgoED25519,
	ssh.KeyAlgoECDSA256, ssh.KeyAlgoECDSA384, ssh.KeyAlgoECDSA521,
	ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256,
}

// knownAlgorithms asks the known_hosts callback which keys it holds for
// hostport (by checking a key that cannot be there) and returns the host
// key algorithms that verify them, so a server that has several keys
// offers one that is known. It returns nil when the host is unknown.
func knownAlgorithms(cb ssh.HostKeyCallback, hostport string) []string {
	probe, err := ssh.NewPublicKey(ed25519.PublicKey(make([]byte, ed25519.PublicKeySize)))
	if err != nil {
		return nil
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil
	}
	p, _ := strconv.Atoi(port)
	remote := &net.TCPAddr{IP: net.ParseIP(host), Port: p}
	if remote.IP == nil {
		remote.IP = net.IPv4zero
	}
	var ke *knownhosts.KeyError
	if err := cb(hostport, remote, probe); !errors.As(err, &ke) {
		return nil
	}
	var algos []string
	for _, k := range ke.Want {
		if t := k.Key.Type(); t == ssh.KeyAlgoRSA {
			algos = appendNew(algos, ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA)
		} else {
			algos = appendNew(algos, t)
		}
	}
	return algos
}

// appendNew appends to list the items it does not hold yet.
func appendNew(list []string, items ...string) []string {
	for _, s := range items {
		if !slices.Contains(list, s) {
			list = append(list, s)
		}
	}
	return list
}

// offer returns the host key algorithms to offer: all that may verify a
// known or pinned key, those of the pinned key the server presented last
// first.
func (c *hostKeyChecker) offer() []string {
	c.mu.Lock()
	matched := c.matched
	c.mu.Unlock()
	first := slices.DeleteFunc(slices.Clone(c.algorithms), func(a string) bool { return keyType(a) != matched })
	rest := slices.DeleteFunc(slices.Clone(c.algorithms), func(a string) bool { return keyType(a) == matched })
	return append(first, rest...)
}

// accepted remembers the type of the key a server was accepted with,
// when fingerprints are pinned (a fingerprint does not tell the type).
func (c *hostKeyChecker) accepted(key ssh.PublicKey) {
	if len(c.pins) == 0 || key == nil {
		return
	}
	c.mu.Lock()
	c.matched = key.Type()
	c.mu.Unlock()
}

// retryWithout returns the algorithms of offered left once the refused
// key's type is taken out, or nil when another handshake cannot help: no
// fingerprint is pinned (known_hosts gave the algorithms of the keys it
// knows already) or no other type is left.
func (c *hostKeyChecker) retryWithout(offered []string, refused ssh.PublicKey) []string {
	if len(c.pins) == 0 || refused == nil {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(offered), func(a string) bool { return keyType(a) == refused.Type() })
}

// alsoRefused adds to the error of the first refused key the other keys
// the server presented, one handshake each, none accepted either.
func alsoRefused(first error, others []ssh.PublicKey) error {
	if len(others) == 0 {
		return first
	}
	var keys []string
	for _, k := range others {
		keys = append(keys, fmt.Sprintf("the %s key %s", k.Type(), ssh.FingerprintSHA256(k)))
	}
	return fmt.Errorf("%w; it also has %s, not accepted either", first, strings.Join(keys, " and "))
}

// keyType is the type of the keys a host key algorithm verifies.
func keyType(algo string) string {
	switch algo {
	case ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSASHA512:
		return ssh.KeyAlgoRSA
	}
	return algo
}

func (c *hostKeyChecker) check(hostname string, remote net.Addr, key ssh.PublicKey) error {
	fp := ssh.FingerprintSHA256(key)
	if slices.Contains(c.pins, fp) {
		return nil
	}
	if c.known == nil {
		return fmt.Errorf("%w: %s presented the %s key %s, but the pinned fingerprint is %s; "+
			"if the server key was changed on purpose, update the fingerprint, otherwise this may be an attack",
			ErrHostKeyMismatch, c.hostport, key.Type(), fp, strings.Join(c.pins, ", "))
	}
	err := c.known(hostname, remote, key)
	if err == nil {
		return nil
	}
	var ke *knownhosts.KeyError
	var re *knownhosts.RevokedError
	switch {
	case errors.As(err, &re):
		return fmt.Errorf("%w: %s presented the %s key %s, which %s:%d marks as revoked",
			ErrHostKeyMismatch, c.hostport, key.Type(), fp, re.Revoked.Filename, re.Revoked.Line)
	case errors.As(err, &ke) && len(ke.Want) == 0:
		return fmt.Errorf("%w: %s presented the %s key %s, which is not in %s; "+
			"check that fingerprint with the server's administrator, then add the key "+
			"(for example: ssh-keyscan -p PORT HOST >> %s)",
			ErrHostKeyUnknown, c.hostport, key.Type(), fp, c.khFile, c.khFile)
	case errors.As(err, &ke):
		var want []string
		for _, k := range ke.Want {
			want = append(want, fmt.Sprintf("%s %s (%s:%d)", k.Key.Type(), ssh.FingerprintSHA256(k.Key), k.Filename, k.Line))
		}
		return fmt.Errorf("%w: %s presented the %s key %s, but known_hosts expects %s; "+
			"this may be an attack: if the server key was changed on purpose, replace its line in %s",
			ErrHostKeyMismatch, c.hostport, key.Type(), fp, strings.Join(want, ", "), c.khFile)
	default:
		return fmt.Errorf("checking the host key of %s: %w", c.hostport, err)
	}
}
