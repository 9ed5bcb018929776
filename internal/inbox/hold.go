package inbox

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"filebridge/internal/config"
	"filebridge/internal/formats"
	"filebridge/internal/portal"
)

// HeldFile is a file waiting in processing/ for master data that is not on
// the portal yet (issue: master data that comes later).
type HeldFile struct {
	Name       string    `json:"name"`
	Since      time.Time `json:"since"`
	Until      time.Time `json:"until"` // when it fails if the codes are still missing
	WaitingFor []string  `json:"waiting_for"`
}

// maxWaitingShown bounds the codes named in a message.
const maxWaitingShown = 10

// refSet gathers the references of a file's valid documents.
type refSet map[portal.Ref]struct{}

// docRefs lists the references of a document to codes that must already
// be on the portal.
func (in *Inbox) docRefs(d formats.Doc) []portal.Ref {
	switch {
	case d.Item != nil:
		return in.p.ItemRefs(*d.Item)
	case d.Packaging != nil:
		return in.p.PackagingRefs(*d.Packaging)
	case d.Inbound != nil:
		return in.p.InboundRefs(*d.Inbound)
	case d.Outbound != nil:
		return in.p.OutboundRefs(*d.Outbound)
	}
	return nil
}

// policy is the route's policy (default reject).
func (fr *fileRun) policy() string {
	if fr.route != nil && fr.route.Policy != "" {
		return fr.route.Policy
	}
	return config.DefaultPolicy
}

// checkRefs resolves every reference of the file's valid documents before
// anything is created, and decides: nil when the file goes on (fr.missing
// then says which references failed for good), or a result with held set
// when it waits in processing/ for master data (hold_missing not over).
// A transient failure of the lookups is returned as an error.
func (fr *fileRun) checkRefs(ctx context.Context, refs refSet) (*FileResult, error) {
	in, row := fr.in, &fr.row
	if _, bad := firstError(fr.sum.FileIssues); len(refs) == 0 || bad {
		return nil, nil
	}
	if fr.sum.InvalidDocs > 0 && fr.policy() != config.PolicyPartial {
		return nil, nil // it fails for its invalid rows anyway
	}
	missing, err := in.p.MissingRefs(ctx, slices.Collect(maps.Keys(refs)))
	if err != nil {
		return nil, err
	}
	if len(missing) == 0 {
		fr.release()
		return nil, nil
	}
	fr.missing = missing
	waiting := missingNames(missing)
	hold := in.cfg.Hold(fr.route)
	now := in.now()
	if row.HeldSince.IsZero() {
		row.HeldSince = now
	}
	until := row.HeldSince.Add(hold)
	if hold <= 0 || !now.Before(until) {
		if hold > 0 {
			fr.heldFor = now.Sub(row.HeldSince).Round(time.Second)
			fr.log.Warn("master data still missing after hold_missing: the file fails", "waited", fr.heldFor, "waiting_for", shortList(waiting))
		}
		in.unhold(row.ID)
		return nil, nil
	}
	msg := fmt.Sprintf("held in %s until %s: waiting for %s to be on the portal (drop their master data files; after hold_missing %s the file fails)",
		in.cfg.ProcessingDir, until.UTC().Format(time.RFC3339), shortList(waiting), hold)
	changed := row.WaitingFor != strings.Join(waiting, "; ") || row.Message != msg
	row.WaitingFor, row.Message = strings.Join(waiting, "; "), msg
	if changed {
		// Journaled and logged when it changes only: a held file is looked
		// at again in every round.
		if err := in.j.UpdateFile(ctx, *row); err != nil {
			return nil, err
		}
		fr.log.Info("file held: master data not on the portal yet", "waiting_for", shortList(waiting), "held_since", row.HeldSince, "until", until)
	} else {
		fr.log.Debug("file still held", "waiting_for", shortList(waiting), "until", until)
	}
	in.hold(row.ID, HeldFile{Name: row.Name, Since: row.HeldSince, Until: until, WaitingFor: waiting})
	res := fr.result()
	res.Held = true
	res.Message = row.Message
	return &res, nil
}

// release clears the hold of a file whose references all resolve now
// (the journal row is updated when the file goes on).
func (fr *fileRun) release() {
	row := &fr.row
	if row.HeldSince.IsZero() {
		return
	}
	fr.log.Info("master data arrived: the held file goes on", "held_for", fr.in.now().Sub(row.HeldSince).Round(time.Second))
	row.HeldSince, row.WaitingFor = time.Time{}, ""
	fr.in.unhold(row.ID)
}

// missingOf returns why a valid document cannot be created: the messages
// of its references not on the portal ("" when they all resolve).
func (fr *fileRun) missingOf(d formats.Doc) string {
	if len(fr.missing) == 0 || !d.Valid() {
		return ""
	}
	var msgs []string
	for _, r := range fr.in.docRefs(d) {
		if m, ok := fr.missing[r]; ok {
			msgs = append(msgs, m)
		}
	}
	if len(msgs) == 0 {
		return ""
	}
	s := strings.Join(msgs, "; ")
	if fr.heldFor > 0 {
		s += fmt.Sprintf(" (waited %s, the hold_missing of the inbox)", fr.heldFor)
	}
	return s
}

// missingDecision is the message of the documents of a file under policy
// reject that were not sent because other documents refer to codes not on
// the portal ("" when nothing is missing or the policy is partial).
func (fr *fileRun) missingDecision() string {
	if len(fr.missing) == 0 || fr.policy() == config.PolicyPartial {
		return ""
	}
	return fmt.Sprintf("not submitted: documents of the file refer to %s, not on the portal, and the route's policy is %q: nothing was created; add them to the portal (or drop their master data files first) and drop the whole file again",
		shortList(missingNames(fr.missing)), fr.policy())
}

// missingNames names the missing references, sorted.
func missingNames(missing map[portal.Ref]string) []string {
	out := make([]string, 0, len(missing))
	for r := range missing {
		out = append(out, r.String())
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// shortList joins names, at most maxWaitingShown of them.
func shortList(names []string) string {
	if len(names) <= maxWaitingShown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxWaitingShown], ", "), len(names)-maxWaitingShown)
}

// hold records a held file for Status and the metrics.
func (in *Inbox) hold(id int64, h HeldFile) {
	in.mu.Lock()
	if in.held == nil {
		in.held = map[int64]HeldFile{}
	}
	in.held[id] = h
	in.mu.Unlock()
	in.metrics.held(in.cfg.Name, h)
}

// unhold forgets a held file (it went on, or finished).
func (in *Inbox) unhold(id int64) {
	in.mu.Lock()
	h, ok := in.held[id]
	delete(in.held, id)
	in.mu.Unlock()
	if ok {
		in.metrics.unheld(in.cfg.Name, h.Name)
	}
}
