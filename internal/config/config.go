// Package config reads filebridge's TOML configuration: defaults first, then
// strict decoding (an unknown key is an error with its line number), then
// validation with messages that say what is wrong, where, and what to write
// instead, and finally the resolution of secrets from the environment and
// files. config.toml.example at the project root documents every key.
//
// The field comments below are the reference for each key; the TOML key is
// in the struct tag.
package config

import (
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // time zones without the system database (Windows, scratch images)

	"filebridge/internal/fixedwidth"
	"filebridge/internal/model"
	"filebridge/internal/redact"
)

// Config is a whole configuration file.
type Config struct {
	// File is the absolute path of the file Load read ("" after Parse).
	File string `toml:"-"`
	// Dir is the folder relative paths were resolved against.
	Dir string `toml:"-"`

	Journal  Journal            `toml:"journal"`
	Server   Server             `toml:"server"`
	Log      Log                `toml:"log"`
	Portals  map[string]*Portal `toml:"portals"`
	Inboxes  []Inbox            `toml:"inboxes"`
	Outboxes []Outbox           `toml:"outboxes"`
	// SMTP is the mail server of the notifications (see Notify).
	SMTP SMTP `toml:"smtp"`
}

// Journal is the durable state database.
type Journal struct {
	// Path of the SQLite file, relative to the config file's folder unless
	// absolute. Default "var/filebridge.db".
	Path string `toml:"path"`
	// URL, when set, puts the journal in PostgreSQL instead
	// ("postgres://user@host:5432/db?sslmode=verify-full"), shared by
	// every instance with this config. It must not hold the password.
	URL string `toml:"url"`
	// PasswordEnv or PasswordFile names where the PostgreSQL password is.
	PasswordEnv  string `toml:"password_env"`
	PasswordFile string `toml:"password_file"`
	// Password is resolved by ResolveSecrets from PasswordEnv/PasswordFile.
	Password Secret `toml:"-"`
	// Lease is how long a file claimed by an instance stays its own
	// without renewal (the instance renews every lease/3 while it runs);
	// then another instance on the shared journal takes it over. Default
	// "30s".
	Lease Duration `toml:"lease"`
	// Retention is how long the journal keeps the history of finished
	// files (with their documents) and export runs (with the copies of
	// their files): "365d" or a Go duration of at least a day. Open
	// failures and files in progress are never pruned. Default "0s": for
	// ever.
	Retention History `toml:"retention"`
}

// Postgres reports whether the journal is a PostgreSQL database.
func (j Journal) Postgres() bool { return j.URL != "" }

// String names the journal for people and logs: the SQLite file, or the
// PostgreSQL URL (which holds no password); never the password.
func (j Journal) String() string {
	if j.Postgres() {
		return redact.URL(j.URL)
	}
	return j.Path
}

// LogValue implements slog.LogValuer: the backend and where it is, never
// the password.
func (j Journal) LogValue() slog.Value {
	if j.Postgres() {
		return slog.GroupValue(slog.String("backend", "postgres"), slog.String("url", redact.URL(j.URL)))
	}
	return slog.GroupValue(slog.String("backend", "sqlite"), slog.String("path", j.Path))
}

// Server is the HTTP listener for /metrics, /healthz and the web console.
type Server struct {
	// Listen is host:port; "" turns the server off. Default "127.0.0.1:9464".
	Listen string `toml:"listen"`
	// TokenEnv names the environment variable holding the console's access
	// token; Users are basic-auth logins. One of them is required when
	// Listen is not a loopback address.
	TokenEnv string       `toml:"token_env"`
	Users    []ServerUser `toml:"users"`
	// PublicHealth lets a request without credentials read /healthz's
	// status alone (no names, URLs or errors), for probes. Default false.
	PublicHealth bool `toml:"public_health"`
	// Token is read from TokenEnv by ResolveSecrets.
	Token Secret `toml:"-"`
}

// ServerUser is a basic-auth login of the web console.
type ServerUser struct {
	Name        string `toml:"name"`
	PasswordEnv string `toml:"password_env"`
	// Password is read from PasswordEnv by ResolveSecrets.
	Password Secret `toml:"-"`
}

// Log sets up log/slog.
type Log struct {
	// Level is debug, info, warn or error. Default "info".
	Level string `toml:"level"`
	// Format is "json" or "text". Default "json".
	Format string `toml:"format"`
}

// SlogLevel is Level as a slog.Level (validated by Parse).
func (l Log) SlogLevel() slog.Level {
	lvl, _ := parseLevel(l.Level)
	return lvl
}

