package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"filebridge/internal/folderurl"
)

// Duration is a time.Duration read from a TOML string such as "30s", "2m" or
// "1h30m". A bare number is refused: it has no unit.
type Duration struct{ time.Duration }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	v, err := time.ParseDuration(s)
	if err != nil {
		if _, nerr := strconv.ParseFloat(s, 64); nerr == nil {
			return fmt.Errorf("duration %s has no unit: write it as a string such as \"%ss\"", s, s)
		}
		return fmt.Errorf("invalid duration %q: use a number with a unit, such as \"30s\", \"5m\" or \"1h\"", s)
	}
	if v < 0 {
		return fmt.Errorf("invalid duration %q: must not be negative", s)
	}
	d.Duration = v
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.Duration.String()), nil }

// ByteSize is a size in bytes, read from a TOML integer (bytes) or a string
// with a unit: "100MB", "512 KiB", "1.5G". Units are powers of 1024
// (KB = KiB = 1024 bytes).
type ByteSize int64

var byteUnits = []struct {
	suffix string
	mult   float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"tb", 1 << 40},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40},
	{"b", 1},
}

// ParseByteSize reads "1048576", "100MB", "1.5 GiB" and the like.
func ParseByteSize(s string) (ByteSize, error) {
	t := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), "_", ""))
	mult := 1.0
	for _, u := range byteUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) || f*mult > math.MaxInt64/2 {
		return 0, fmt.Errorf("invalid size %q: use bytes or a number with a unit, such as \"100MB\" or \"512KiB\"", s)
	}
	return ByteSize(f * mult), nil
}

// UnmarshalText implements encoding.TextUnmarshaler (TOML strings).
func (b *ByteSize) UnmarshalText(text []byte) error {
	v, err := ParseByteSize(string(text))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// String prints the size with the largest binary unit that divides it.
func (b ByteSize) String() string {
	for _, u := range []struct {
		name string
		n    int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if b != 0 && int64(b)%u.n == 0 {
			return fmt.Sprintf("%d%s", int64(b)/u.n, u.name)
		}
	}
	return fmt.Sprintf("%dB", int64(b))
}

// Constant is a route's constant column value. TOML strings, integers,
// floats and booleans are all accepted and kept as their text (an integer
// 3 becomes "3", true becomes "true"), for the row decoder to parse like any
// cell.
type Constant string

// UnmarshalText receives the raw text of non-string TOML values.
func (c *Constant) UnmarshalText(b []byte) error {
	*c = Constant(b)
	return nil
}

// FolderURL is an inbox's or outbox's parsed url: a local directory or a
// directory on an SFTP server (folderurl, the one parser of folder urls).
type FolderURL = folderurl.URL

// URL schemes of folders.
const (
	SchemeFile = folderurl.SchemeFile
	SchemeSFTP = folderurl.SchemeSFTP
)
