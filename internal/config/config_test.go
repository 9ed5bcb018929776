package config

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"filebridge/internal/fixedwidth"
	"filebridge/internal/model"
)

// testEnv is the environment the testdata files are resolved against.
var testEnv = map[string]string{
	"FILEBRIDGE_TOKEN":  "tok-3f9a1c",
	"ERP_SFTP_PASSWORD": "pw-77e2b0",
	"EMPTY_VAR":         "  ",
}

func lookupTestEnv(name string) (string, bool) {
	v, ok := testEnv[name]
	return v, ok
}

// Dur builds a Duration.
func Dur(d time.Duration) Duration { return Duration{d} }

// Route returns the first route of the named inbox that matches filename,
// or nil when the inbox does not exist or no route matches.
func (c *Config) Route(inbox, filename string) *Route {
	if in := c.Inbox(inbox); in != nil {
		return in.Route(filename)
	}
	return nil
}

// check is a value a test got, and the one it wants.
type check struct {
	name      string
	got, want any
}

// checkAll reports each check whose value is not the one wanted.
func checkAll(t *testing.T, checks []check) {
	t.Helper()
	for _, ck := range checks {
		if !reflect.DeepEqual(ck.got, ck.want) {
			t.Errorf("%s: got %#v, want %#v", ck.name, ck.got, ck.want)
		}
	}
}

// TestBadConfigs runs every testdata/*.bad.toml; the first line of each,
// "# want: ...", is a substring its error must contain.
func TestBadConfigs(t *testing.T) {
	files, err := filepath.Glob("testdata/*.bad.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/*.bad.toml: %v", err)
	}
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".bad.toml"), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := bytes.Cut(data, []byte("\n"))
			want, ok := strings.CutPrefix(string(first), "# want: ")
			if !ok {
				t.Fatalf("first line must be \"# want: <error substring>\", got %q", first)
			}
			c, err := Decode(data, dir)
			if err == nil {
				err = c.ResolveSecrets(lookupTestEnv)
			}
			if err == nil {
				t.Fatalf("no error, want one containing %q", want)
			}
			t.Log(err)
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("error:\n%v\nwant it to contain:\n%s", err, want)
			}
			for _, secret := range []string{"hunter2", "s3cr3t", testEnv["FILEBRIDGE_TOKEN"], testEnv["ERP_SFTP_PASSWORD"]} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error reveals a secret %q: %v", secret, err)
				}
			}
		})
	}
}

