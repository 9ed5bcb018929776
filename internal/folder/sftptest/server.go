package sftptest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"

	"filebridge/internal/folder"
	"filebridge/internal/folderurl"
)

// Config changes how NewServerConfig's server behaves.
type Config struct {
	// Handlers, when set, wraps the in-memory handlers, for example to
	// block or fail some requests.
	Handlers func(sftp.Handlers) sftp.Handlers
	// ExtraHostKeys are offered besides the generated ed25519 host key.
	ExtraHostKeys []ssh.Signer
	// NoPassword refuses password and keyboard-interactive logins.
	NoPassword bool
	// KeyboardInteractiveOnly accepts the password only through the
	// keyboard-interactive method, as some appliances do.
	KeyboardInteractiveOnly bool
	// OverwritingRename makes a plain rename replace an existing target
	// (POSIX rename(2), as MySecureShell does) instead of failing.
	OverwritingRename bool
	// HideExtensions are SFTP extensions the server neither advertises
	// nor serves: "hardlink@openssh.com", "posix-rename@openssh.com".
	HideExtensions []string
	// OneConnectionPerUser refuses the sftp subsystem on a connection
	// while another connection of the same user is open, as servers that
	// limit each user to one connection do.
	OneConnectionPerUser bool
}

// Extensions the in-memory server has, which Config.HideExtensions hides.
const (
	ExtHardlink    = "hardlink@openssh.com"
	ExtPosixRename = "posix-rename@openssh.com"
)

// NewOverwritingServer starts a server like MySecureShell 2.0's: a plain
// rename overwrites an existing target, and neither posix-rename nor
// hardlink is there.
func NewOverwritingServer(t testing.TB) *Server {
	return NewServerConfig(t, Config{OverwritingRename: true, HideExtensions: []string{ExtHardlink, ExtPosixRename}})
}

