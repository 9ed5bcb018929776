package inbox

import (
	"sort"
	"sync"
	"time"
)

// Health tracks what degrades the daemon, for /healthz: per portal,
// whether submissions are paused because the portal refused the token
// (401/403) or whether it is unreachable (its last calls failed after
// their retries); whether the journal can be written; and per inbox a
// folder problem that is not an ordinary outage (an SFTP host key that
// does not match). One Health is shared by every inbox (and export) of a
// process. The zero value is ready to use; it is safe for concurrent use.
//
// A pause does not stop anything by itself: inboxes leave their files in
// processing/ and retry them after their backoff; the first call that
// succeeds again resumes the portal. While the journal is not writable
// every inbox pauses its rounds; they resume when it is writable again.
type Health struct {
	mu      sync.Mutex
	paused  map[string]PortalHealth
	down    map[string]PortalHealth // unreachable portals
	journal Trouble
	inboxes map[string]Trouble
	now     func() time.Time
}

// PortalHealth is the state of one paused or unreachable portal, as
// /healthz shows it.
type PortalHealth struct {
	Portal      string    `json:"portal"`
	Paused      bool      `json:"paused"`
	Unreachable bool      `json:"unreachable,omitempty"`
	Reason      string    `json:"reason,omitempty"`
	Since       time.Time `json:"since,omitzero"`
}

// Trouble is why a part of the daemon is degraded, and since when; the
// zero Trouble means fine.
type Trouble struct {
	Reason string
	Since  time.Time
}

// NewHealth returns an empty Health (every portal running) whose Since
// times come from now (nil: time.Now).
func NewHealth(now func() time.Time) *Health { return &Health{now: now} }

// Pause marks the portal paused because of err and reports whether it was
// running until now, so that the caller logs the pause once. The reason
// is err's message, which never carries the token.
func (h *Health) Pause(portal string, err error) bool {
	if h == nil {
		return false
	}
	reason := "paused"
	if err != nil {
		reason = err.Error()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.paused == nil {
		h.paused = map[string]PortalHealth{}
	}
	if st, ok := h.paused[portal]; ok {
		st.Reason = reason
		h.paused[portal] = st
		return false
	}
	h.paused[portal] = PortalHealth{Portal: portal, Paused: true, Reason: reason, Since: h.clock()}
	return true
}

// Resume marks the portal running again and reports whether it was paused.
func (h *Health) Resume(portal string) bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return removed(h.paused, portal)
}

// Paused reports whether the portal is paused, and why.
func (h *Health) Paused(portal string) (bool, string) {
	if h == nil {
		return false, ""
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	st, ok := h.paused[portal]
	return ok, st.Reason
}

// Snapshot lists the paused and the unreachable portals sorted by name
// (a paused portal once, as paused); an empty list means every portal is
// running.
func (h *Health) Snapshot() []PortalHealth {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]PortalHealth, 0, len(h.paused)+len(h.down))
	for _, st := range h.paused {
		out = append(out, st)
	}
	for name, st := range h.down {
		if _, ok := h.paused[name]; !ok {
			out = append(out, st)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Portal < out[j].Portal })
	return out
}

// Healthy reports whether nothing is degraded: no portal paused or
// unreachable, the journal writable, no inbox in trouble.
func (h *Health) Healthy() bool {
	if h == nil {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.paused) == 0 && len(h.down) == 0 && h.journal.Reason == "" && len(h.inboxes) == 0
}

// Unreachable marks the portal unreachable because of err and reports
// whether it was reachable until now (log it once).
func (h *Health) Unreachable(portal string, err error) bool {
	if h == nil {
		return false
	}
	reason := "unreachable"
	if err != nil {
		reason = "unreachable: " + err.Error()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.down == nil {
		h.down = map[string]PortalHealth{}
	}
	st, ok := h.down[portal]
	if !ok {
		st = PortalHealth{Portal: portal, Unreachable: true, Since: h.clock()}
	}
	st.Reason = reason
	h.down[portal] = st
	return !ok
}

// Reachable marks the portal reachable again and reports whether it was
// unreachable.
func (h *Health) Reachable(portal string) bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return removed(h.down, portal)
}

// JournalDown records that the journal cannot be written and reports
// whether it could until now (log it once).
func (h *Health) JournalDown(err error) bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	was := h.journal.Reason != ""
	h.journal.Reason = err.Error()
	if !was {
		h.journal.Since = h.clock()
	}
	return !was
}

// JournalUp records that the journal can be written again and reports
// whether it could not until now.
func (h *Health) JournalUp() bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	was := h.journal.Reason != ""
	h.journal = Trouble{}
	return was
}

// Journal is the journal's trouble (zero while it is writable).
func (h *Health) Journal() Trouble {
	if h == nil {
		return Trouble{}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.journal
}

// InboxTrouble records why an inbox is degraded and reports whether it
// was not (or for another reason) until now (log it once).
func (h *Health) InboxTrouble(inbox, reason string) bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.inboxes == nil {
		h.inboxes = map[string]Trouble{}
	}
	old, ok := h.inboxes[inbox]
	if ok && old.Reason == reason {
		return false
	}
	since := h.clock()
	if ok {
		since = old.Since
	}
	h.inboxes[inbox] = Trouble{Reason: reason, Since: since}
	return true
}

// InboxFine clears an inbox's trouble and reports whether it had one.
func (h *Health) InboxFine(inbox string) bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return removed(h.inboxes, inbox)
}

// Inbox is an inbox's trouble (zero while it is fine).
func (h *Health) Inbox(inbox string) Trouble {
	if h == nil {
		return Trouble{}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.inboxes[inbox]
}

func (h *Health) clock() time.Time {
	if h.now != nil {
		return h.now().UTC()
	}
	return time.Now().UTC() // the zero Health's clock
}

// removed deletes key from m and reports whether it was there.
func removed[V any](m map[string]V, key string) bool {
	_, ok := m[key]
	delete(m, key)
	return ok
}
