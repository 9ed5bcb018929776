package console

import (
	"context"
	"fmt"
	"time"

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
	// Tick is the export's last scheduled time on a journal shared by
	// several instances: which instance ran it, when, and how it ended.
	Tick *TickStatus `json:"last_tick,omitempty"`
}

// TickStatus is the last tick of an export (journal.ExportRun).
type TickStatus struct {
	At       time.Time  `json:"at"`
	State    string     `json:"state"`
	Instance string     `json:"instance"`
	Claimed  time.Time  `json:"claimed"`
	Finished *time.Time `json:"finished,omitempty"`
	Attempts int        `json:"attempts"`
	// Abandoned: still running, but the instance's lease ran out (it
	// stopped during the run); another instance redoes it.
	Abandoned bool   `json:"abandoned,omitempty"`
	Message   string `json:"message,omitempty"`
}

// Text is the tick in one line: "2026-03-01 02:00:00 UTC done by node-a".
func (t TickStatus) Text(when func(time.Time) string) string {
	s := fmt.Sprintf("%s %s by %s", when(t.At), t.State, t.Instance)
	switch {
	case t.Abandoned:
		s += " (lease ran out: another instance redoes it)"
	case t.Finished != nil:
		s += " at " + when(*t.Finished)
	default:
		s += " since " + when(t.Claimed)
	}
	if t.Attempts > 1 {
		s += fmt.Sprintf(", attempt %d", t.Attempts)
	}
	return s
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
	ticks, err := db.LastTicks(ctx)
	if err != nil {
		return nil, err
	}
	last := map[string]journal.ExportRun{}
	for _, t := range ticks {
		last[t.Outbox+"/"+t.Export] = t
	}
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
			if t, ok := last[j.Name()]; ok {
				st.Tick = &TickStatus{At: t.Tick, State: string(t.State), Instance: t.Owner, Claimed: t.StartedAt,
					Finished: timePtr(t.FinishedAt), Attempts: t.Attempts, Abandoned: t.Abandoned(now), Message: t.Message()}
			}
			if sched, err := outbox.ParseSchedule(j); err == nil {
				st.NextRun = timePtr(sched.Next(now))
			}
			out = append(out, st)
		}
	}
	return out, nil
}
