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

// TestJournalDurations: [journal] lease defaults to 30s and must be at
// least a second; retention defaults to keeping the history for ever,
// reads days or a Go duration of at least a day, and must not be shorter
// than an inbox's error_retention.
func TestJournalDurations(t *testing.T) {
	day := 24 * time.Hour
	lease := func(c *Config) time.Duration { return c.Journal.Lease.Duration }
	retention := func(c *Config) time.Duration { return c.Journal.Retention.Dur() }
	tests := []struct {
		name    string
		journal string
		get     func(*Config) time.Duration
		want    time.Duration
		wantErr string
	}{
		{"lease default", `path = "var/j.db"`, lease, DefaultLease, ""},
		{"lease set", `lease = "3s"`, lease, 3 * time.Second, ""},
		{"lease too short", `lease = "500ms"`, lease, 0, "journal.lease"},
		{"lease zero", `lease = "0s"`, lease, 0, "must be at least 1s"},
		{"retention default", `path = "var/j.db"`, retention, 0, ""},
		{"retention days", `retention = "365d"`, retention, 365 * day, ""},
		{"retention duration", `retention = "720h"`, retention, 30 * day, ""},
		{"retention for ever", `retention = "0s"`, retention, 0, ""},
		{"retention not a time", `retention = "a year"`, retention, 0, `line 2: journal.retention: "a year": write a number of days such as "365d"`},
		{"retention negative", `retention = "-3d"`, retention, 0, `journal.retention: "-3d"`},
		{"retention under a day", `retention = "12h"`, retention, 0, `(at least "1d")`},
		{"retention shorter than error_retention", `retention = "7d"`, retention, 0,
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
			if got := tt.get(c); got != tt.want {
				t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
			}
		})
	}
	if DefaultJournalRetention != 0 {
		t.Errorf("DefaultJournalRetention = %s, want 0 (keep the history for ever)", DefaultJournalRetention.Dur())
	}
}
