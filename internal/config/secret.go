package config

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"golang.org/x/crypto/ssh"
)

const redacted = "[redacted]"

// Secret holds a token, password, passphrase or private key read from an
// environment variable or a file. It never prints its value: fmt (every
// verb), slog, JSON and TOML all show "[redacted]". Value gives the secret
// to the one place that needs it.
type Secret struct{ v string }

// NewSecret wraps a value (for tests and the demo).
func NewSecret(v string) Secret { return Secret{v} }

// Value returns the secret itself. Never log it.
func (s Secret) Value() string { return s.v }

// IsZero reports whether no secret is set.
func (s Secret) IsZero() bool { return s.v == "" }

// String implements fmt.Stringer.
func (s Secret) String() string { return redacted }

// GoString implements fmt.GoStringer.
func (s Secret) GoString() string { return redacted }

// Format implements fmt.Formatter so that no verb prints the value.
func (s Secret) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(redacted)) }

// LogValue implements slog.LogValuer.
func (s Secret) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalText implements encoding.TextMarshaler.
func (s Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// LookupEnv is the signature of os.LookupEnv, used to resolve secrets.
type LookupEnv func(name string) (string, bool)

// ResolveSecrets reads every token, password, private key and passphrase the
// config names, from the environment (through lookup; nil means
// os.LookupEnv) and from files. Errors name the variable or the file, never a
// value; all of them are reported together.
func (c *Config) ResolveSecrets(lookup LookupEnv) error {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var p problems
	add := func(where string, err error) {
		if err != nil {
			p.add(where, "%v", err)
		}
	}
	if j := &c.Journal; j.URL != "" && (j.PasswordEnv != "" || j.PasswordFile != "") {
		add("journal", j.Password.read(lookup, "password_env", j.PasswordEnv, "password_file", j.PasswordFile))
	}
	for _, name := range c.PortalNames() {
		pt := c.Portals[name]
		add("portals."+name, pt.Token.read(lookup, "token_env", pt.TokenEnv, "token_file", pt.TokenFile))
	}
	if c.Server.TokenEnv != "" {
		add("server", c.Server.Token.fromEnv(lookup, "token_env", c.Server.TokenEnv))
	}
	for i := range c.Server.Users {
		u := &c.Server.Users[i]
		add(fmt.Sprintf("server.users[%d] %q", i, u.Name), u.Password.fromEnv(lookup, "password_env", u.PasswordEnv))
	}
	// Each box's SFTP secrets, then [smtp], then each box's webhook key.
	boxes := func(f func(where string, s *SFTP, n *Notify)) {
		for i := range c.Inboxes {
			in := &c.Inboxes[i]
			f(fmt.Sprintf("inboxes[%d] %q", i, in.Name), &in.SFTP, &in.Notify)
		}
		for i := range c.Outboxes {
			out := &c.Outboxes[i]
			f(fmt.Sprintf("outboxes[%d] %q", i, out.Name), &out.SFTP, &out.Notify)
		}
	}
	boxes(func(where string, s *SFTP, _ *Notify) { add(where, s.resolve(lookup)) })
	if c.SMTP.PasswordEnv != "" {
		add("smtp", c.SMTP.Password.fromEnv(lookup, "password_env", c.SMTP.PasswordEnv))
	}
	boxes(func(where string, _ *SFTP, n *Notify) {
		if n.WebhookSecretEnv != "" {
			add(where+" notify", n.WebhookSecret.fromEnv(lookup, "webhook_secret_env", n.WebhookSecretEnv))
		}
	})
	return p.err()
}

// resolve reads the password, private key and passphrase of an SFTP folder
// and checks that the key can be used.
func (s *SFTP) resolve(lookup LookupEnv) error {
	if s.PasswordEnv != "" || s.PasswordFile != "" {
		if err := s.Password.read(lookup, "password_env", s.PasswordEnv, "password_file", s.PasswordFile); err != nil {
			return err
		}
	}
	if s.PrivateKeyPassphraseEnv != "" {
		if err := s.PrivateKeyPassphrase.fromEnv(lookup, "private_key_passphrase_env", s.PrivateKeyPassphraseEnv); err != nil {
			return err
		}
	}
	if s.PrivateKeyFile == "" {
		return nil
	}
	if err := s.PrivateKey.fromFile("private_key_file", s.PrivateKeyFile, false); err != nil {
		return err
	}
	_, err := s.Signer()
	return err
}

// Signer parses the resolved private key (with its passphrase, if any) for
// SSH public-key authentication. It returns nil, nil when no key is set.
func (s *SFTP) Signer() (ssh.Signer, error) {
	if s.PrivateKey.IsZero() {
		return nil, nil
	}
	key := []byte(s.PrivateKey.Value())
	if !s.PrivateKeyPassphrase.IsZero() {
		signer, err := ssh.ParsePrivateKeyWithPassphrase(key, []byte(s.PrivateKeyPassphrase.Value()))
		if err != nil {
			return nil, fmt.Errorf("private_key_file %s: reading the key with the passphrase from %s: %w (check the passphrase)",
				s.PrivateKeyFile, s.PrivateKeyPassphraseEnv, err)
		}
		return signer, nil
	}
	signer, err := ssh.ParsePrivateKey(key)
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) {
		return nil, fmt.Errorf("private_key_file %s is encrypted: set private_key_passphrase_env to the variable holding its passphrase", s.PrivateKeyFile)
	}
	if err != nil {
		return nil, fmt.Errorf("private_key_file %s: reading the key: %w (use an OpenSSH or PEM private key)", s.PrivateKeyFile, err)
	}
	return signer, nil
}

// read sets the secret from whichever of the env variable or the file is
// set (validation made sure at most one is).
func (s *Secret) read(lookup LookupEnv, envKey, env, fileKey, file string) error {
	switch {
	case env != "":
		return s.fromEnv(lookup, envKey, env)
	case file != "":
		return s.fromFile(fileKey, file, true)
	}
	return fmt.Errorf("set %s or %s", envKey, fileKey)
}

// fromEnv sets the secret from the environment variable name, named by
// the key key.
func (s *Secret) fromEnv(lookup LookupEnv, key, name string) error {
	v, ok := lookup(name)
	if !ok {
		return fmt.Errorf("%s: environment variable %s is not set: export it before starting filebridge", key, name)
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return fmt.Errorf("%s: environment variable %s is empty: set it to the secret before starting filebridge", key, name)
	}
	s.v = v
	return nil
}

// fromFile sets the secret from a file; trim drops surrounding white space
// (a final newline), which matters for tokens and passwords but not for
// keys.
func (s *Secret) fromFile(key, path string, trim bool) error {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s %s does not exist: create it or correct the path", key, path)
		}
		if errors.Is(err, os.ErrPermission) {
			return fmt.Errorf("%s %s is not readable by this user: give the user filebridge runs as read access", key, path)
		}
		return fmt.Errorf("reading %s %s: %w", key, path, err)
	}
	v := string(b)
	if trim {
		v = strings.TrimSpace(v)
	}
	if strings.TrimSpace(v) == "" {
		return fmt.Errorf("%s %s is empty: write the secret into it", key, path)
	}
	s.v = v
	return nil
}
