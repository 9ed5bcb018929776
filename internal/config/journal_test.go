package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// journalConfig writes the minimal config with the given [journal] table.
func journalConfig(t *testing.T, journal string) string {
	t.Helper()
	dir := t.TempDir()
	base, err := os.ReadFile("testdata/minimal.good.toml")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "secrets/token"), "tok-3f9a1c\n")
	writeFile(t, filepath.Join(dir, "secrets/pg"), "pg-5ecret\n")
	p := filepath.Join(dir, "config.toml")
	writeFile(t, p, "[journal]\n"+journal+"\n"+string(base))
	return p
}

func TestJournalPostgresKeys(t *testing.T) {
	tests := []struct {
		name    string
		journal string
		env     map[string]string
		wantErr string // substring; "" means it loads
		wantPw  string
	}{
		{"sqlite default", `path = "var/j.db"`, nil, "", ""},
		{"postgres, password from env", `url = "postgres://fb@db:5432/fb?sslmode=verify-full"
password_env = "FB_PG"`, map[string]string{"FB_PG": "pg-5ecret"}, "", "pg-5ecret"},
		{"postgres, password from file", `url = "postgresql://fb@db/fb"
password_file = "secrets/pg"`, nil, "", "pg-5ecret"},
		{"postgres without password (trust, .pgpass)", `url = "postgres://fb@db/fb"`, nil, "", ""},
		{"password in the url", `url = "postgres://fb:pg-5ecret@db/fb"`, nil, "holds a password: move it", ""},
		{"password parameter in the url", `url = "postgres://fb@db/fb?password=pg-5ecret"`, nil, "holds a password", ""},
		{"wrong scheme", `url = "mysql://fb@db/fb"`, nil, "must start with postgres://", ""},
		{"libpq keyword/value form", `url = "host=db user=fb password=pg-5ecret dbname=fb"`, nil, `"host=db user=fb dbname=fb": must start with postgres://`, ""},
		{"both password keys", `url = "postgres://fb@db/fb"
password_env = "FB_PG"
password_file = "secrets/pg"`, map[string]string{"FB_PG": "x"}, "set only one of password_env and password_file", ""},
		{"password without url", `password_env = "FB_PG"`, map[string]string{"FB_PG": "x"}, "only used with journal.url", ""},
		{"env variable missing", `url = "postgres://fb@db/fb"
password_env = "FB_PG_MISSING"`, nil, "FB_PG_MISSING is not set", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			c, err := Load(journalConfig(t, tt.journal))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Load = %v, want an error with %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "pg-5ecret") {
					t.Errorf("the error reveals the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if got := c.Journal.Password.Value(); got != tt.wantPw {
				t.Errorf("password = %q, want %q", got, tt.wantPw)
			}
		})
	}
}

// TestJournalNeverPrintsPassword prints and logs the journal config every
// way it could be.
func TestJournalNeverPrintsPassword(t *testing.T) {
	t.Setenv("FB_PG", "pg-5ecret")
	c, err := Load(journalConfig(t, `url = "postgres://fb@db:5432/fb?sslmode=verify-full"
password_env = "FB_PG"`))
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("journal", "journal", c.Journal, "config", c)
	js, _ := json.Marshal(c)
	outputs := map[string]string{
		"String": c.Journal.String(),
		"%v":     fmt.Sprintf("%v %+v %#v", c.Journal, c.Journal, c.Journal),
		"slog":   logged.String(),
		"json":   string(js),
	}
	for name, out := range outputs {
		if strings.Contains(out, "pg-5ecret") {
			t.Errorf("%s reveals the password:\n%s", name, out)
		}
		if !strings.Contains(out, "postgres://fb@db:5432/fb") {
			t.Errorf("%s does not name the database:\n%s", name, out)
		}
	}
	if !strings.Contains(logged.String(), `"backend":"postgres"`) {
		t.Errorf("slog does not name the backend: %s", logged.String())
	}
}

// TestJournalLease: [journal] lease defaults to 30s and must be at least
// a second.
func TestJournalLease(t *testing.T) {
	tests := []struct {
		name    string
		journal string
		want    time.Duration
		wantErr string
	}{
		{"default", `path = "var/j.db"`, DefaultLease, ""},
		{"set", `lease = "3s"`, 3 * time.Second, ""},
		{"too short", `lease = "500ms"`, 0, "journal.lease"},
		{"zero", `lease = "0s"`, 0, "must be at least 1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(journalConfig(t, tt.journal))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Load = %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if c.Journal.Lease.Duration != tt.want {
				t.Errorf("lease = %s, want %s", c.Journal.Lease.Duration, tt.want)
			}
		})
	}
}

// TestJournalRetention: [journal] retention defaults to keeping the
// history for ever, reads days or a Go duration of at least a day, and
// must not be shorter than an inbox's error_retention.
func TestJournalRetention(t *testing.T) {
	day := 24 * time.Hour
	tests := []struct {
		name    string
		journal string
		want    time.Duration
		wantErr string
	}{
		{"default", `path = "var/j.db"`, 0, ""},
		{"days", `retention = "365d"`, 365 * day, ""},
		{"duration", `retention = "720h"`, 30 * day, ""},
		{"for ever", `retention = "0s"`, 0, ""},
		{"not a time", `retention = "a year"`, 0, `line 2: journal.retention: "a year": write a number of days such as "365d"`},
		{"negative", `retention = "-3d"`, 0, `journal.retention: "-3d"`},
		{"under a day", `retention = "12h"`, 0, `(at least "1d")`},
		{"shorter than error_retention", `retention = "7d"`, 0,
			`inboxes[0] "drop": error_retention "30d" is longer than journal.retention "7d"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(journalConfig(t, tt.journal))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Load = %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if got := c.Journal.Retention.Dur(); got != tt.want {
				t.Errorf("retention = %s, want %s", got, tt.want)
			}
		})
	}
	if DefaultJournalRetention != 0 {
		t.Errorf("DefaultJournalRetention = %s, want 0 (keep the history for ever)", DefaultJournalRetention.Dur())
	}
}
