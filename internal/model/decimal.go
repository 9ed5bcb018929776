package model

import (
	"fmt"
	"strconv"
	"strings"
)

// Decimal is an exact decimal number kept as its canonical text ("12.5",
// "-3", "0.001"), so that no value read from a file is ever rounded through a
// float on its way to the API. The zero value "" means "not given".
type Decimal string

// ParseDecimal parses a plain decimal with a '.' separator (no exponent, no
// thousands separators) into its canonical form: no leading '+', no leading
// zeros, no trailing fractional zeros, "-0" as "0".
func ParseDecimal(s string) (Decimal, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return "", fmt.Errorf("empty number")
	}
	neg := false
	switch t[0] {
	case '-':
		neg, t = true, t[1:]
	case '+':
		t = t[1:]
	}
	intPart, frac, _ := strings.Cut(t, ".")
	if intPart == "" && frac == "" {
		return "", fmt.Errorf("%q is not a number", s)
	}
	for _, r := range intPart + frac {
		if r < '0' || r > '9' {
			return "", fmt.Errorf("%q is not a number", s)
		}
	}
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		intPart = "0"
	}
	frac = strings.TrimRight(frac, "0")
	out := intPart
	if frac != "" {
		out += "." + frac
	}
	if out == "0" {
		neg = false
	}
	if neg {
		out = "-" + out
	}
	return Decimal(out), nil
}

// IsZero reports whether the decimal was not given.
func (d Decimal) IsZero() bool { return d == "" }

// Sign returns -1, 0 or +1. A decimal not given has sign 0.
func (d Decimal) Sign() int {
	switch {
	case d == "" || d == "0":
		return 0
	case d[0] == '-':
		return -1
	}
	return 1
}

// IsInt reports whether the decimal has no fractional part.
func (d Decimal) IsInt() bool { return d != "" && !strings.Contains(string(d), ".") }

// Int64 returns the integer value when IsInt and it fits.
func (d Decimal) Int64() (int64, bool) {
	if !d.IsInt() {
		return 0, false
	}
	n, err := strconv.ParseInt(string(d), 10, 64)
	return n, err == nil
}

// Float64 returns the nearest float (for the simulator and comparisons only).
func (d Decimal) Float64() float64 {
	f, _ := strconv.ParseFloat(string(d), 64)
	return f
}

// String returns the canonical text.
func (d Decimal) String() string { return string(d) }

// MarshalJSON writes the decimal as a JSON number (null when not given).
func (d Decimal) MarshalJSON() ([]byte, error) {
	if d == "" {
		return []byte("null"), nil
	}
	return []byte(d), nil
}

// UnmarshalJSON reads a JSON number, a numeric string or null.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "null" {
		*d = ""
		return nil
	}
	s = strings.Trim(s, `"`)
	if s == "" {
		*d = ""
		return nil
	}
	if strings.ContainsAny(s, "eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("reading number %s: %w", b, err)
		}
		s = strconv.FormatFloat(f, 'f', -1, 64)
	}
	v, err := ParseDecimal(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}