// TestExample parses config.toml.example, which must stay valid, and checks
// what it promises.
func TestExample(t *testing.T) {
	t.Setenv("FILEBRIDGE_TOKEN", "example-token")
	t.Setenv("ERP_SFTP_PASSWORD", "example-password")
	t.Setenv("FILEBRIDGE_HOOK_KEY", "example-hook-key")
	t.Setenv("FILEBRIDGE_SMTP_PASSWORD", "example-smtp-password")
	c, err := Load("../../config.toml.example")
	if err != nil {
		t.Fatalf("config.toml.example: %v", err)
	}
	root, _ := filepath.Abs("../..")
	checkAll(t, []check{
		{"journal", c.Journal.Path, filepath.Join(root, "var/filebridge.db")},
		{"listen", c.Server.Listen, "127.0.0.1:9464"},
		{"edition", c.Portal("main").Edition, model.EditionA},
		{"token", c.Portal("main").Token.Value(), "example-token"},
		{"path override", c.Portal("main").Path("sales_orders"), "/sales-orders"},
		{"path default", c.Portal("main").Path("stocks"), "/stocks"},
		{"erp folder", c.Inbox("erp").Folder, FolderURL{Scheme: "sftp", User: "edi", Host: "files.example.com", Port: 22, Path: "/outgoing"}},
		{"erp password", c.Inbox("erp").Password.Value(), "example-password"},
		{"erp routes", len(c.Inbox("erp").Routes), 3},
		{"fixed-width route", c.Route("erp", "ITEMS_1.txt").Layout[2], fixedwidth.Field{Name: "buyPrice", Start: 45, Length: 9, Decimals: 2}},
		{"fixed-width export", c.Outbox("erp-out").Exports[2].Layout[1].Length, 9},
		{"sku route charset", c.Route("erp", "in/sku_2026.csv").Charset, CharsetWindows1252},
		{"sku route constants", c.Route("erp", "SKU_1.csv").Constants(), map[string]string{"warehouseLocation": "3"}},
		{"orders route", c.Route("erp", "ORDERS_1.XLSX").Type, "orders"},
		{"orders positions", len(c.Route("erp", "ORDERS_1.xlsx").Positions), 10},
		{"no route", c.Route("erp", "other.csv") == nil, true},
		{"local folder", c.Inbox("uploads").Folder, FolderURL{Scheme: "file", Path: filepath.Join(root, "var/inbox")}},
		{"local poll", c.Inbox("uploads").Poll.Duration, DefaultLocalPoll},
		{"local catch-all", c.Route("uploads", "anything.csv").Match, "*"},
		{"stock once a day", c.Outbox("erp-out").Exports[0].RunsSeveralTimesADay, false},
		{"shipments often", c.Outbox("erp-out").Exports[1].RunsSeveralTimesADay, true},
		{"shipments format", c.Outbox("erp-out").Exports[1].Format, FormatXLSX},
		{"stock zone", c.Outbox("erp-out").Exports[0].Location.String(), "Europe/Paris"},
	})
}

// TestExampleDocumentsEveryKey keeps config.toml.example in step with the
// schema: every TOML key of every table appears in it (set or commented).
func TestExampleDocumentsEveryKey(t *testing.T) {
	data, err := os.ReadFile("../../config.toml.example")
	if err != nil {
		t.Fatal(err)
	}
	var walk func(prefix string, typ reflect.Type)
	walk = func(prefix string, typ reflect.Type) {
		for key, ft := range tomlFields(unwrap(typ)) {
			re := regexp.MustCompile(`(?m)^[ \t#]*` + regexp.QuoteMeta(key) + `\s*=`)
			inner := unwrap(ft)
			isTable := inner.Kind() == reflect.Struct || inner.Kind() == reflect.Map
			if !isTable && !re.Match(data) {
				t.Errorf("config.toml.example does not document %s%s", prefix, key)
			}
			if inner.Kind() == reflect.Map && unwrap(inner.Elem()).Kind() == reflect.Struct {
				inner = unwrap(inner.Elem())
			}
			if inner.Kind() == reflect.Struct && inner != reflect.TypeOf(Duration{}) {
				walk(prefix+key+".", inner)
			}
		}
	}
	walk("", reflect.TypeOf(Config{}))
}

