package folderurl

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, raw string
		want      URL
		wantErr   string
	}{
		{name: "relative path", raw: "in", want: URL{Scheme: SchemeFile, Path: filepath.Join(dir, "in")}},
		{name: "absolute path", raw: "/srv/edi/../edi/in", want: URL{Scheme: SchemeFile, Path: "/srv/edi/in"}},
		{name: "file url", raw: "file:///srv/edi/in", want: URL{Scheme: SchemeFile, Path: "/srv/edi/in"}},
		{name: "file url escaped", raw: "file:///srv/a%23b", want: URL{Scheme: SchemeFile, Path: "/srv/a#b"}},
		{name: "sftp", raw: "sftp://edi@files.example.com/in", want: URL{Scheme: SchemeSFTP, User: "edi", Host: "files.example.com", Port: 22, Path: "/in"}},
		{name: "sftp port", raw: "sftp://edi@127.0.0.1:2222/in/", want: URL{Scheme: SchemeSFTP, User: "edi", Host: "127.0.0.1", Port: 2222, Path: "/in"}},
		{name: "sftp login directory", raw: "sftp://edi@h", want: URL{Scheme: SchemeSFTP, User: "edi", Host: "h", Port: 22, Path: "."}},
		{name: "sftp under the login directory", raw: "sftp://edi@h/~/in", want: URL{Scheme: SchemeSFTP, User: "edi", Host: "h", Port: 22, Path: "in"}},
		{name: "sftp ipv6", raw: "sftp://edi@[::1]:2222/in", want: URL{Scheme: SchemeSFTP, User: "edi", Host: "::1", Port: 2222, Path: "/in"}},
		{name: "empty", raw: " ", wantErr: "url is required"},
		{name: "unknown scheme", raw: "ftp://h/x", wantErr: "not supported"},
		{name: "file with host", raw: "file://h/x", wantErr: "has no host"},
		{name: "query", raw: "sftp://edi@h/in?x=1", wantErr: "drop the query"},
		{name: "no user", raw: "sftp://h/in", wantErr: "needs a user"},
		{name: "bad port", raw: "sftp://edi@h:0/in", wantErr: "port"},
		{name: "password", raw: "sftp://edi:hunter2@h/in", wantErr: "must not carry a password"},
		{name: "password in an unreadable url", raw: "sftp://edi:hunter2@h:x/in", wantErr: "seems to carry a password"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.raw, dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse(%q) = %+v, %v; want an error containing %q", tt.raw, got, err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "hunter2") {
					t.Errorf("the error shows the password: %v", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Parse(%q) = %+v, %v; want %+v", tt.raw, got, err, tt.want)
			}
			// String reads back as the same folder.
			again, err := Parse(got.String(), "/elsewhere")
			if err != nil || again != got {
				t.Errorf("Parse(String()) = %+v, %v from %q; want %+v", again, err, got.String(), got)
			}
		})
	}
}
