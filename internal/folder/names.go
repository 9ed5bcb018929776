package folder

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// ErrInvalidName is returned (wrapped, together with fs.ErrInvalid) for a
// name that is absolute, climbs out of the root or holds unsafe characters.
var ErrInvalidName = errors.New("invalid file name")

// ErrLink is returned (wrapped, together with fs.ErrPermission) by Stat
// and Open for a symbolic link a folder does not follow: any link on SFTP,
// a link leading out of the root locally. The name exists.
var ErrLink = errors.New("symbolic link not followed")

// Taken reads the error of a Stat that asks whether a name is free: false
// for "does not exist", true for an entry (a link the folder does not
// follow included), and any other error (a refused permission, a server
// that does not answer) as it is, for the caller to report at once rather
// than take the name for used.
func Taken(err error) (bool, error) {
	switch {
	case err == nil || errors.Is(err, ErrLink):
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, err
}

// cleanName checks a relative slash-separated name and returns it in the
// form "." (root) or "a/b/c". Empty components and "." components are
// accepted and dropped; "..", leading "/", backslash, NUL and other control
// characters are refused.
func cleanName(name string) (string, error) {
	if name == "" || name == "." {
		return ".", nil
	}
	if strings.HasPrefix(name, "/") {
		return "", badName(name, "absolute paths are not allowed; names are relative to the folder root")
	}
	var parts []string
	for _, p := range strings.Split(name, "/") {
		switch p {
		case "", ".":
			continue
		case "..":
			return "", badName(name, `".." is not allowed`)
		}
		if reason := unsafeChars(p); reason != "" {
			return "", badName(name, reason)
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return ".", nil
	}
	return strings.Join(parts, "/"), nil
}

// cleanPair cleans the names of a move, neither of which may be the root.
func cleanPair(from, to string) (cfrom, cto string, err error) {
	if cfrom, err = cleanName(from); err != nil {
		return "", "", err
	}
	if cto, err = cleanName(to); err != nil {
		return "", "", err
	}
	if cfrom == "." || cto == "." {
		return "", "", badName(".", "the folder root cannot be moved")
	}
	return cfrom, cto, nil
}

// validEntryName reports why a name read from a directory listing is unsafe,
// or "" when it is fine.
func validEntryName(name string) string {
	switch name {
	case "", ".", "..":
		return "reserved name"
	}
	if strings.Contains(name, "/") {
		return "contains a slash"
	}
	if strings.Contains(name, "..") {
		return `contains ".."`
	}
	return unsafeChars(name)
}

// ErrNotRegular is returned (wrapped, together with fs.ErrInvalid) by Open
// for a named pipe, a socket, a device or a directory: only regular files
// are read.
var ErrNotRegular = errors.New("not a regular file")

// irregular says what kind of entry a mode is when it is neither a regular
// file nor a directory ("" when it is one of those).
func irregular(m fs.FileMode) string {
	switch {
	case m.IsRegular(), m.IsDir():
		return ""
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// notRegular is the error of opening an entry that is not a regular file.
func notRegular(name string, m fs.FileMode) error {
	what := irregular(m)
	if m.IsDir() {
		what = "a directory"
	}
	return fmt.Errorf("%s is %s: %w: %w", name, what, ErrNotRegular, fs.ErrInvalid)
}

func unsafeChars(s string) string {
	for _, r := range s {
		switch {
		case r == '\\':
			return "contains a backslash"
		case r == 0:
			return "contains a NUL character"
		case unicode.IsControl(r):
			return "contains a control character"
		}
	}
	return ""
}

func badName(name, reason string) error {
	return fmt.Errorf("%w %q: %s: %w", ErrInvalidName, name, reason, fs.ErrInvalid)
}

// splitName splits a cleaned name into its directory ("." for the root) and
// its final element.
func splitName(clean string) (dir, base string) {
	dir, base = path.Split(clean)
	if dir == "" {
		return ".", base
	}
	return strings.TrimSuffix(dir, "/"), base
}

// maxUnique bounds the suffixes UniqueName tries.
const maxUnique = 10000

// UniqueName returns a name in dir for base that does not exist yet: base
// itself, else base with ".1", ".2", ... inserted before the extension
// ("ORDERS.csv", "ORDERS.1.csv", "ORDERS.2.csv"; "README", "README.1").
// The result is the relative path joined with dir. Another writer may take
// the name before it is used, so callers rename with Folder.Rename (which
// never overwrites) and retry on fs.ErrExist, as RenameUnique does.
func UniqueName(ctx context.Context, f Folder, dir, base string) (string, error) {
	first, err := entryPath(dir, base)
	if err != nil {
		return "", err
	}
	cdir := path.Dir(first)
	// Each candidate is asked for rather than the folder listed: a folder
	// of a day's files listed once per file made many small files
	// quadratic.
	stem, ext := splitExt(base)
	for i := 0; i < maxUnique; i++ {
		cand := base
		if i > 0 {
			cand = stem + "." + strconv.Itoa(i) + ext
		}
		full := path.Join(cdir, cand)
		_, err := f.Stat(ctx, full)
		taken, err := Taken(err)
		switch {
		case err != nil:
			return "", fmt.Errorf("choosing a unique name for %s in %s: %w", base, cdir, err)
		case !taken:
			return full, nil
		}
	}
	return "", fmt.Errorf("choosing a unique name for %s in %s: %d names taken, clean the folder up: %w",
		base, cdir, maxUnique, fs.ErrExist)
}

// entryPath is base in dir, once dir is a clean relative folder name and
// base one entry's name.
func entryPath(dir, base string) (string, error) {
	cdir, err := cleanName(dir)
	if err != nil {
		return "", fmt.Errorf("choosing a unique name in %q: %w", dir, err)
	}
	if reason := validEntryName(base); reason != "" {
		return "", fmt.Errorf("choosing a unique name in %q: %w", dir, badName(base, reason))
	}
	return path.Join(cdir, base), nil
}

// RenameUnique moves from into dir under base, or under the first free
// suffixed name (see UniqueName) when base is taken. It never overwrites
// and returns the name used. Base is tried without asking first whether
// it is free: the rename itself refuses to replace a file.
func RenameUnique(ctx context.Context, f Folder, from, dir, base string) (string, error) {
	to, err := entryPath(dir, base)
	if err != nil {
		return "", err
	}
	for attempt := 0; ; attempt++ {
		err := f.Rename(ctx, from, to)
		if err == nil {
			return to, nil
		}
		if !errors.Is(err, fs.ErrExist) || attempt > 10 {
			return "", err
		}
		if to, err = UniqueName(ctx, f, dir, base); err != nil {
			return "", err
		}
	}
}

// splitExt splits "ORDERS.csv" into "ORDERS" and ".csv". A leading dot is
// part of the stem (".env" has no extension).
func splitExt(base string) (stem, ext string) {
	i := strings.LastIndexByte(base, '.')
	if i <= 0 {
		return base, ""
	}
	return base[:i], base[i:]
}

// tempName returns the temporary name used by CreateAtomic for base.
func tempName(base string) string {
	return "." + base + "." + randomSuffix() + ".part"
}

// IsTemp reports whether name (a base name) is a temporary file of
// CreateAtomic: "."+base+".<12 hex digits>.part". One that is still there
// when nothing writes it was left by a kill or a timeout and may be
// removed.
func IsTemp(name string) bool { return tempRE.MatchString(name) }

var tempRE = regexp.MustCompile(`(?s)^\..+\.[0-9a-fA-F]{12}\.part$`)

func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}