func TestMinimalDefaults(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, "testdata/minimal.good.toml", filepath.Join(dir, "config.toml"))
	writeFile(t, filepath.Join(dir, "secrets/token"), "file-token\n")
	c, err := Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	p := c.Portal("main")
	in := c.Inbox("drop")
	r := c.Route("drop", "x.csv")
	e := c.Outbox("out").Exports[0]
	checkAll(t, []check{
		{"file", c.File, filepath.Join(dir, "config.toml")},
		{"journal", c.Journal.Path, filepath.Join(dir, DefaultJournalPath)},
		{"listen", c.Server.Listen, DefaultListen},
		{"log", c.Log, Log{Level: "info", Format: "json"}},
		{"edition", p.Edition, model.EditionB},
		{"name", p.Name, "main"},
		{"base url", p.BaseURL, "http://127.0.0.1:8089/api"},
		{"token file", p.TokenFile, filepath.Join(dir, "secrets/token")},
		{"token", p.Token.Value(), "file-token"},
		{"concurrency", p.Concurrency, 8},
		{"timeout", p.Timeout, Dur(30 * time.Second)},
		{"max retries", p.MaxRetries, 8},
		{"retry max wait", p.RetryMaxWait, Dur(2 * time.Minute)},
		{"items per page", p.ItemsPerPage, 1000},
		{"status filter", p.ShipmentStatusFilter, "status.code"},
		{"inbox folder", in.Folder, FolderURL{Scheme: "file", Path: filepath.Join(dir, "drop")}},
		{"poll", in.Poll, Dur(60 * time.Second)},
		{"settle", in.Settle, Dur(5 * time.Second)},
		{"dirs", []string{in.ProcessingDir, in.ProcessedDir, in.ErrorDir}, []string{"processing", "processed", "error"}},
		{"max size", in.MaxFileSize, ByteSize(100 << 20)},
		{"op timeout", in.OperationTimeout, Dur(30 * time.Second)},
		{"backoff", []Duration{in.RetryBackoff, in.RetryBackoffMax}, []Duration{Dur(30 * time.Second), Dur(15 * time.Minute)}},
		{"hold missing", in.Hold(r), 30 * time.Minute},
		{"unmatched", in.Unmatched, UnmatchedLeave},
		{"exclude", len(in.Exclude), 0},
		{"route", r != nil && r.Match == "*" && r.Type == "" && r.Header, true},
		{"route policy", r.Policy, PolicyReject},
		{"route charset", r.Charset, "utf-8"},
		{"route decimal", r.Decimal, "."},
		{"route zone", r.Location, time.UTC},
		{"export type", e.Type, model.ExportTracking},
		{"export filename", e.Filename, "TRACKING_{datetime}.csv"},
		{"export format", e.Format, "csv"},
		{"export delimiter", e.Delimiter, ","},
		{"export zone", e.Timezone, "UTC"},
		{"export several", e.RunsSeveralTimesADay, true},
		{"outbox timeout", c.Outbox("out").OperationTimeout, Dur(30 * time.Second)},
	})
}