// Server is an in-process SSH server whose sftp subsystem is
// sftp.NewRequestServer over sftp.InMemHandler(): a strict backend where a
// plain rename onto an existing file fails, as on OpenSSH. Its files live
// in memory, shared by all connections, and start with just "/".
type Server struct {
	endpoint
	// Password logs User in too.
	Password string

	handlers sftp.Handlers
	hide     []string // extensions not advertised
	ln       net.Listener

	keepalive chan struct{} // a value per keepalive request received (dropped when full)

	onePerUser bool

	mu        sync.Mutex
	conns     map[net.Conn]struct{}
	users     map[string]int // logged-in connections by user
	accepted  int
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// NewServer starts a server with password and key logins; it stops when
// the test ends.
func NewServer(t testing.TB) *Server { return NewServerConfig(t, Config{}) }

// NewServerConfig starts a server configured by cfg.
func NewServerConfig(t testing.TB, cfg Config) *Server {
	t.Helper()
	host := newKeyPair(t)
	client := newKeyPair(t)
	s := &Server{
		endpoint: endpoint{User: "filebridge", ClientKey: client.pem, HostKey: host.signer.PublicKey(), clientAuth: client.signer},
		Password: "s3cret-test-password", handlers: sftp.InMemHandler(),
		conns: map[net.Conn]struct{}{}, users: map[string]int{}, keepalive: make(chan struct{}, 64),
		onePerUser: cfg.OneConnectionPerUser,
	}
	if cfg.OverwritingRename || slices.Contains(cfg.HideExtensions, ExtHardlink) {
		s.handlers.FileCmd = renames{FileCmder: s.handlers.FileCmd, overwrite: cfg.OverwritingRename, noLink: slices.Contains(cfg.HideExtensions, ExtHardlink)}
	}
	s.hide = cfg.HideExtensions
	if cfg.Handlers != nil {
		s.handlers = cfg.Handlers(s.handlers)
	}
	scfg := &ssh.ServerConfig{
		PublicKeyCallback: func(c ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
			if (c.User() == s.User || c.User() == adminUser) && bytes.Equal(key.Marshal(), client.signer.PublicKey().Marshal()) {
				return nil, nil
			}
			return nil, errors.New("key refused")
		},
	}
	if !cfg.NoPassword {
		if !cfg.KeyboardInteractiveOnly {
			scfg.PasswordCallback = func(c ssh.ConnMetadata, pw []byte) (*ssh.Permissions, error) {
				if c.User() == s.User && string(pw) == s.Password {
					return nil, nil
				}
				return nil, errors.New("password refused")
			}
		}
		scfg.KeyboardInteractiveCallback = func(c ssh.ConnMetadata, ch ssh.KeyboardInteractiveChallenge) (*ssh.Permissions, error) {
			ans, err := ch(c.User(), "", []string{"Password: "}, []bool{false})
			if err == nil && len(ans) == 1 && c.User() == s.User && ans[0] == s.Password {
				return nil, nil
			}
			return nil, errors.New("password refused")
		}
	}
	scfg.AddHostKey(host.signer)
	for _, k := range cfg.ExtraHostKeys {
		scfg.AddHostKey(k)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listening: %v", err)
	}
	s.ln = ln
	s.Addr = ln.Addr().String()
	s.hostKeyInfo = newHostKeyInfo(t, s.Addr, s.HostKey)
	s.wg.Add(1)
	go s.accept(scfg)
	t.Cleanup(s.Close)
	return s
}

// adminUser is the user Client logs in as: the test's own view of the
// files, which OneConnectionPerUser does not count against User.
const adminUser = "sftptest-admin"

// Client returns a raw pkg/sftp client on the server's files, logged in
// with the client key as another user than User.
func (s *Server) Client(t testing.TB) *sftp.Client {
	return rawClient(t, s.Addr, adminUser, ssh.PublicKeys(s.clientAuth), s.HostKey)
}

// Options returns folder options for dir with password login, the
// known_hosts file and a 10s operation timeout.
func (s *Server) Options(dir string) folder.Options {
	return folder.Options{
		Location: location(s.URL(dir)), Password: s.Password,
		KnownHostsFile: s.KnownHostsFile, Timeout: 10 * time.Second,
	}
}

// KillConnections closes every open client connection abruptly (files
// are kept) and returns how many there were.
func (s *Server) KillConnections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.conns)
	for c := range s.conns {
		_ = c.Close()
	}
	return n
}

// KeepAlives receives a value for each keepalive@openssh.com request the
// server answered (up to 64 not yet received).
func (s *Server) KeepAlives() <-chan struct{} { return s.keepalive }

// globalRequests answers keepalive@openssh.com with a failure, as OpenSSH
// does, counting them, and refuses every other global request.
func (s *Server) globalRequests(reqs <-chan *ssh.Request) {
	for r := range reqs {
		if r.Type == "keepalive@openssh.com" {
			select {
			case s.keepalive <- struct{}{}:
			default:
			}
		}
		if r.WantReply {
			_ = r.Reply(false, nil)
		}
	}
}

// Accepted returns how many TCP connections the server has accepted.
func (s *Server) Accepted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accepted
}

// Close stops listening and closes every connection. It is called when
// the test ends; calling it earlier simulates a server going away.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		_ = s.ln.Close()
		s.KillConnections()
		s.wg.Wait()
	})
}

func (s *Server) accept(cfg *ssh.ServerConfig) {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[nc] = struct{}{}
		s.accepted++
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serveConn(nc, cfg)
			s.mu.Lock()
			delete(s.conns, nc)
			s.mu.Unlock()
		}()
	}
}