// Portal is one tenant of the customer-portal API.
type Portal struct {
	// Name is the portal's key in [portals.NAME].
	Name string `toml:"-"`
	// Edition is "A" (v1.2.0) or "B" (v1.1.0). Required.
	Edition model.Edition `toml:"edition"`
	// BaseURL is the absolute http(s) URL of the API, including "/api".
	// Required. A trailing "/" is dropped.
	BaseURL string `toml:"base_url"`
	// Company is the caller's company id, given by the operator. Required.
	Company int `toml:"company"`
	// TokenEnv names the environment variable holding the bearer token.
	TokenEnv string `toml:"token_env"`
	// TokenFile is a file holding the token (surrounding blanks dropped).
	// Exactly one of TokenEnv and TokenFile is required.
	TokenFile string `toml:"token_file"`
	// Token is the resolved bearer token.
	Token Secret `toml:"-"`
	// Concurrency bounds simultaneous requests. Default 8, 1..64.
	Concurrency int `toml:"concurrency"`
	// Timeout is the limit of one request. Default "30s".
	Timeout Duration `toml:"timeout"`
	// MaxRetries is the number of retries of a transient failure before the
	// work is left for a later round. Default 8, 0..100.
	MaxRetries int `toml:"max_retries"`
	// RetryMaxWait caps the backoff between retries (and a Retry-After).
	// Default "2m".
	RetryMaxWait Duration `toml:"retry_max_wait"`
	// ItemsPerPage is the page size of list calls. Default 1000, 1..10000.
	ItemsPerPage int `toml:"items_per_page"`
	// ShipmentStatusFilter is the query parameter that filters Edition A
	// orders by fulfillment status. Default "status.code".
	ShipmentStatusFilter string `toml:"shipment_status_filter"`
	// Paths overrides resource paths; keys are names from Resources, values
	// start with "/" and are relative to BaseURL.
	Paths map[string]string `toml:"paths"`
}

// Resources are the API resources whose path a portal may override. The
// default path of each is "/" + its name.
var Resources = []string{
	"connections", "variants", "variant_packagings", "warehouse_clients",
	"carriers", "carrier_services", "purchase_orders", "sales_orders",
	"fulfillments", "shipping_units", "shipping_unit_events", "stocks",
	"stock_movements",
}

// Path is the path of a resource relative to BaseURL: the override from
// [portals.NAME.paths], else "/" + resource.
func (p *Portal) Path(resource string) string {
	if v, ok := p.Paths[resource]; ok {
		return v
	}
	return "/" + resource
}

// SFTP holds the connection settings of an SFTP folder; all are refused on
// a local folder.
type SFTP struct {
	// PasswordEnv names the environment variable holding the password.
	PasswordEnv string `toml:"password_env"`
	// PasswordFile is a file holding the password. At most one of the two.
	PasswordFile string `toml:"password_file"`
	// PrivateKeyFile is an OpenSSH/PEM private key. A password, a key or
	// both are required.
	PrivateKeyFile string `toml:"private_key_file"`
	// PrivateKeyPassphraseEnv names the variable holding the key's
	// passphrase, for an encrypted key.
	PrivateKeyPassphraseEnv string `toml:"private_key_passphrase_env"`
	// KnownHosts is an OpenSSH known_hosts file the server's key must be in.
	KnownHosts string `toml:"known_hosts"`
	// HostKeyFingerprint pins the server's key: "SHA256:..." as printed by
	// ssh-keygen -lf; several may be separated by commas (key rotation).
	// One of KnownHosts and HostKeyFingerprint is required for sftp.
	HostKeyFingerprint string `toml:"host_key_fingerprint"`

	// HostKeyFingerprints is HostKeyFingerprint split and trimmed.
	HostKeyFingerprints []string `toml:"-"`
	// Password, PrivateKey (PEM text) and PrivateKeyPassphrase are resolved.
	Password             Secret `toml:"-"`
	PrivateKey           Secret `toml:"-"`
	PrivateKeyPassphrase Secret `toml:"-"`
}