func TestFullValues(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, "testdata/full.good.toml", filepath.Join(dir, "config.toml"))
	writeKey(t, filepath.Join(dir, "keys/id_ed25519"), "open sesame")
	writeFile(t, filepath.Join(dir, "keys/known_hosts"), "")
	writeFile(t, filepath.Join(dir, "keys/password"), "pw\n")
	t.Setenv("B1_TOKEN", "b1-token")
	t.Setenv("KEY_PASS", "open sesame")
	t.Setenv("HOOK_KEY", "hook-key")
	t.Setenv("SMTP_PASS", "smtp-pass")
	c, err := Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	p := c.Portal("b1")
	in := c.Inbox("wms")
	r := &in.Routes[0]
	out := c.Outbox("pinned")
	e := out.Exports[0]
	signer, err := in.Signer()
	if err != nil || signer == nil {
		t.Fatalf("Signer: %v, %v", signer, err)
	}
	checkAll(t, []check{
		{"journal", c.Journal.Path, filepath.Join(dir, "state/fb.db")},
		{"listen off", c.Server.Listen, ""},
		{"log", c.Log, Log{Level: "debug", Format: "text"}},
		{"slog level", c.Log.SlogLevel(), slog.LevelDebug},
		{"max retries 0 kept", p.MaxRetries, 0},
		{"concurrency", p.Concurrency, 1},
		{"timeout", p.Timeout, Dur(90 * time.Second)},
		{"paths", p.Path("shipping_unit_events"), "/shipping-unit-events"},
		{"token", p.Token.Value(), "b1-token"},
		{"folder", in.Folder, FolderURL{Scheme: "sftp", User: "edi", Host: "::1", Port: 2222, Path: "/in"}},
		{"addr", in.Folder.Addr(), "[::1]:2222"},
		{"key file", in.PrivateKeyFile, filepath.Join(dir, "keys/id_ed25519")},
		{"known hosts", in.KnownHosts, filepath.Join(dir, "keys/known_hosts")},
		{"passphrase", in.PrivateKeyPassphrase.Value(), "open sesame"},
		{"settle 0 kept", in.Settle, Dur(0)},
		{"sftp poll", in.Poll, Dur(15 * time.Second)},
		{"max size", in.MaxFileSize, ByteSize(1 << 20)},
		{"type canonical", r.Type, "variants"},
		{"doc kind", r.DocType.Kind, model.KindItem},
		{"policy", r.Policy, PolicyPartial},
		{"tab", r.Delimiter, "\t"},
		{"latin1", r.Charset, CharsetLatin1},
		{"zone", r.Location.String(), "Europe/Berlin"},
		{"header", r.Header, false},
		{"positions", r.Positions, []string{"sku", "", "name"}},
		{"done marker", r.DoneMarker, true},
		{"columns", r.Columns, map[string]string{"Art.-Nr.": "sku"}},
		{"constants", r.Constants(), map[string]string{"warehouseLocation": "3", "weight": "1.25", "active": "true", "note": "from ERP"}},
		{"second route header", in.Routes[1].Header, true},
		{"match case-insensitive", c.Route("wms", "/x/ARTIKEL.csv") == r, true},
		{"fallthrough", c.Route("wms", "other.txt") == &in.Routes[1], true},
		{"unknown inbox", c.Route("nope", "x.csv") == nil, true},
		{"password file", out.Password.Value(), "pw"},
		{"fingerprints", out.HostKeyFingerprints, []string{"SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU", "SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s"}},
		{"xlsx by ext", e.Format, FormatXLSX},
		{"cp1252", e.Charset, CharsetWindows1252},
		{"write empty", e.WriteEmpty, true},
		{"daily", e.RunsSeveralTimesADay, false},
		{"webhook secret", in.Notify.WebhookSecret.Value(), "hook-key"},
		{"held after", in.Notify.HeldAfter, Dur(2 * time.Hour)},
		{"smtp defaults", []any{c.SMTP.Port, c.SMTP.TLS, c.SMTP.Password.Value()}, []any{587, "starttls", "smtp-pass"}},
	})

	t.Run("wrong passphrase", func(t *testing.T) {
		t.Setenv("KEY_PASS", "wrong")
		_, err := Load(filepath.Join(dir, "config.toml"))
		if err == nil || !strings.Contains(err.Error(), "check the passphrase") {
			t.Fatalf("got %v, want a passphrase error", err)
		}
	})
	t.Run("encrypted key without passphrase", func(t *testing.T) {
		data, _ := os.ReadFile(filepath.Join(dir, "config.toml"))
		data = bytes.Replace(data, []byte(`private_key_passphrase_env = "KEY_PASS"`), nil, 1)
		_, err := Parse(data, dir)
		if err == nil || !strings.Contains(err.Error(), "is encrypted: set private_key_passphrase_env") {
			t.Fatalf("got %v, want an encrypted-key error", err)
		}
	})
}

