package config

import (
	"net/url"
	"path/filepath"
	"testing"

	"filebridge/internal/folderurl"
)

// TestFolderURLString: String is an escaped URL that url.Parse and the
// config's own url parsing read back as the same folder, whatever the
// path holds ("#", "%", "?", spaces).
func TestFolderURLString(t *testing.T) {
	local := func(p string) FolderURL { return FolderURL{Scheme: SchemeFile, Path: filepath.FromSlash(p)} }
	sftp := func(host string, port int, p string) FolderURL {
		return FolderURL{Scheme: SchemeSFTP, User: "edi", Host: host, Port: port, Path: p}
	}
	tests := []struct {
		name string
		in   FolderURL
		want string
	}{
		{"plain local", local("/srv/edi/in"), "file:///srv/edi/in"},
		{"local with #", local("/srv/edi/in #1"), "file:///srv/edi/in%20%231"},
		{"local with % and ?", local("/srv/100%/in?x"), "file:///srv/100%25/in%3Fx"},
		{"sftp", sftp("files.example.com", 22, "/outgoing"), "sftp://edi@files.example.com:22/outgoing"},
		{"sftp with #", sftp("files.example.com", 2222, "/in #2/%41?"), "sftp://edi@files.example.com:2222/in%20%232/%2541%3F"},
		{"sftp login directory", sftp("files.example.com", 22, "."), "sftp://edi@files.example.com:22"},
		{"sftp under the login directory", sftp("files.example.com", 22, "in"), "sftp://edi@files.example.com:22/~/in"},
		{"sftp ipv6", sftp("::1", 2222, "/in"), "sftp://edi@[::1]:2222/in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in.String()
			if got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			u, err := url.Parse(got)
			if err != nil {
				t.Fatalf("url.Parse(%q): %v", got, err)
			}
			if u.Fragment != "" || u.RawQuery != "" {
				t.Errorf("%q parses with fragment %q and query %q", got, u.Fragment, u.RawQuery)
			}
			back, err := folderurl.Parse(got, "")
			if err != nil {
				t.Fatalf("parsing %q back: %v", got, err)
			}
			if back != tt.in {
				t.Errorf("%q parses back as %+v, want %+v", got, back, tt.in)
			}
		})
	}
}