// Inbox is a folder filebridge watches for files to submit.
type Inbox struct {
	// Name identifies the inbox (unique) in logs, metrics and the CLI.
	Name string `toml:"name"`
	// Portal is the key of the portal files are submitted to.
	Portal string `toml:"portal"`
	// URL is "file:///dir", a plain path (relative to the config file's
	// folder) or "sftp://user@host[:port]/dir".
	URL string `toml:"url"`
	// Folder is URL parsed.
	Folder FolderURL `toml:"-"`

	SFTP

	// Poll is the interval of full listings: default "15s" on SFTP, "60s"
	// (the rescan behind file-system events) on a local folder.
	Poll Duration `toml:"poll"`
	// Settle is how long size and mtime must stay unchanged. Default "5s".
	Settle Duration `toml:"settle"`
	// ProcessingDir, ProcessedDir and ErrorDir are subfolders of the inbox.
	// Defaults "processing", "processed", "error".
	ProcessingDir string `toml:"processing_dir"`
	ProcessedDir  string `toml:"processed_dir"`
	ErrorDir      string `toml:"error_dir"`
	// Retention deletes the dated folders of ProcessedDir older than it
	// ("90d"); zero (the default) keeps them.
	Retention Retention `toml:"retention"`
	// ErrorRetention moves the files of failures resolved longer ago than
	// it out of ErrorDir into ErrorDir/resolved/YYYY/MM. Default "30d";
	// "0s" keeps them in ErrorDir.
	ErrorRetention Keep `toml:"error_retention"`
	// MaxFileSize refuses larger files before reading. Default 100 MiB.
	MaxFileSize ByteSize `toml:"max_file_size"`
	// OperationTimeout bounds one folder operation. Default "30s".
	OperationTimeout Duration `toml:"operation_timeout"`
	// RetryBackoff is the first wait before retrying a file that failed for
	// a transient reason; it doubles up to RetryBackoffMax. Defaults "30s"
	// and "15m".
	RetryBackoff    Duration `toml:"retry_backoff"`
	RetryBackoffMax Duration `toml:"retry_backoff_max"`
	// HoldMissing is how long a file whose only problems are references to
	// codes not on the portal waits in processing/ for that master data
	// before it fails. Default "30m"; "0s" fails at once. A route may
	// override it.
	HoldMissing Duration `toml:"hold_missing"`
	// Unmatched says what becomes of a file no route matches: "leave"
	// (default: left in place, listed once) or "error" (moved to error/
	// with a report).
	Unmatched string `toml:"unmatched"`
	// Exclude globs name files of the inbox never to take (e.g. "*.pdf").
	Exclude []string `toml:"exclude"`
	// FileConcurrency is how many files of one dependency level the inbox
	// processes at once, files under 64 KiB four times as many (1 stays
	// one at a time) and files of 1 MiB or more a quarter as many (the
	// portal's concurrency still bounds the requests). Default 16.
	FileConcurrency int `toml:"file_concurrency"`

	// Routes give file types and reading options by file name; the first
	// whose Match fits wins.
	Routes []Route `toml:"routes"`
	// Notify says who hears of a failed or long-held file.
	Notify Notify `toml:"notify"`
}

// Route says how to read the files whose base name matches a glob.
type Route struct {
	// Match is a path.Match glob on the file's base name, case-insensitive.
	Match string `toml:"match"`
	// Type is a document type of the portal's edition (canonical name after
	// Parse), or "" to detect it from the header row.
	Type string `toml:"type"`
	// DocType is Type looked up (zero when Type is "").
	DocType model.DocType `toml:"-"`
	// Policy is "reject" (default: any error, nothing submitted) or
	// "partial" (valid documents submitted).
	Policy string `toml:"policy"`
	// Format is "csv", "xlsx", "fixed", "x12" or "" (an X12 interchange
	// by its ISA header, else by extension).
	Format string `toml:"format"`
	// Layout cuts the lines of a fixed-width file (format = "fixed") into
	// columns; RecordType says where a line's record type code is.
	Layout     []fixedwidth.Field     `toml:"layout"`
	RecordType *fixedwidth.RecordType `toml:"record_type"`
	// AckDir is the inbox folder the 997 acknowledgement of each X12 file
	// goes to (default "acks").
	AckDir string `toml:"ack_dir"`
	// Delimiter is "," ";" "\t" "|" or "" (detected); "tab" reads as "\t".
	Delimiter string `toml:"delimiter"`
	// Charset is "utf-8" (default), "windows-1252" or "iso-8859-1".
	Charset string `toml:"charset"`
	// Decimal is the decimal separator, "." (default) or ",".
	Decimal string `toml:"decimal"`
	// DateLayout is an extra Go time layout for dates, e.g. "02.01.2006".
	DateLayout string `toml:"date_layout"`
	// Timezone is the IANA zone of dates without an offset. Default "UTC".
	Timezone string `toml:"timezone"`
	// Location is Timezone loaded.
	Location *time.Location `toml:"-"`
	// Sheet is the XLSX sheet to read; default the only visible one, else the active one.
	Sheet string `toml:"sheet"`
	// Header says whether the first row names the columns. Default true;
	// false reads columns by position, named by Positions.
	Header bool `toml:"header"`
	// Positions names the columns in order when Header is false; "" skips
	// a column.
	Positions []string `toml:"positions"`
	// HeaderRow is the line (CSV) or row (XLSX) of the header when rows
	// above it hold a title; 0 (default): the first non-empty row.
	HeaderRow int `toml:"header_row"`
	// DoneMarker waits for NAME.done or NAME.ok before reading NAME.
	DoneMarker bool `toml:"done_marker"`
	// HoldMissing overrides the inbox's hold_missing for these files (nil:
	// the inbox's).
	HoldMissing *Duration `toml:"hold_missing"`
	// Columns maps a foreign header to one of our column names.
	Columns map[string]string `toml:"columns"`
	// Defaults are constants for columns the file lacks.
	Defaults map[string]Constant `toml:"defaults"`
	// Values map a column's cell values to the ones sent, per column (our
	// column name): {"orderType": {"STANDARD": ""}} sends no orderType for
	// STANDARD; ERP codes can become portal codes the same way.
	Values map[string]map[string]string `toml:"values"`
}

