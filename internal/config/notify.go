package config

import (
	"net"
	"net/mail"
	"net/url"
	"strconv"

	"filebridge/internal/redact"
)

// Notify says who hears of an inbox's or an outbox's trouble (a file
// failed, a file held for master data past HeldAfter, an export failed):
// a webhook, e-mail through [smtp], or both.
type Notify struct {
	// WebhookURL receives each event as a JSON POST (http or https).
	WebhookURL string `toml:"webhook_url"`
	// WebhookSecretEnv names the variable holding the key the body is
	// signed with (HMAC-SHA256, header X-Filebridge-Signature: sha256=HEX).
	// Required with WebhookURL.
	WebhookSecretEnv string `toml:"webhook_secret_env"`
	WebhookSecret    Secret `toml:"-"`
	// Email lists the addresses that get each event by mail, a failed
	// file's report attached. Needs [smtp].
	Email []string `toml:"email"`
	// HeldAfter (inboxes only): a file held for master data longer than
	// this is notified once. Default "0s": not notified (its failure, when
	// hold_missing runs out, is).
	HeldAfter Duration `toml:"held_after"`
}

// Enabled reports whether anyone is to be told.
func (n Notify) Enabled() bool { return n.WebhookURL != "" || len(n.Email) > 0 }

// SMTP is the mail server notifications are sent through.
type SMTP struct {
	// Host and Port of the submission server. Port default 587.
	Host string `toml:"host"`
	Port int    `toml:"port"`
	// From is the sender address. Required.
	From string `toml:"from"`
	// Username and PasswordEnv log in (PLAIN or LOGIN, only over TLS);
	// none: no login.
	Username    string `toml:"username"`
	PasswordEnv string `toml:"password_env"`
	Password    Secret `toml:"-"`
	// TLS is "starttls" (default), "tls" (implicit, port 465) or "none",
	// which only a loopback host may use.
	TLS string `toml:"tls"`
}

// validateNotify checks one inbox's or outbox's [notify] table.
func (c *Config) validateNotify(p *problems, where string, n *Notify, inbox bool) {
	where += " notify"
	if n.WebhookURL != "" {
		u, err := url.Parse(n.WebhookURL)
		switch {
		case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
			p.add(where, "webhook_url %q: use an absolute http:// or https:// URL", redact.URL(n.WebhookURL))
		case u.User != nil:
			p.add(where, "webhook_url must not carry credentials: the body is signed with webhook_secret_env")
		}
		if n.WebhookSecretEnv == "" {
			p.add(where, "webhook_url needs webhook_secret_env, naming the variable that holds the signing key (the receiver checks X-Filebridge-Signature with it)")
		} else if !envPattern.MatchString(n.WebhookSecretEnv) {
			p.add(where, "webhook_secret_env %q is not an environment variable name", n.WebhookSecretEnv)
		}
	} else if n.WebhookSecretEnv != "" {
		p.add(where, "webhook_secret_env is set without webhook_url")
	}
	for _, a := range n.Email {
		if _, err := mail.ParseAddress(a); err != nil {
			p.add(where, "email %q is not an address (%v)", a, err)
		}
	}
	if len(n.Email) > 0 && c.SMTP.Host == "" {
		p.add(where, "email needs an [smtp] table with host and from")
	}
	if n.HeldAfter.Duration < 0 {
		p.add(where, "held_after must not be negative")
	}
	if !inbox && n.HeldAfter.Duration != 0 {
		p.add(where, "held_after applies to inboxes only")
	}
}

// validateSMTP checks [smtp] when it is set.
func (c *Config) validateSMTP(p *problems) {
	s := &c.SMTP
	if *s == (SMTP{}) {
		return
	}
	if s.Host == "" {
		p.add("smtp.host", "is required (the mail server notifications go through)")
	}
	if s.Port < 1 || s.Port > 65535 {
		p.add("smtp.port", "%d is not a port from 1 to 65535", s.Port)
	}
	if _, err := mail.ParseAddress(s.From); err != nil {
		p.add("smtp.from", "%q is not an address: set the sender of the notifications (%v)", s.From, err)
	}
	switch s.TLS {
	case "starttls", "tls":
	case "none":
		if !loopback(net.JoinHostPort(s.Host, strconv.Itoa(s.Port))) {
			p.add("smtp.tls", `"none" sends mail and password in clear text: only a server on this machine (127.0.0.1) may use it; use "starttls" or "tls"`)
		}
	default:
		p.add("smtp.tls", "%q: use \"starttls\", \"tls\" or \"none\"", s.TLS)
	}
	if (s.Username == "") != (s.PasswordEnv == "") {
		p.add("smtp", "username and password_env go together")
	}
	if s.PasswordEnv != "" && !envPattern.MatchString(s.PasswordEnv) {
		p.add("smtp.password_env", "%q is not an environment variable name", s.PasswordEnv)
	}
}