func (s *Server) serveConn(nc net.Conn, cfg *ssh.ServerConfig) {
	defer nc.Close()
	sc, chans, reqs, err := ssh.NewServerConn(nc, cfg)
	if err != nil {
		return
	}
	defer sc.Close()
	s.mu.Lock()
	s.users[sc.User()]++
	refuse := s.onePerUser && s.users[sc.User()] > 1
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.users[sc.User()]--
		s.mu.Unlock()
	}()
	go s.globalRequests(reqs)
	var wg sync.WaitGroup
	defer wg.Wait()
	for nch := range chans {
		if nch.ChannelType() != "session" {
			_ = nch.Reject(ssh.UnknownChannelType, "only sessions")
			continue
		}
		ch, creqs, err := nch.Accept()
		if err != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer ch.Close()
			for req := range creqs {
				ok := req.Type == "subsystem" && len(req.Payload) > 4 && string(req.Payload[4:]) == "sftp" && !refuse
				_ = req.Reply(ok, nil)
				if ok {
					wg.Add(1)
					go func() {
						defer wg.Done()
						var rw io.ReadWriteCloser = ch
						if len(s.hide) > 0 {
							rw = &versionFilter{ReadWriteCloser: ch, hide: s.hide}
						}
						rs := sftp.NewRequestServer(rw, s.handlers)
						_ = rs.Serve()
						_ = rs.Close()
						_ = ch.Close()
					}()
				}
			}
		}()
	}
}

// location is the parsed url of a test server's folder (its own urls
// always parse).
func location(url string) folderurl.URL {
	loc, err := folderurl.Parse(url, "")
	if err != nil {
		panic(err)
	}
	return loc
}

// renames changes the in-memory backend's renames: a plain rename
// replaces its target (overwrite), hard links are refused (noLink).
type renames struct {
	sftp.FileCmder
	overwrite, noLink bool
}

func (r renames) Filecmd(req *sftp.Request) error {
	switch req.Method {
	case "Rename":
		if pr, ok := r.FileCmder.(sftp.PosixRenameFileCmder); ok && r.overwrite {
			return pr.PosixRename(req)
		}
	case "Link":
		if r.noLink {
			return sftp.ErrSSHFxOpUnsupported
		}
	}
	return r.FileCmder.Filecmd(req)
}

// versionFilter leaves the hidden extensions out of the server's
// SSH_FXP_VERSION packet, the first it writes (in one write).
type versionFilter struct {
	io.ReadWriteCloser
	hide []string
	done bool
}

// versionMsg is an SSH_FXP_VERSION packet after its length; Rest holds
// its extension pairs.
type versionMsg struct {
	Version uint32 `sshtype:"2"`
	Rest    []byte `ssh:"rest"`
}

type extensionPair struct {
	Name, Data string
	Rest       []byte `ssh:"rest"`
}

func (v *versionFilter) Write(p []byte) (int, error) {
	if v.done {
		return v.ReadWriteCloser.Write(p)
	}
	v.done = true
	var msg versionMsg
	if len(p) < 4 {
		return 0, fmt.Errorf("a %d-byte first packet is not SSH_FXP_VERSION", len(p))
	}
	if err := ssh.Unmarshal(p[4:], &msg); err != nil {
		return 0, fmt.Errorf("reading SSH_FXP_VERSION: %w", err)
	}
	var kept []byte
	for rest := msg.Rest; len(rest) > 0; {
		var e extensionPair
		if err := ssh.Unmarshal(rest, &e); err != nil {
			return 0, fmt.Errorf("reading SSH_FXP_VERSION's extensions: %w", err)
		}
		rest = e.Rest
		if !slices.Contains(v.hide, e.Name) {
			kept = append(kept, ssh.Marshal(extensionPair{Name: e.Name, Data: e.Data})...)
		}
	}
	body := ssh.Marshal(versionMsg{Version: msg.Version, Rest: kept})
	if _, err := v.ReadWriteCloser.Write(binary.BigEndian.AppendUint32(nil, uint32(len(body)))); err != nil {
		return 0, err
	}
	if _, err := v.ReadWriteCloser.Write(body); err != nil {
		return 0, err
	}
	return len(p), nil
}
