package app

import (
	"testing"
	"time"

	"filebridge/internal/config"
)

// TestPruneInterval: the loop runs hourly for processed/ retention and
// default error_retention, as often as a shorter error_retention (once a
// second at most), and not at all with neither.
func TestPruneInterval(t *testing.T) {
	day := 24 * time.Hour
	tests := []struct {
		name      string
		retention config.Retention
		keep      []config.Keep
		want      time.Duration
	}{
		{"nothing to prune", 0, []config.Keep{0}, 0},
		{"processed retention", config.Retention(90 * day), []config.Keep{0}, pruneEvery},
		{"default error_retention", 0, []config.Keep{config.Keep(config.DefaultErrorRetention)}, pruneEvery},
		{"short error_retention", config.Retention(90 * day), []config.Keep{config.Keep(30 * day), config.Keep(5 * time.Second)}, 5 * time.Second},
		{"sub-second error_retention", 0, []config.Keep{config.Keep(time.Millisecond)}, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &config.Config{}
			for _, k := range tt.keep {
				cfg.Inboxes = append(cfg.Inboxes, config.Inbox{Retention: tt.retention, ErrorRetention: k})
			}
			d := &Daemon{Config: cfg}
			if got := d.pruneInterval(); got != tt.want {
				t.Errorf("pruneInterval = %s, want %s", got, tt.want)
			}
		})
	}
}
