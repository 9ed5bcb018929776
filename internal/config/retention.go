package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Retention is how long the dated folders of processed/ are kept: "90d"
// (days) or a Go duration of whole days ("2160h"). Zero keeps them forever
// (the default).
type Retention time.Duration

// Dur is the retention as a time.Duration (0: keep forever).
func (r Retention) Dur() time.Duration { return time.Duration(r) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (r *Retention) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "" || s == "0" {
		*r = 0
		return nil
	}
	d, err := daysOrDuration(s)
	if err == nil && d >= 24*time.Hour {
		*r = Retention(d)
		return nil
	}
	if strings.HasSuffix(s, "d") {
		return fmt.Errorf("retention %q: write a number of days of at least 1, such as \"90d\"", s)
	}
	return fmt.Errorf("retention %q: write a number of days, such as \"90d\" (at least \"1d\"), or \"\" to keep processed files forever", s)
}

// daysOrDuration reads "30d" as 30 days, anything else as a Go duration.
func daysOrDuration(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		return time.Duration(n) * 24 * time.Hour, err
	}
	return time.ParseDuration(s)
}

// MarshalText implements encoding.TextMarshaler.
func (r Retention) MarshalText() ([]byte, error) {
	d := time.Duration(r)
	if d%(24*time.Hour) == 0 {
		return []byte(strconv.Itoa(int(d/(24*time.Hour))) + "d"), nil
	}
	return []byte(d.String()), nil
}

// Keep is how long resolved failures stay in error/ (error_retention):
// "30d" (days) or any Go duration ("12h", "90s"); "0s" keeps them for ever.
type Keep time.Duration

// Dur is the time as a time.Duration (0: for ever).
func (k Keep) Dur() time.Duration { return time.Duration(k) }

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *Keep) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	d, err := daysOrDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("error_retention %q: write a number of days such as \"30d\", a duration such as \"12h\", or \"0s\" to keep resolved failures in error/ for ever", s)
	}
	*k = Keep(d)
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (k Keep) MarshalText() ([]byte, error) { return Retention(k).MarshalText() }

// History is how long the journal keeps finished files and export runs
// (journal.retention): "365d" (days) or a Go duration of at least a day
// ("8760h"); "0s" keeps them for ever.
type History time.Duration

// Dur is the time as a time.Duration (0: for ever).
func (h History) Dur() time.Duration { return time.Duration(h) }

// UnmarshalText implements encoding.TextUnmarshaler; the decoder puts
// the key (journal.retention) before its message.
func (h *History) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	d, err := daysOrDuration(s)
	if err != nil || (d != 0 && d < 24*time.Hour) {
		return fmt.Errorf("%q: write a number of days such as \"365d\" (at least \"1d\"), or \"0s\" to keep the journal's history for ever", s)
	}
	*h = History(d)
	return nil
}

// MarshalText implements encoding.TextMarshaler.
func (h History) MarshalText() ([]byte, error) { return Retention(h).MarshalText() }

// durText writes d as the retention keys do: "30d", else a Go duration.
func durText(d time.Duration) string {
	b, _ := Retention(d).MarshalText()
	return string(b)
}
