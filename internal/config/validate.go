package config

import (
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"filebridge/internal/model"
	"filebridge/internal/redact"
)

// problems collects validation messages so that a user sees all of them at
// once.
type problems struct{ list []string }

func (p *problems) add(where, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if where != "" {
		msg = where + ": " + msg
	}
	p.list = append(p.list, msg)
}

// check adds err, when there is one, as a problem at where.
func (p *problems) check(where string, err error) {
	if err != nil {
		p.add(where, "%v", err)
	}
}

func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	return &Error{Problems: p.list}
}

// namePattern is what portal, inbox and outbox names may contain: they show
// up in metrics labels, file names and command lines.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// envPattern is a POSIX environment variable name.
var envPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// validate checks the whole configuration and settles the values derived
// from it (parsed URLs, time zones, canonical names).
func (c *Config) validate() error {
	var p problems
	if strings.TrimSpace(c.Journal.Path) == "" {
		p.add("journal.path", "must not be empty (default %q)", DefaultJournalPath)
	}
	c.Journal.validate(&p)
	if l := c.Server.Listen; l != "" {
		if err := checkListen(l); err != nil {
			p.add("server.listen", "%v", err)
		} else if !loopback(l) && c.Server.TokenEnv == "" && len(c.Server.Users) == 0 {
			p.add("server.listen", "%q is reachable from other machines and the web console would be open to them: set [server] token_env (or add [[server.users]] with name and password_env), or listen on 127.0.0.1", l)
		}
	}
	for i, u := range c.Server.Users {
		if u.Name == "" || u.PasswordEnv == "" || strings.Contains(u.Name, ":") {
			p.add(fmt.Sprintf("server.users[%d]", i), "needs a name (without ':') and a password_env naming the variable that holds the password")
		}
	}
	c.Log.Level = strings.ToLower(strings.TrimSpace(c.Log.Level))
	if _, ok := parseLevel(c.Log.Level); !ok {
		p.add("log.level", "%q: use \"debug\", \"info\", \"warn\" or \"error\"", c.Log.Level)
	}
	c.Log.Format = strings.ToLower(strings.TrimSpace(c.Log.Format))
	if c.Log.Format != "json" && c.Log.Format != "text" {
		p.add("log.format", "%q: use \"json\" or \"text\"", c.Log.Format)
	}
	if len(c.Portals) == 0 {
		p.add("", "no portal: add a [portals.NAME] table with edition, base_url, company and token_env")
	}
	for _, name := range c.PortalNames() {
		c.validatePortal(&p, name)
	}
	seen := map[string]int{}
	urls := map[string]int{}
	for i := range c.Inboxes {
		in := &c.Inboxes[i]
		where := fmt.Sprintf("inboxes[%d] %q", i, in.Name)
		checkName(&p, where, in.Name, "inbox", "inboxes", i, seen)
		c.validateInbox(&p, where, in)
		if keep, history := in.ErrorRetention.Dur(), c.Journal.Retention.Dur(); history > 0 && keep > history {
			p.add(where, "error_retention %q is longer than journal.retention %q: the journal would forget resolved failures before their files leave error/; set journal.retention to at least %[1]q",
				durText(keep), durText(history))
		}
		c.validateNotify(&p, where, &in.Notify, true)
		if in.Folder.Scheme != "" {
			if j, dup := urls[in.Folder.String()]; dup {
				p.add(where, "url %s is also the url of inboxes[%d]: two inboxes must not watch one folder", in.Folder, j)
			} else {
				urls[in.Folder.String()] = i
			}
		}
	}
	seen = map[string]int{}
	for i := range c.Outboxes {
		out := &c.Outboxes[i]
		where := fmt.Sprintf("outboxes[%d] %q", i, out.Name)
		checkName(&p, where, out.Name, "outbox", "outboxes", i, seen)
		c.validateOutbox(&p, where, out)
		c.validateNotify(&p, where, &out.Notify, false)
	}
	c.validateSMTP(&p)
	return p.err()
}

func checkName(p *problems, where, name, what, list string, i int, seen map[string]int) {
	switch {
	case name == "":
		p.add(where, "name is required: give the %s a short unique name such as \"erp\"", what)
		return
	case !namePattern.MatchString(name):
		p.add(where, "name may hold only letters, digits, \"_\", \"-\" and \".\"")
	}
	if j, dup := seen[name]; dup {
		p.add(where, "duplicate %s name: %s[%d] is also called %q", what, list, j, name)
		return
	}
	seen[name] = i
}

