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

var (
	_ fmt.Stringer   = Secret{}
	_ fmt.Formatter  = Secret{}
	_ slog.LogValuer = Secret{}
	_ fmt.GoStringer = Secret{}
)

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
	var errs []error
	add := func(where string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
		}
	}
	if j := &c.Journal; j.URL != "" && (j.PasswordEnv != "" || j.PasswordFile != "") {
		var err error
		j.Password, err = secretFrom(lookup, "password_env", j.PasswordEnv, "password_file", j.PasswordFile)
		add("journal", err)
	}
	for _, name := range c.PortalNames() {
		p := c.Portals[name]
		var err error
		p.Token, err = secretFrom(lookup, "token_env", p.TokenEnv, "token_file", p.TokenFile)
		add(fmt.Sprintf("portals.%s", name), err)
	}
	if c.Server.TokenEnv != "" {
		var err error
		c.Server.Token, err = fromEnv(lookup, "token_env", c.Server.TokenEnv)
		add("server", err)
	}
	for i := range c.Server.Users {
		u := &c.Server.Users[i]
		var err error
		u.Password, err = fromEnv(lookup, "password_env", u.PasswordEnv)
		add(fmt.Sprintf("server.users[%d] %q", i, u.Name), err)
	}
	for i := range c.Inboxes {
		in := &c.Inboxes[i]
		add(fmt.Sprintf("inboxes[%d] %q", i, in.Name), in.SFTP.resolve(lookup))
	}
	for i := range c.Outboxes {
		out := &c.Outboxes[i]
		add(fmt.Sprintf("outboxes[%d] %q", i, out.Name), out.SFTP.resolve(lookup))
	}
	c.resolveNotify(lookup, add)
	if len(errs) > 0 {
		return &Error{Problems: problemsOf(errs)}
	}
	return nil
}

func problemsOf(errs []error) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

// resolve reads the password, private key and passphrase of an SFTP folder
// and checks that the key can be used.
func (s *SFTP) resolve(lookup LookupEnv) error {
	var err error
	if s.PasswordEnv != "" || s.PasswordFile != "" {
		if s.Password, err = secretFrom(lookup, "password_env", s.PasswordEnv, "password_file", s.PasswordFile); err != nil {
			return err
		}
	}
	if s.PrivateKeyPassphraseEnv != "" {
		if s.PrivateKeyPassphrase, err = fromEnv(lookup, "private_key_passphrase_env", s.PrivateKeyPassphraseEnv); err != nil {
			return err
		}
	}
	if s.PrivateKeyFile == "" {
		return nil
	}
	pem, err := fromFile("private_key_file", s.PrivateKeyFile, false)
	if err != nil {
		return err
	}
	s.PrivateKey = pem
	if _, err := s.Signer(); err != nil {
		return err
	}
	return nil
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

// secretFrom reads a secret from whichever of the env variable or the file
// is set (validation made sure at most one is).
func secretFrom(lookup LookupEnv, envKey, env, fileKey, file string) (Secret, error) {
	switch {
	case env != "":
		return fromEnv(lookup, envKey, env)
	case file != "":
		return fromFile(fileKey, file, true)
	}
	return Secret{}, fmt.Errorf("set %s or %s", envKey, fileKey)
}

func fromEnv(lookup LookupEnv, key, name string) (Secret, error) {
	v, ok := lookup(name)
	if !ok {
		return Secret{}, fmt.Errorf("%s: environment variable %s is not set: export it before starting filebridge", key, name)
	}
	v = strings.TrimSpace(v)
	if v == "" {
		return Secret{}, fmt.Errorf("%s: environment variable %s is empty: set it to the secret before starting filebridge", key, name)
	}
	return Secret{v}, nil
}

// fromFile reads a secret file; trim drops surrounding white space (a final
// newline), which matters for tokens and passwords but not for keys.
func fromFile(key, path string, trim bool) (Secret, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Secret{}, fmt.Errorf("%s %s does not exist: create it or correct the path", key, path)
		}
		if errors.Is(err, os.ErrPermission) {
			return Secret{}, fmt.Errorf("%s %s is not readable by this user: give the user filebridge runs as read access", key, path)
		}
		return Secret{}, fmt.Errorf("reading %s %s: %w", key, path, err)
	}
	v := string(b)
	if trim {
		v = strings.TrimSpace(v)
	}
	if strings.TrimSpace(v) == "" {
		return Secret{}, fmt.Errorf("%s %s is empty: write the secret into it", key, path)
	}
	return Secret{v}, nil
}