// Constants returns Defaults as plain strings.
func (r *Route) Constants() map[string]string {
	m := make(map[string]string, len(r.Defaults))
	for k, v := range r.Defaults {
		m[k] = string(v)
	}
	return m
}

// Matches reports whether the route's glob fits the base name of filename,
// ignoring case.
func (r *Route) Matches(filename string) bool {
	return globMatch(r.Match, path.Base(filepath.ToSlash(filename)))
}

// globMatch reports whether a path.Match glob matches name, ignoring case.
func globMatch(glob, name string) bool {
	ok, err := path.Match(strings.ToLower(glob), strings.ToLower(name))
	return err == nil && ok
}

// Outbox is a folder scheduled exports are written to.
type Outbox struct {
	// Name identifies the outbox (unique).
	Name string `toml:"name"`
	// Portal is the key of the portal the exports read from.
	Portal string `toml:"portal"`
	// URL: as for inboxes.
	URL    string    `toml:"url"`
	Folder FolderURL `toml:"-"`

	SFTP

	// OperationTimeout bounds one folder operation. Default "30s".
	OperationTimeout Duration `toml:"operation_timeout"`

	Exports []Export `toml:"exports"`
	// Notify says who hears of a failed export.
	Notify Notify `toml:"notify"`
}

// X12Export is the envelope of an x12 export: who sends it to whom.
type X12Export struct {
	// Sender and Receiver are "qualifier:id" (ISA05:ISA06, ISA07:ISA08),
	// e.g. "ZZ:WAREHOUSE"; the ids are GS02/GS03 too.
	Sender   string `toml:"sender"`
	Receiver string `toml:"receiver"`
	// Version is "004010" (default) or "005010".
	Version string `toml:"version"`
	// Test marks the interchanges as test data (ISA15 = T).
	Test bool `toml:"test"`
}

// EDIFACTExport is the envelope of an edifact export.
type EDIFACTExport struct {
	// Sender and Receiver are the UNB parties as UNB writes them,
	// "id:qualifier" (the qualifier may be left out), e.g.
	// "5798000000001:14".
	Sender   string `toml:"sender"`
	Receiver string `toml:"receiver"`
	// Release is the directory of the messages: "96A" (default) or "01B".
	Release string `toml:"release"`
	// Syntax is the UNB syntax identifier: UNOC (default, Latin-1), UNOA,
	// UNOB or UNOW (UTF-8).
	Syntax string `toml:"syntax"`
	// Test marks the interchanges as tests (UNB test indicator 1).
	Test bool `toml:"test"`
}