// loopback reports whether host:port only listens on this machine.
func loopback(l string) bool {
	host, _, err := net.SplitHostPort(l)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func checkListen(l string) error {
	host, port, err := net.SplitHostPort(l)
	if err != nil {
		return fmt.Errorf("%q is not host:port (e.g. \"127.0.0.1:9464\"; \"\" turns the server off)", l)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q: port %q is not a number from 0 to 65535", l, port)
	}
	if host != "" && net.ParseIP(host) == nil && !namePattern.MatchString(host) {
		return fmt.Errorf("%q: host %q is neither an IP address nor a host name", l, host)
	}
	return nil
}

// logLevels are the names [log] level takes ("" is info).
var logLevels = map[string]slog.Level{
	"debug": slog.LevelDebug, "info": slog.LevelInfo, "": slog.LevelInfo,
	"warn": slog.LevelWarn, "warning": slog.LevelWarn, "error": slog.LevelError,
}

// parseLevel is the level a name stands for (info, false for another name).
func parseLevel(s string) (slog.Level, bool) {
	l, ok := logLevels[s]
	return l, ok
}

func (c *Config) validatePortal(p *problems, name string) {
	pt := c.Portals[name]
	where := "portals." + name
	if !namePattern.MatchString(name) {
		p.add(where, "portal name may hold only letters, digits, \"_\", \"-\" and \".\"")
	}
	if pt == nil {
		return
	}
	if pt.Edition == "" {
		p.add(where, "edition is required: \"A\" (API v1.2.0) or \"B\" (API v1.1.0)")
	} else if e, err := model.ParseEdition(string(pt.Edition)); err != nil {
		p.add(where, "edition: %v", err)
	} else {
		pt.Edition = e
	}
	if err := checkBaseURL(pt.BaseURL); err != nil {
		p.add(where, "base_url: %v", err)
	}
	if pt.Company <= 0 {
		p.add(where, "company must be the positive company id the operator gave you (got %d)", pt.Company)
	}
	checkSecretSource(p, where, "token_env", pt.TokenEnv, "token_file", pt.TokenFile, true)
	checkRange(p, where, "concurrency", pt.Concurrency, 1, 64)
	checkRange(p, where, "max_retries", pt.MaxRetries, 0, 100)
	checkRange(p, where, "items_per_page", pt.ItemsPerPage, 1, 10000)
	checkPositive(p, where, "timeout", pt.Timeout, "default "+DefaultTimeout.String())
	checkPositive(p, where, "retry_max_wait", pt.RetryMaxWait, "default "+DefaultRetryMaxWait.String())
	for _, res := range sortedKeys(pt.Paths) {
		v := pt.Paths[res]
		if !slices.Contains(Resources, res) {
			p.add(where+".paths", "unknown resource %q: use one of %s", res, strings.Join(Resources, ", "))
			continue
		}
		if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \t?#") {
			p.add(where+".paths", "%s = %q: a path starts with \"/\" and is relative to base_url, e.g. %q", res, v, "/"+strings.ReplaceAll(res, "_", "-"))
		}
	}
}

func checkBaseURL(raw string) error {
	if raw == "" {
		return fmt.Errorf("required: the API's absolute URL, e.g. \"https://portal.example.com/api\"")
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return fmt.Errorf("%q is not an absolute URL: write it like \"https://portal.example.com/api\"", raw)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q: scheme %q is not supported: use http:// or https://", raw, u.Scheme)
	}
	if u.User != nil {
		return fmt.Errorf("the URL must not carry credentials: use token_env or token_file")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q: drop the query and fragment, only scheme, host and path are used", raw)
	}
	return nil
}

// checkSecretSource checks a pair of env/file keys: at most one set (exactly
// one when required), and the env key holding a variable name rather than
// the secret itself (whose value is then never echoed).
func checkSecretSource(p *problems, where, envKey, env, fileKey, file string, required bool) {
	switch {
	case env != "" && file != "":
		p.add(where, "set either %s or %s, not both", envKey, fileKey)
	case required && env == "" && file == "":
		p.add(where, "no token: set %s to the name of the environment variable holding it, or %s to a file holding it", envKey, fileKey)
	}
	if env != "" && !envPattern.MatchString(env) {
		p.add(where, "%s must be the name of an environment variable (letters, digits, \"_\"), e.g. \"FILEBRIDGE_TOKEN\", not the secret itself", envKey)
	}
}

// checkPositive reports a duration key that is not more than 0s; hint
// says what to write instead.
func checkPositive(p *problems, where, key string, d Duration, hint string) {
	if d.Duration <= 0 {
		p.add(where, "%s must be more than 0s (%s)", key, hint)
	}
}

func checkRange(p *problems, where, key string, v, lo, hi int) {
	if v < lo || v > hi {
		p.add(where, "%s = %d: must be from %d to %d", key, v, lo, hi)
	}
}

// validate checks the PostgreSQL keys of [journal].
func (j *Journal) validate(p *problems) {
	if j.Lease.Duration < time.Second {
		p.add("journal.lease", "%s: must be at least 1s (default %s): it is how long another instance waits before taking over the files of one that stopped", j.Lease.Duration, DefaultLease)
	}
	if j.URL == "" {
		if j.PasswordEnv != "" || j.PasswordFile != "" {
			p.add("journal.password_env", "a password is only used with journal.url (PostgreSQL): set url or drop password_env/password_file")
		}
		return
	}
	if j.PasswordEnv != "" && j.PasswordFile != "" {
		p.add("journal.password_env", "set only one of password_env and password_file")
	}
	if !strings.HasPrefix(j.URL, "postgres://") && !strings.HasPrefix(j.URL, "postgresql://") {
		p.add("journal.url", "%q: must start with postgres:// or postgresql://", redact.URL(j.URL))
		return
	}
	u, err := url.Parse(j.URL)
	if err != nil {
		p.add("journal.url", "cannot be read as a URL: write it as postgres://user@host:5432/database?sslmode=verify-full")
		return
	}
	if _, has := u.User.Password(); has || u.Query().Has("password") {
		p.add("journal.url", "%s holds a password: move it to the variable named by password_env or the file named by password_file", redact.URL(j.URL))
	}
}
