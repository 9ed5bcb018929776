package folder

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"filebridge/internal/folderurl"
)

func TestOptionsHideSecrets(t *testing.T) {
	o := Options{Location: folderurl.URL{Scheme: folderurl.SchemeSFTP, User: "edi", Host: "127.0.0.1", Port: 2222, Path: "/in"}, Password: "s3cret-pass", PrivateKey: []byte("-----BEGIN KEY s3cret-key"), PrivateKeyPassphrase: "s3cret-phrase"}
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("opening", "options", o)
	for _, out := range []string{fmt.Sprint(o), fmt.Sprintf("%+v", o), fmt.Sprintf("%#v", o), logged.String()} {
		if strings.Contains(out, "s3cret") {
			t.Errorf("a secret shows: %s", out)
		}
		if !strings.Contains(out, "sftp://edi@127.0.0.1:2222/in") || !strings.Contains(out, "[redacted]") {
			t.Errorf("want the URL and [redacted]: %s", out)
		}
	}
}