// Export is one scheduled export into an outbox.
type Export struct {
	// Type is an export the portal's edition offers (see model.ExportTypes).
	Type model.ExportType `toml:"type"`
	// Schedule is a 5-field cron expression (or @daily, @hourly...) in
	// Timezone. Required.
	Schedule string `toml:"schedule"`
	// Timezone is the IANA zone of the schedule and of the date values
	// written. Default "UTC".
	Timezone string         `toml:"timezone"`
	Location *time.Location `toml:"-"`
	// Format is "csv", "xlsx", "fixed" or "x12"; default from Filename's
	// extension, else csv.
	Format string `toml:"format"`
	// Layout places the columns of a fixed-width file (format = "fixed").
	Layout []fixedwidth.Field `toml:"layout"`
	// X12 are the partners and version of an x12 export.
	X12 X12Export `toml:"x12"`
	// EDIFACT are the partners and release of an edifact export.
	EDIFACT EDIFACTExport `toml:"edifact"`
	// Filename is a template with {date} {time} {datetime} {seq} {type}
	// {outbox}. Default "<TYPE>_{datetime}.<format>", e.g.
	// "STOCK_{datetime}.csv".
	Filename string `toml:"filename"`
	// Dir is a subfolder of the outbox. Default "" (the outbox itself).
	Dir string `toml:"dir"`
	// Delimiter of CSV files: "," (default) ";" "\t" "|"; "tab" reads "\t".
	Delimiter string `toml:"delimiter"`
	// Charset is "utf-8" (default), "windows-1252" or "iso-8859-1".
	Charset string `toml:"charset"`
	// BOM starts a UTF-8 CSV with a byte order mark.
	BOM bool `toml:"bom"`
	// CRLF ends CSV lines with \r\n instead of \n.
	CRLF bool `toml:"crlf"`
	// WriteEmpty writes a header-only file when there are no rows.
	WriteEmpty bool `toml:"write_empty"`
	// Decimal separator of numbers, "." (default) or ",".
	Decimal string `toml:"decimal"`
	// DateLayout is the Go layout of dates written; default RFC 3339.
	DateLayout string `toml:"date_layout"`

	// RunsSeveralTimesADay is computed from Schedule.
	RunsSeveralTimesADay bool `toml:"-"`
}

// Load reads, decodes, fills defaults, validates the config file at path and
// resolves its secrets. Relative paths in it are taken from its folder.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("locating config %s: %w", path, err)
	}
	c, err := Parse(data, filepath.Dir(abs))
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	c.File = abs
	return c, nil
}

// Parse is Load from bytes; dir is the folder relative paths are resolved
// against ("" is the working directory). Secrets are read from the process
// environment.
func Parse(data []byte, dir string) (*Config, error) {
	c, err := Decode(data, dir)
	if err != nil {
		return nil, err
	}
	if err := c.ResolveSecrets(nil); err != nil {
		return nil, err
	}
	return c, nil
}

// Decode is Parse without the secrets: decode, defaults, validation. Tools
// that only check a file's shape use it, then ResolveSecrets.
func Decode(data []byte, dir string) (*Config, error) {
	if dir == "" {
		dir = "."
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("locating %s: %w", dir, err)
	}
	c := New()
	c.Dir = abs
	present, err := decodeStrict(data, c)
	if err != nil {
		return nil, err
	}
	c.provision(present)
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// PortalNames returns the portal keys in sorted order.
func (c *Config) PortalNames() []string {
	return sortedKeys(c.Portals)
}

// Portal returns the named portal, or nil.
func (c *Config) Portal(name string) *Portal { return c.Portals[name] }

// Inbox returns the named inbox, or nil.
func (c *Config) Inbox(name string) *Inbox {
	return named(c.Inboxes, func(in *Inbox) bool { return in.Name == name })
}

// Outbox returns the named outbox, or nil.
func (c *Config) Outbox(name string) *Outbox {
	return named(c.Outboxes, func(out *Outbox) bool { return out.Name == name })
}

// named returns the first element of list is picks, or nil.
func named[T any](list []T, is func(*T) bool) *T {
	for i := range list {
		if is(&list[i]) {
			return &list[i]
		}
	}
	return nil
}

// Route returns the inbox's first route matching filename, or nil.
func (in *Inbox) Route(filename string) *Route {
	return named(in.Routes, func(r *Route) bool { return r.Matches(filename) })
}

// Excluded reports whether an exclude glob of the inbox matches the file
// name (case-insensitive).
func (in *Inbox) Excluded(filename string) bool {
	return slices.ContainsFunc(in.Exclude, func(g string) bool { return globMatch(g, filename) })
}

// Hold returns how long a file of the route waits for missing master data
// (route nil: the inbox's hold_missing).
func (in *Inbox) Hold(r *Route) time.Duration {
	if r != nil && r.HoldMissing != nil {
		return r.HoldMissing.Duration
	}
	return in.HoldMissing.Duration
}

// HoldUntil is when a file of the named inbox, held since since for
// missing master data, fails if the codes are still missing: since plus
// the hold_missing of its route or inbox (zero when the inbox is not
// configured or does not hold files).
func (c *Config) HoldUntil(inbox, filename string, since time.Time) time.Time {
	in := c.Inbox(inbox)
	if in == nil {
		return time.Time{}
	}
	hold := in.Hold(in.Route(filename))
	if hold <= 0 {
		return time.Time{}
	}
	return since.Add(hold)
}
