package console

import (
	"context"
	"fmt"
	"time"
)

// maxInFlight bounds the files in flight the dashboard lists.
const maxInFlight = 20

// inFlightRow is a file being processed now, with how far it got.
type inFlightRow struct {
	ID          int64
	Inbox, Name string
	Since       time.Time
	Done, Total int
	Percent     int    // of the documents settled
	Left        string // time left at the rate so far, "" while unknown
	Reading     string // what it does while its documents are not known yet
}

// inFlight lists the open files that are not held for master data, with
// their documents settled out of their total, the share and the time
// left at the rate so far (the documents' progress, as `process` shows it
// on a terminal).
func (c *Console) inFlight(ctx context.Context, now time.Time) ([]inFlightRow, error) {
	open, err := c.d.Journal.OpenFiles(ctx, "")
	if err != nil {
		return nil, err
	}
	var rows []inFlightRow
	for _, f := range open {
		if f.Held() {
			continue
		}
		if len(rows) == maxInFlight {
			break
		}
		row := inFlightRow{ID: f.ID, Inbox: f.Inbox, Name: f.Name, Since: f.ClaimedAt, Total: f.DocsTotal}
		if f.DocsTotal == 0 {
			row.Reading = "reading the file"
			rows = append(rows, row)
			continue
		}
		counts, err := c.d.Journal.DocumentCounts(ctx, f.ID)
		if err != nil {
			return nil, err
		}
		for r, n := range counts {
			if r.Final() {
				row.Done += n
			}
		}
		row.Percent = row.Done * 100 / f.DocsTotal
		row.Left = timeLeft(now.Sub(f.ClaimedAt), row.Done, f.DocsTotal)
		rows = append(rows, row)
	}
	return rows, nil
}

// timeLeft is the time the rest of total takes at the rate of done in
// elapsed, rounded for a person ("about 3 min"); "" before anything is
// done.
func timeLeft(elapsed time.Duration, done, total int) string {
	if done <= 0 || elapsed <= 0 || done >= total {
		return ""
	}
	left := time.Duration(float64(elapsed) / float64(done) * float64(total-done))
	switch {
	case left < time.Minute:
		return fmt.Sprintf("about %d s", max(int(left.Seconds()), 1))
	case left < time.Hour:
		return fmt.Sprintf("about %d min", int(left.Minutes()+0.5))
	default:
		return fmt.Sprintf("about %.1f h", left.Hours())
	}
}
