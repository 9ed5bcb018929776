package console

import (
	"context"
	"time"

	"github.com/robfig/cron/v3"

	"filebridge/internal/config"
	"filebridge/internal/journal"
	"filebridge/internal/outbox"
)

// ExportStatus is one configured export as `filebridge exports` and the
// console's dashboard show it.
type ExportStatus struct {
	Outbox      string     `json:"outbox"`
	Type        string     `json:"type"`
	Schedule    string     `json:"schedule"`
	LastRun     *time.Time `json:"last_run,omitempty"`
	LastRows    int        `json:"last_rows"`
	LastFile    string     `json:"last_file,omitempty"`
	Running     bool       `json:"running,omitempty"`
	LastSuccess *time.Time `json:"last_success,omitempty"`
	Cursor      *time.Time `json:"cursor,omitempty"`
	NextRun     *time.Time `json:"next_run,omitempty"`
	LastError   string     `json:"last_error,omitempty"`
	LastErrorAt *time.Time `json:"last_error_at,omitempty"`
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// Exports reads the journal's summary of every configured export (of
// outbox only, unless it is "").
func Exports(ctx context.Context, cfg *config.Config, db *journal.DB, only string, now time.Time) ([]ExportStatus, error) {
	var out []ExportStatus
	for i := range cfg.Outboxes {
		ob := &cfg.Outboxes[i]
		if only != "" && ob.Name != only {
			continue
		}
		jobs, err := outbox.Jobs(cfg, ob)
		if err != nil {
			return nil, err
		}
		for _, j := range jobs {
			s, err := db.ExportSummary(ctx, ob.Name, string(j.Type))
			if err != nil {
				return nil, err
			}
			st := ExportStatus{Outbox: ob.Name, Type: string(j.Type), Schedule: j.Schedule,
				LastRun: timePtr(s.Last.StartedAt), LastRows: s.Last.Rows, LastFile: s.Last.FileName,
				Running: s.Last.ID != 0 && s.Last.Running(), LastSuccess: timePtr(s.LastSuccess.FinishedAt)}
			if s.HasCursor {
				st.Cursor = timePtr(s.Cursor.At)
			}
			if s.LastError.ID != 0 && s.LastError.ID >= s.LastSuccess.ID {
				st.LastError, st.LastErrorAt = s.LastError.Error, timePtr(s.LastError.FinishedAt)
			}
			if next, ok := NextRun(j, now); ok {
				st.NextRun = &next
			}
			out = append(out, st)
		}
	}
	return out, nil
}

// NextRun is the job's next scheduled start after now.
func NextRun(j outbox.Job, now time.Time) (time.Time, bool) {
	sched, err := cron.ParseStandard(j.Schedule)
	if err != nil {
		return time.Time{}, false
	}
	loc := j.Location
	if loc == nil {
		loc = time.UTC
	}
	next := sched.Next(now.In(loc))
	return next, !next.IsZero()
}
