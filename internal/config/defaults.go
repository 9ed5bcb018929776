package config

import (
	"cmp"
	"path/filepath"
	"strings"
	"time"
)

// Defaults of every key that has one. config.toml.example repeats them for
// users; a test keeps the two in step.
const (
	DefaultJournalPath          = "var/filebridge.db"
	DefaultLease                = 30 * time.Second
	DefaultJournalRetention     = History(0) // for ever
	DefaultListen               = "127.0.0.1:9464"
	DefaultLogLevel             = "info"
	DefaultLogFormat            = "json"
	DefaultConcurrency          = 8
	DefaultTimeout              = 30 * time.Second
	DefaultMaxRetries           = 8
	DefaultRetryMaxWait         = 2 * time.Minute
	DefaultItemsPerPage         = 1000
	DefaultShipmentStatusFilter = "status.code"
	DefaultSFTPPoll             = 15 * time.Second
	DefaultLocalPoll            = 60 * time.Second
	DefaultSettle               = 5 * time.Second
	DefaultProcessingDir        = "processing"
	DefaultProcessedDir         = "processed"
	DefaultErrorDir             = "error"
	DefaultMaxFileSize          = ByteSize(100 << 20)
	DefaultOperationTimeout     = 30 * time.Second
	DefaultRetryBackoff         = 30 * time.Second
	DefaultRetryBackoffMax      = 15 * time.Minute
	DefaultHoldMissing          = 30 * time.Minute
	DefaultErrorRetention       = 30 * 24 * time.Hour
	DefaultFileConcurrency      = 16
	DefaultUnmatched            = UnmatchedLeave
	DefaultPolicy               = PolicyReject
	DefaultCharset              = "utf-8"
	DefaultDecimal              = "."
	DefaultTimezone             = "UTC"
	DefaultExportDelimiter      = ","
)

// What becomes of a file no route matches.
const (
	UnmatchedLeave = "leave"
	UnmatchedError = "error"
)

// Route policies.
const (
	PolicyReject  = "reject"
	PolicyPartial = "partial"
)

// File formats.
const (
	FormatCSV     = "csv"
	FormatXLSX    = "xlsx"
	FormatFixed   = "fixed" // fixed-width lines, cut by a layout
	FormatX12     = "x12"
	FormatEDIFACT = "edifact"
)

// fileFormats are the formats a route reads and an export writes.
var fileFormats = []string{FormatCSV, FormatXLSX, FormatFixed, FormatX12, FormatEDIFACT}

// DefaultX12Version is the X12 version of exports (GS08).
const DefaultX12Version = "004010"

// DefaultEDIFACTRelease and DefaultEDIFACTSyntax are the directory and
// syntax identifier of edifact exports.
const (
	DefaultEDIFACTRelease = "96A"
	DefaultEDIFACTSyntax  = "UNOC"
)

// DefaultAckDir is the inbox folder of the acknowledgements (997) of EDI files.
const DefaultAckDir = "acks"

// New returns a Config holding the top-level defaults, the state before a
// file is decoded into it.
func New() *Config {
	return &Config{
		Journal: Journal{Path: DefaultJournalPath},
		Server:  Server{Listen: DefaultListen},
		Log:     Log{Level: DefaultLogLevel, Format: DefaultLogFormat},
	}
}

// provision fills the defaults of the keys a file left out, below the top
// level (tables created by the decoder start from zero values), and makes
// relative file paths absolute against the config's folder.
func (c *Config) provision(p presence) {
	c.Journal.Path = c.abs(c.Journal.Path)
	c.SMTP.provision()
	setDefault(&c.Journal.Lease.Duration, p.table("journal"), "lease", DefaultLease)
	setDefault(&c.Journal.Retention, p.table("journal"), "retention", DefaultJournalRetention)
	if c.Journal.PasswordFile != "" {
		c.Journal.PasswordFile = c.abs(c.Journal.PasswordFile)
	}
	portals := p.table("portals")
	for name, pt := range c.Portals {
		if pt == nil {
			continue
		}
		pt.Name = name
		pt.provision(portals.table(name))
		pt.TokenFile = c.abs(pt.TokenFile)
	}
	for i := range c.Inboxes {
		in := &c.Inboxes[i]
		ip := p.elem("inboxes", i)
		in.provision(ip)
		in.SFTP.absPaths(c)
		if len(in.Routes) == 0 {
			// An inbox without routes reads every file with the defaults,
			// its type taken from the header row.
			in.Routes = []Route{{Match: "*"}}
		}
		for j := range in.Routes {
			in.Routes[j].provision(ip.elem("routes", j))
		}
	}
	for i := range c.Outboxes {
		out := &c.Outboxes[i]
		op := p.elem("outboxes", i)
		setDefault(&out.OperationTimeout.Duration, op, "operation_timeout", DefaultOperationTimeout)
		out.SFTP.absPaths(c)
		for j := range out.Exports {
			out.Exports[j].provision()
		}
	}
}

