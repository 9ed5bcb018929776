// Package folder owns the one interface filebridge uses to reach a directory
// of files, whether it is local or on an SFTP server: list, stat, open,
// create atomically, rename without overwriting, replace, remove and mkdir -p.
//
// Every name passed to a Folder is a slash-separated path relative to the
// folder root ("" or "." is the root itself). Names are checked before any
// I/O: absolute paths, ".." components, backslashes, NUL and other control
// characters are refused with an error matching fs.ErrInvalid. Errors are
// normalised so that errors.Is(err, fs.ErrNotExist) and errors.Is(err,
// fs.ErrExist) read the same for both backends.
//
// pkg/sftp calls take no context: on SFTP, a call that outlives its
// deadline or whose context is cancelled closes the connection, and the
// next operation reconnects.
//
// The conformance suite in package foldertest pins down the shared
// behaviour; package sftptest provides SFTP servers for tests.
package folder

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"filebridge/internal/folderurl"
)

// Entry describes one file or directory of a Folder.
type Entry struct {
	// Name is the final element of the entry's path (no slash).
	Name    string
	Size    int64
	ModTime time.Time
	IsDir   bool
}

// Folder is a directory tree reached through a local path or SFTP. All
// methods are safe for concurrent use. Names are relative to the root.
type Folder interface {
	// List returns the direct children of dir sorted by name. Children whose
	// names are unsafe (separators, "..", control characters) and, on SFTP,
	// symbolic links are left out and logged as warnings.
	List(ctx context.Context, dir string) ([]Entry, error)
	// Stat describes name.
	Stat(ctx context.Context, name string) (Entry, error)
	// Open opens name for reading. The caller closes the reader. The
	// reader has a Stat method (fs.File's) describing the file opened.
	Open(ctx context.Context, name string) (io.ReadCloser, error)
	// CreateAtomic calls write with a writer on a temporary file in the same
	// directory ("."+base+".<random>.part"), makes it durable and renames it
	// to name without overwriting: it fails with fs.ErrExist if name exists.
	// A reader never sees a partial file under name. The temporary file is
	// removed on any failure, including an error returned by write.
	CreateAtomic(ctx context.Context, name string, write func(io.Writer) error) error
	// Rename moves from to to and never overwrites: fs.ErrExist when to
	// exists (the target is left unchanged).
	Rename(ctx context.Context, from, to string) error
	// Replace moves from to to, replacing to if it exists.
	Replace(ctx context.Context, from, to string) error
	// Remove removes a file or an empty directory.
	Remove(ctx context.Context, name string) error
	// MkdirAll creates dir and any missing parents; existing ones are fine.
	MkdirAll(ctx context.Context, dir string) error
	// String returns the folder URL for logs; it never holds a secret.
	String() string
	// Close releases the folder (closes the SFTP connection).
	Close() error
}

// Options configure Open. Only Location is used for a local folder.
type Options struct {
	// Location is the folder: a local directory or a directory on an
	// SFTP server, as folderurl.Parse read it from the configuration.
	Location folderurl.URL

	// Password is used for password and keyboard-interactive logins.
	Password string
	// PrivateKey is a PEM or OpenSSH private key for public-key login.
	PrivateKey []byte
	// PrivateKeyPassphrase decrypts PrivateKey when it is encrypted.
	PrivateKeyPassphrase string

	// KnownHostsFile is an OpenSSH known_hosts file holding the server key.
	KnownHostsFile string
	// HostKeyFingerprint pins the server key by its SHA-256 fingerprint
	// ("SHA256:..." as printed by ssh-keygen -lf); several may be given
	// separated by commas. At least one of KnownHostsFile and
	// HostKeyFingerprint is required: there is no insecure default.
	HostKeyFingerprint string

	// Timeout bounds every remote operation (each read or write call of a
	// transfer separately) and the connection set-up; default 30s. When it
	// expires the connection is closed and the next operation reconnects.
	Timeout time.Duration
	// KeepAlive is the interval of keepalive@openssh.com requests; default
	// 15s. A keepalive that fails closes the connection.
	KeepAlive time.Duration

	// Logger receives warnings and connection events; default slog.Default().
	Logger *slog.Logger

	// OnSkip, when set, is told of each entry List leaves out (dir, name
	// and why) instead of a warning in the log, so that the caller can
	// report it once rather than at every listing.
	OnSkip func(dir, name, reason string)
}

// skipped reports an entry List leaves out: to onSkip when set, else as a
// warning.
func skipped(log *slog.Logger, onSkip func(dir, name, reason string), dir, name, reason string) {
	if onSkip != nil {
		onSkip(dir, name, reason)
		return
	}
	log.Warn("skipping entry: "+reason, "dir", dir, "name", name)
}

// String describes the options without their secrets, so that printing
// them (%v, %+v) or logging them never shows a password or a key.
func (o Options) String() string {
	return fmt.Sprintf("{Location:%s Password:%s PrivateKey:%s KnownHostsFile:%s HostKeyFingerprint:%s Timeout:%s KeepAlive:%s}",
		o.Location, redacted(o.Password != ""), redacted(len(o.PrivateKey) > 0), o.KnownHostsFile, o.HostKeyFingerprint, o.Timeout, o.KeepAlive)
}

// LogValue is what slog records of the options: String.
func (o Options) LogValue() slog.Value { return slog.StringValue(o.String()) }

// Format prints String for every verb, %+v and %#v included.
func (o Options) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, o.String()) }

func redacted(set bool) string {
	if set {
		return "[redacted]"
	}
	return `""`
}

// Defaults for Options.
const (
	DefaultTimeout   = 30 * time.Second
	DefaultKeepAlive = 15 * time.Second
)

// Open opens the folder at opts.Location without touching it: a local root
// is not created (use MkdirAll(ctx, ".") to create it), and an SFTP folder
// connects (and verifies the host key) at its first operation, and again
// after its connection broke (the one reconnect layer: callers keep the
// folder and never reopen it).
func Open(ctx context.Context, opts Options) (Folder, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.KeepAlive <= 0 {
		opts.KeepAlive = DefaultKeepAlive
	}
	switch loc := opts.Location; loc.Scheme {
	case folderurl.SchemeFile:
		return openLocal(loc.Path, opts)
	case folderurl.SchemeSFTP:
		return openSFTP(loc, opts)
	default:
		return nil, fmt.Errorf("opening folder: no location (scheme %q): give a local directory or an sftp:// url", loc.Scheme)
	}
}