// TestSecretsNeverPrinted checks every way a config or a secret could be
// printed or logged.
func TestSecretsNeverPrinted(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, "testdata/full.good.toml", filepath.Join(dir, "config.toml"))
	writeKey(t, filepath.Join(dir, "keys/id_ed25519"), "pass-6b1d")
	writeFile(t, filepath.Join(dir, "keys/password"), "pw-c0ffee\n")
	t.Setenv("B1_TOKEN", "tok-9e4f21")
	t.Setenv("KEY_PASS", "pass-6b1d")
	t.Setenv("HOOK_KEY", "hook-5a7e")
	t.Setenv("SMTP_PASS", "smtp-3c9d")
	c, err := Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	key := c.Inbox("wms").PrivateKey.Value()
	var logged bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logged, nil))
	log.Info("config", "portal", c.Portal("b1"), "token", c.Portal("b1").Token, "inbox", c.Inbox("wms"))
	js, _ := json.Marshal(c)
	outputs := map[string]string{
		"%+v config": fmt.Sprintf("%+v", c),
		"%+v values": fmt.Sprintf("%+v %+v %+v %+v", *c, *c.Portal("b1"), *c.Inbox("wms"), *c.Outbox("pinned")),
		"%#v values": fmt.Sprintf("%#v %#v %#v", *c.Portal("b1"), *c.Inbox("wms"), *c.Outbox("pinned")),
		"verbs":      fmt.Sprintf("%v %s %q %x %d %10.3s", c.Portal("b1").Token, c.Portal("b1").Token, c.Portal("b1").Token, c.Portal("b1").Token, c.Portal("b1").Token, c.Portal("b1").Token),
		"slog":       logged.String(),
		"json":       string(js),
	}
	for name, out := range outputs {
		for _, secret := range []string{"tok-9e4f21", "pw-c0ffee", "pass-6b1d", "hook-5a7e", "smtp-3c9d", key[40:80]} {
			if strings.Contains(out, secret) {
				t.Errorf("%s reveals %q:\n%s", name, secret, out)
			}
		}
		if !strings.Contains(out, "[redacted]") {
			t.Errorf("%s does not show [redacted]:\n%s", name, out)
		}
	}
}

func TestLoadErrorNamesFile(t *testing.T) {
	_, err := Load("testdata/route_policy.bad.toml")
	if err == nil || !strings.Contains(err.Error(), "config testdata/route_policy.bad.toml: ") {
		t.Fatalf("got %v", err)
	}
	_, err = Load("testdata/does-not-exist.toml")
	if err == nil || !strings.Contains(err.Error(), "does-not-exist.toml") {
		t.Fatalf("got %v", err)
	}
}

func TestAllProblemsReported(t *testing.T) {
	data := []byte(`
[portals.main]
edition = "A"
base_url = "nope"
company = 0
`)
	_, err := Decode(data, t.TempDir())
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"3 problems", "base_url", "company", "no token"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestByteSize(t *testing.T) {
	tests := []struct {
		in   string
		want ByteSize
		err  bool
	}{
		{"1048576", 1 << 20, false},
		{"100MB", 100 << 20, false},
		{"100 MiB", 100 << 20, false},
		{"512k", 512 << 10, false},
		{"1.5GB", 3 << 29, false},
		{"10_000", 10000, false},
		{"7b", 7, false},
		{"-1MB", 0, true},
		{"MB", 0, true},
		{"ten", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseByteSize(tt.in)
			if (err != nil) != tt.err || got != tt.want {
				t.Fatalf("got %d, %v; want %d, error %v", got, err, tt.want, tt.err)
			}
		})
	}
	if s := ByteSize(100 << 20).String(); s != "100MiB" {
		t.Errorf("String: got %q", s)
	}
}