// provision fills the port and tls of a [smtp] that is set: 465 for
// implicit TLS, 587 (STARTTLS) otherwise.
func (s *SMTP) provision() {
	if *s == (SMTP{}) {
		return
	}
	s.TLS = cmp.Or(strings.ToLower(strings.TrimSpace(s.TLS)), "starttls")
	if s.Port == 0 {
		s.Port = 587
		if s.TLS == "tls" {
			s.Port = 465
		}
	}
}

func (pt *Portal) provision(p presence) {
	setDefault(&pt.Concurrency, p, "concurrency", DefaultConcurrency)
	setDefault(&pt.Timeout.Duration, p, "timeout", DefaultTimeout)
	setDefault(&pt.MaxRetries, p, "max_retries", DefaultMaxRetries)
	setDefault(&pt.RetryMaxWait.Duration, p, "retry_max_wait", DefaultRetryMaxWait)
	setDefault(&pt.ItemsPerPage, p, "items_per_page", DefaultItemsPerPage)
	setStr(&pt.ShipmentStatusFilter, DefaultShipmentStatusFilter)
	pt.BaseURL = strings.TrimRight(strings.TrimSpace(pt.BaseURL), "/")
}

func (in *Inbox) provision(p presence) {
	poll := DefaultLocalPoll
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(in.URL)), SchemeSFTP+":") {
		poll = DefaultSFTPPoll
	}
	setDefault(&in.Poll.Duration, p, "poll", poll)
	setDefault(&in.Settle.Duration, p, "settle", DefaultSettle)
	setStr(&in.ProcessingDir, DefaultProcessingDir)
	setStr(&in.ProcessedDir, DefaultProcessedDir)
	setStr(&in.ErrorDir, DefaultErrorDir)
	setDefault(&in.MaxFileSize, p, "max_file_size", DefaultMaxFileSize)
	setDefault(&in.OperationTimeout.Duration, p, "operation_timeout", DefaultOperationTimeout)
	setDefault(&in.RetryBackoff.Duration, p, "retry_backoff", DefaultRetryBackoff)
	setDefault(&in.RetryBackoffMax.Duration, p, "retry_backoff_max", DefaultRetryBackoffMax)
	setDefault(&in.HoldMissing.Duration, p, "hold_missing", DefaultHoldMissing)
	setDefault(&in.ErrorRetention, p, "error_retention", Keep(DefaultErrorRetention))
	setDefault(&in.FileConcurrency, p, "file_concurrency", DefaultFileConcurrency)
	setStr(&in.Unmatched, DefaultUnmatched)
}

func (r *Route) provision(p presence) {
	setStr(&r.Policy, DefaultPolicy)
	setStr(&r.Charset, DefaultCharset)
	setStr(&r.Decimal, DefaultDecimal)
	setStr(&r.Timezone, DefaultTimezone)
	setStr(&r.AckDir, DefaultAckDir)
	setDefault(&r.Header, p, "header", true)
}

// provision fills the defaults that do not depend on other keys; format and
// filename are settled by validation, once the type is known.
func (e *Export) provision() {
	setStr(&e.Timezone, DefaultTimezone)
	setStr(&e.Delimiter, DefaultExportDelimiter)
	setStr(&e.Charset, DefaultCharset)
	setStr(&e.Decimal, DefaultDecimal)
	e.X12.Version = cmp.Or(e.X12.Version, DefaultX12Version)
	e.EDIFACT.Release = cmp.Or(e.EDIFACT.Release, DefaultEDIFACTRelease)
	e.EDIFACT.Syntax = cmp.Or(e.EDIFACT.Syntax, DefaultEDIFACTSyntax)
}

func (s *SFTP) absPaths(c *Config) {
	s.PasswordFile = c.abs(s.PasswordFile)
	s.PrivateKeyFile = c.abs(s.PrivateKeyFile)
	s.KnownHosts = c.abs(s.KnownHosts)
}

// abs resolves a relative path against the config's folder; "" stays "".
func (c *Config) abs(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Dir, p)
}

func setStr(v *string, def string) {
	*v = strings.TrimSpace(*v)
	if *v == "" {
		*v = def
	}
}

// setDefault sets *v to def when the file leaves key out of its table p.
func setDefault[T any](v *T, p presence, key string, def T) {
	if !p.has(key) {
		*v = def
	}
}
