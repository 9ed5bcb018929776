// Package folderurl reads the url of an inbox or outbox folder once, into
// a value the configuration keeps and the folder package opens: a local
// directory or a directory on an SFTP server. It is the one parser of
// folder urls.
package folderurl

import (
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// URL schemes of folders.
const (
	SchemeFile = "file"
	SchemeSFTP = "sftp"
)

// URL is a parsed folder url.
type URL struct {
	Scheme string // SchemeFile or SchemeSFTP
	// Path is, for a local folder, the absolute cleaned directory; for an
	// SFTP folder the cleaned path on the server: absolute, or relative to
	// the login directory ("." for the login directory itself).
	Path string
	User string // sftp only
	Host string // sftp only
	Port int    // sftp only, default 22
}

// Local is the local directory dir (made absolute when it can be).
func Local(dir string) URL {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return URL{Scheme: SchemeFile, Path: filepath.Clean(dir)}
}

// IsSFTP reports whether the folder is on an SFTP server.
func (u URL) IsSFTP() bool { return u.Scheme == SchemeSFTP }

// Addr is host:port of an SFTP folder.
func (u URL) Addr() string {
	if u.Host == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", bracketHost(u.Host), u.Port)
}

// String prints the folder as a url, without any secret, escaped so that
// Parse reads the same folder back: "#", "%", "?" and spaces in a path are
// percent-encoded. An SFTP folder in the login directory (Path ".") has an
// empty path; one under it is written "/~/dir".
func (u URL) String() string {
	if u.IsSFTP() {
		p := u.Path
		switch {
		case p == ".":
			p = ""
		case p != "" && !strings.HasPrefix(p, "/"):
			p = "/~/" + p
		}
		return (&url.URL{Scheme: SchemeSFTP, User: url.User(u.User), Host: u.Addr(), Path: p}).String()
	}
	p := filepath.ToSlash(u.Path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive: file:///C:/dir
	}
	return (&url.URL{Scheme: SchemeFile, Path: p}).String()
}

func bracketHost(h string) string {
	if strings.Contains(h, ":") {
		return "[" + h + "]"
	}
	return h
}

// Parse reads a folder url: "file:///dir", a plain path (relative to dir,
// the config file's folder) or "sftp://user@host[:port]/dir"
// ("sftp://user@host/~/dir" for a directory under the login directory).
// A password in the url is refused without echoing the url.
func Parse(raw, dir string) (URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return URL{}, fmt.Errorf("url is required: \"file:///srv/edi/in\", a path, or \"sftp://user@host/dir\"")
	}
	if !strings.Contains(raw, "://") {
		if !filepath.IsAbs(raw) {
			raw = filepath.Join(dir, raw)
		}
		return URL{Scheme: SchemeFile, Path: filepath.Clean(raw)}, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		if passwordIn(raw) {
			return URL{}, fmt.Errorf("the url cannot be read and seems to carry a password: remove it and set password_env or password_file")
		}
		return URL{}, fmt.Errorf("url %q cannot be read: %v", raw, err)
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			// Do not echo raw: it holds the password.
			return URL{}, fmt.Errorf("the %s url must not carry a password: remove it and set password_env or password_file", strings.ToLower(u.Scheme))
		}
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return URL{}, fmt.Errorf("url %q: drop the query and fragment (\"?\" and \"#\" are not used)", raw)
	}
	switch strings.ToLower(u.Scheme) {
	case SchemeFile:
		if u.Host != "" && u.Host != "localhost" {
			return URL{}, fmt.Errorf("url %q: a file url has no host: write \"file:///dir\" (three slashes)", raw)
		}
		if u.Path == "" || !strings.HasPrefix(u.Path, "/") {
			return URL{}, fmt.Errorf("url %q: a file url needs an absolute path, e.g. \"file:///srv/edi/in\"; write a relative path without \"file://\"", raw)
		}
		return URL{Scheme: SchemeFile, Path: filepath.Clean(filepath.FromSlash(u.Path))}, nil
	case SchemeSFTP:
		return parseSFTP(raw, u)
	}
	return URL{}, fmt.Errorf("url %q: scheme %q is not supported: use \"file:///dir\", a path, or \"sftp://user@host[:port]/dir\"", raw, u.Scheme)
}

// passwordIn reports whether raw looks like scheme://user:password@...
func passwordIn(raw string) bool {
	_, rest, _ := strings.Cut(raw, "://")
	userinfo, _, ok := strings.Cut(rest, "@")
	return ok && !strings.Contains(userinfo, "/") && strings.Contains(userinfo, ":")
}

func parseSFTP(raw string, u *url.URL) (URL, error) {
	f := URL{Scheme: SchemeSFTP, Host: u.Hostname(), Port: 22}
	if u.User != nil {
		f.User = u.User.Username()
	}
	if f.User == "" {
		return URL{}, fmt.Errorf("url %q: the sftp url needs a user: \"sftp://user@%s/dir\"", raw, u.Host)
	}
	if f.Host == "" {
		return URL{}, fmt.Errorf("url %q: the sftp url needs a host: \"sftp://user@host/dir\"", raw)
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return URL{}, fmt.Errorf("url %q: port %q is not a number from 1 to 65535", raw, p)
		}
		f.Port = n
	}
	switch p := u.Path; {
	case p == "" || p == "/~" || p == "/~/":
		f.Path = "."
	case strings.HasPrefix(p, "/~/"):
		f.Path = path.Clean(strings.TrimPrefix(p, "/~/"))
	default:
		f.Path = path.Clean(p)
	}
	return f, nil
}
