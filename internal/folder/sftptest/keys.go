// Package sftptest runs SFTP servers for tests: an in-process server over
// pkg/sftp's strict in-memory backend (NewServer) and a real OpenSSH sshd
// on a loopback port (StartSSHD). Both listen on 127.0.0.1 only, use
// throwaway keys and stop when the test ends.
package sftptest

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// keyPair is a throwaway ed25519 key.
type keyPair struct {
	signer ssh.Signer
	pem    []byte // OpenSSH private key file content
}

func newKeyPair(t testing.TB) keyPair {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatalf("generating key: %v", err)
	}
	return pairOf(t, priv)
}

// newRSAKeyPair returns a throwaway 2048-bit RSA key.
func newRSAKeyPair(t testing.TB) keyPair {
	t.Helper()
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatalf("generating key: %v", err)
	}
	return pairOf(t, priv)
}

// pairOf wraps a private key as a signer and encodes it in OpenSSH's PEM.
func pairOf(t testing.TB, priv crypto.PrivateKey) keyPair {
	t.Helper()
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatalf("wrapping key: %v", err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatalf("encoding key: %v", err)
	}
	return keyPair{signer: signer, pem: pem.EncodeToMemory(block)}
}

// endpoint is where a test server listens and how a client logs in to it
// and trusts it.
type endpoint struct {
	hostKeyInfo

	// Addr is "127.0.0.1:port".
	Addr string
	// User logs in with ClientKey (an OpenSSH private key).
	User      string
	ClientKey []byte
	// HostKey is the server's public host key.
	HostKey ssh.PublicKey

	clientAuth ssh.Signer
}

// URL returns the folder URL of dir, an absolute path on the server.
func (e *endpoint) URL(dir string) string {
	return fmt.Sprintf("sftp://%s@%s%s", e.User, e.Addr, dir)
}

// Client returns a raw pkg/sftp client logged in with the client key.
func (e *endpoint) Client(t testing.TB) *sftp.Client {
	return rawClient(t, e.Addr, e.User, ssh.PublicKeys(e.clientAuth), e.HostKey)
}

// hostKeyInfo is what a client needs to trust a server key.
type hostKeyInfo struct {
	// KnownHostsLine is the known_hosts line for the server's host key.
	KnownHostsLine string
	// KnownHostsFile is a known_hosts file holding only KnownHostsLine.
	KnownHostsFile string
	// Fingerprint is the SHA-256 fingerprint of the host key ("SHA256:...").
	Fingerprint string
}

func newHostKeyInfo(t testing.TB, addr string, key ssh.PublicKey) hostKeyInfo {
	t.Helper()
	line := knownhosts.Line([]string{knownhosts.Normalize(addr)}, key)
	file := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(file, []byte(line+"\n"), 0o600); err != nil {
		t.Fatalf("writing known_hosts: %v", err)
	}
	return hostKeyInfo{KnownHostsLine: line, KnownHostsFile: file, Fingerprint: ssh.FingerprintSHA256(key)}
}

// rawClient opens a plain pkg/sftp client, closed when the test ends, for
// setting up what a Folder refuses to create (links, odd names).
func rawClient(t testing.TB, addr, user string, auth ssh.AuthMethod, hostKey ssh.PublicKey) *sftp.Client {
	t.Helper()
	conn, err := ssh.Dial("tcp", addr, &ssh.ClientConfig{
		User:            user,
		Auth:            []ssh.AuthMethod{auth},
		HostKeyCallback: ssh.FixedHostKey(hostKey),
	})
	if err != nil {
		t.Fatalf("dialling %s: %v", addr, err)
	}
	c, err := sftp.NewClient(conn)
	if err != nil {
		_ = conn.Close()
		t.Fatalf("starting SFTP on %s: %v", addr, err)
	}
	t.Cleanup(func() {
		_ = c.Close()
		_ = conn.Close()
	})
	return c
}

// WriteFile writes data to the file p on the server through c.
func WriteFile(t testing.TB, c *sftp.Client, p string, data []byte) {
	t.Helper()
	f, err := c.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// ReadFile returns the content of the file p on the server, read through c.
func ReadFile(t testing.TB, c *sftp.Client, p string) []byte {
	t.Helper()
	f, err := c.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