func TestSeveralADay(t *testing.T) {
	tests := []struct {
		spec, zone string
		want       bool
	}{
		{"0 2 * * *", "UTC", false},
		{"0 2 * * *", "Europe/Paris", false},
		{"*/15 * * * *", "UTC", true},
		{"0 * * * *", "UTC", true},
		{"@hourly", "UTC", true},
		{"@daily", "UTC", false},
		{"0 2 * * 1", "UTC", false},
		{"0 2,14 1 1 *", "UTC", true},
		{"30 23 * * *", "America/New_York", false},
		{"@every 25h", "UTC", false},
		{"@every 6h", "UTC", true},
	}
	for _, tt := range tests {
		t.Run(tt.spec+" "+tt.zone, func(t *testing.T) {
			s, err := parseSchedule(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			loc, _ := loadZone(tt.zone)
			got, err := severalADay(s, loc)
			if err != nil || got != tt.want {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// TestScheduleWalkedOnce: a thousand tenants' outboxes sharing one
// schedule and zone cost one walk of its year, not one each.
func TestScheduleWalkedOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString("[portals.main]\nedition = \"b\"\nbase_url = \"http://127.0.0.1:8089/api/\"\ncompany = 7\ntoken_file = \"token\"\n")
	for i := range 200 {
		fmt.Fprintf(&b, "\n[[outboxes]]\nname = \"t%03d\"\nportal = \"main\"\nurl = \"out/t%03d\"\n  [[outboxes.exports]]\n  type = \"stock\"\n  schedule = \"43 3 * * *\"\n  timezone = \"Asia/Tokyo\"\n", i, i)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "token"), "t\n")
	before := yearWalks.Load()
	c, err := Decode([]byte(b.String()), dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := yearWalks.Load() - before; got != 1 {
		t.Errorf("%d walks of the schedule's year for 200 outboxes sharing it, want 1", got)
	}
	if e := c.Outbox("t199").Exports[0]; e.RunsSeveralTimesADay {
		t.Errorf("a daily schedule said to run several times a day")
	}
}

func TestRouteMatches(t *testing.T) {
	tests := []struct {
		glob, name string
		want       bool
	}{
		{"SKU_*.csv", "sku_2026.CSV", true},
		{"SKU_*.csv", "/in/sub/SKU_1.csv", true},
		{"SKU_*.csv", "XSKU_1.csv", false},
		{"ORDERS_????.xlsx", "orders_1121.xlsx", true},
		{"*", "anything", true},
	}
	for _, tt := range tests {
		r := Route{Match: tt.glob}
		if got := r.Matches(tt.name); got != tt.want {
			t.Errorf("%q matches %q: got %v, want %v", tt.glob, tt.name, got, tt.want)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, string(data))
}

// decodeTestdata decodes testdata/name against a temporary folder.
func decodeTestdata(t *testing.T, name string) *Config {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Decode(data, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// writeKey writes a fresh ed25519 private key encrypted with passphrase.
func writeKey(t *testing.T, path, passphrase string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKeyWithPassphrase(priv, "test", []byte(passphrase))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(pem.EncodeToMemory(block)))
}

// TestDesignShape keeps the shape the design document promises decodable.
func TestDesignShape(t *testing.T) {
	c := decodeTestdata(t, "design.good.toml")
	if err := c.ResolveSecrets(func(string) (string, bool) { return "x", true }); err != nil {
		t.Fatal(err)
	}
	r := c.Route("erp", "SKU_20261121.csv")
	if r == nil || r.Delimiter != ";" || r.Constants()["warehouseLocation"] != "3" || r.Columns["Art.-Nr."] != "sku" {
		t.Fatalf("route: %+v", r)
	}
	if got := c.Portal("main").Path("sales_orders"); got != "/sales-orders" {
		t.Errorf("sales_orders path: got %q", got)
	}
}

// TestSMTPDefaults: a [smtp] without port takes 465 for implicit TLS and
// 587 otherwise, whatever the case of tls; a port given stays.
func TestSMTPDefaults(t *testing.T) {
	for _, tc := range []struct {
		tls      string
		port     int
		wantTLS  string
		wantPort int
	}{
		{"", 0, "starttls", 587},
		{"tls", 0, "tls", 465},
		{" TLS ", 0, "tls", 465},
		{"StartTLS", 0, "starttls", 587},
		{"tls", 2465, "tls", 2465},
	} {
		data := fmt.Sprintf(`[portals.main]
edition = "A"
base_url = "https://portal.example.com/api"
company = 42
token_env = "FILEBRIDGE_TOKEN"
[smtp]
host = "mail.example.com"
from = "filebridge@example.com"
tls = %q
port = %d
`, tc.tls, tc.port)
		c, err := Decode([]byte(data), t.TempDir())
		if err != nil {
			t.Fatalf("tls %q port %d: %v", tc.tls, tc.port, err)
		}
		if c.SMTP.TLS != tc.wantTLS || c.SMTP.Port != tc.wantPort {
			t.Errorf("tls %q port %d: got tls %q port %d, want %q %d", tc.tls, tc.port, c.SMTP.TLS, c.SMTP.Port, tc.wantTLS, tc.wantPort)
		}
	}
}
