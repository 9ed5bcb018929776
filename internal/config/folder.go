package config

import (
	"encoding/base64"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"filebridge/internal/folderurl"
)

// checkFolder parses the url of an inbox or outbox into *f (left as it is
// when the url is wrong) and checks its connection settings s.
func (c *Config) checkFolder(p *problems, where, url string, f *FolderURL, s *SFTP) {
	parsed, err := folderurl.Parse(url, c.Dir)
	if err != nil {
		p.add(where, "%v", err)
	} else {
		*f = parsed
	}
	checkSFTP(p, where, *f, s)
}

// checkSFTP checks the connection settings against the folder's scheme and
// settles the parsed fingerprints.
func checkSFTP(p *problems, where string, f FolderURL, s *SFTP) {
	if !f.IsSFTP() {
		var set []string
		for _, kv := range [][2]string{
			{"password_env", s.PasswordEnv}, {"password_file", s.PasswordFile},
			{"private_key_file", s.PrivateKeyFile}, {"private_key_passphrase_env", s.PrivateKeyPassphraseEnv},
			{"known_hosts", s.KnownHosts}, {"host_key_fingerprint", s.HostKeyFingerprint},
		} {
			if kv[1] != "" {
				set = append(set, kv[0])
			}
		}
		if len(set) > 0 && f.Scheme != "" {
			p.add(where, "%s only apply to sftp:// urls: remove them for a local folder", strings.Join(set, ", "))
		}
		return
	}
	checkSecretSource(p, where, "password_env", s.PasswordEnv, "password_file", s.PasswordFile, false)
	if s.PasswordEnv == "" && s.PasswordFile == "" && s.PrivateKeyFile == "" {
		p.add(where, "no SFTP credentials: set password_env, password_file or private_key_file")
	}
	if s.PrivateKeyPassphraseEnv != "" {
		if s.PrivateKeyFile == "" {
			p.add(where, "private_key_passphrase_env is set but private_key_file is not")
		}
		if !envPattern.MatchString(s.PrivateKeyPassphraseEnv) {
			p.add(where, "private_key_passphrase_env must be the name of an environment variable, not the passphrase itself")
		}
	}
	switch {
	case s.KnownHosts == "" && s.HostKeyFingerprint == "":
		p.add(where, "the server's host key cannot be verified: set known_hosts to a known_hosts file, or host_key_fingerprint to \"SHA256:...\" (ssh-keygen -lf key.pub); there is no insecure default")
	case s.KnownHosts != "" && s.HostKeyFingerprint != "":
		p.add(where, "set either known_hosts or host_key_fingerprint, not both")
	case s.HostKeyFingerprint != "":
		s.HostKeyFingerprints = nil
		for _, fp := range strings.Split(s.HostKeyFingerprint, ",") {
			fp = strings.TrimSpace(fp)
			if err := checkFingerprint(fp); err != nil {
				p.add(where, "host_key_fingerprint: %v", err)
				continue
			}
			s.HostKeyFingerprints = append(s.HostKeyFingerprints, fp)
		}
	}
}

// checkFingerprint accepts the SHA-256 fingerprint format of ssh-keygen and
// ssh.FingerprintSHA256: "SHA256:" and 43 characters of unpadded base64.
func checkFingerprint(fp string) error {
	b64, ok := strings.CutPrefix(fp, "SHA256:")
	if !ok {
		return fmt.Errorf("%q: write the SHA-256 fingerprint as printed by ssh-keygen -lf, \"SHA256:\" followed by 43 characters (MD5 fingerprints are not accepted)", fp)
	}
	sum, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(b64, "="))
	if err != nil || len(sum) != 32 {
		return fmt.Errorf("%q is not a SHA-256 fingerprint: after \"SHA256:\" come 43 base64 characters", fp)
	}
	return nil
}

// checkSubdir checks a folder name inside an inbox or outbox (box).
func checkSubdir(dir, box string) error {
	d := filepath.ToSlash(dir)
	switch {
	case strings.HasPrefix(d, "/") || filepath.IsAbs(dir):
		return fmt.Errorf("%q must be a folder inside the %s, not an absolute path", dir, box)
	case d != path.Clean(d) || d == ".":
		return fmt.Errorf("%q: write a plain relative folder such as \"processed\"", dir)
	case d == ".." || strings.HasPrefix(d, "../"):
		return fmt.Errorf("%q leaves the %s: use a folder inside it", dir, box)
	}
	return nil
}
