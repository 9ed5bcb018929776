package console

import (
	"context"
	"slices"
	"time"

	"filebridge/internal/journal"
)

// instanceRow is an instance seen on a journal shared by several
// instances, for the dashboard's instances panel.
type instanceRow struct {
	Name    string
	Started time.Time
	Seen    time.Time // its last renewal (heartbeat)
	// Alive: it renewed within its lease; a silent instance stopped, and
	// what it held is taken over once the leases ran out.
	Alive bool
	Files int // open files it holds
	// Exports are the exports it runs now ("erp/stock").
	Exports []string
}

// instancesSeen is how far back the instances panel looks.
const instancesSeen = 24 * time.Hour

// instances lists the instances seen in the last instancesSeen with what
// they hold, and the holder of every open file; nothing for a SQLite
// journal (one instance).
func (c *Console) instances(ctx context.Context, now time.Time) ([]instanceRow, map[int64]*journal.Lease, error) {
	db := c.d.Journal
	if !db.Shared() {
		return nil, nil, nil
	}
	seen, err := db.Instances(ctx, now.Add(-instancesSeen))
	if err != nil {
		return nil, nil, err
	}
	leases, err := db.Leases(ctx, "")
	if err != nil {
		return nil, nil, err
	}
	ticks, err := db.LastTicks(ctx)
	if err != nil {
		return nil, nil, err
	}
	holders := make(map[int64]*journal.Lease, len(leases))
	rows := make([]instanceRow, 0, len(seen))
	at := map[string]int{}
	for _, s := range seen {
		at[s.Name] = len(rows)
		rows = append(rows, instanceRow{Name: s.Name, Started: s.StartedAt, Seen: s.SeenAt, Alive: now.Sub(s.SeenAt) < db.Lease()})
	}
	for _, l := range leases {
		holders[l.FileID] = &l
		if i, ok := at[l.Owner]; ok && !l.Expired(now) {
			rows[i].Files++
		}
	}
	for _, t := range ticks {
		if i, ok := at[t.Owner]; ok && t.State == journal.RunRunning && !t.Abandoned(now) {
			rows[i].Exports = append(rows[i].Exports, t.Outbox+"/"+t.Export)
		}
	}
	for i := range rows {
		slices.Sort(rows[i].Exports)
	}
	return rows, holders, nil
}
