package inbox

import (
	"slices"
	"strings"
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
	mu       sync.Mutex
	troubles map[string]Trouble // by what is degraded: the keys below
	now      func() time.Time
}

// The keys of Health.troubles, each followed by the portal's or the
// inbox's name but the journal's.
const (
	healthPaused  = "paused portal "
	healthDown    = "unreachable portal "
	healthJournal = "journal"
	healthInbox   = "inbox "
)

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

// set records the trouble of key, keeping its Since when it had one, and
// reports whether the trouble is new and whether its reason changed.
func (h *Health) set(key, reason string) (fresh, changed bool) {
	if h == nil {
		return false, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.troubles == nil {
		h.troubles = map[string]Trouble{}
	}
	t, had := h.troubles[key]
	if !had {
		t.Since = h.clock()
	}
	changed = had && t.Reason != reason
	t.Reason = reason
	h.troubles[key] = t
	return !had, changed
}

// clear removes the trouble of key and reports whether it had one.
func (h *Health) clear(key string) bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_, had := h.troubles[key]
	delete(h.troubles, key)
	return had
}

// get is the trouble of key, and whether it has one.
func (h *Health) get(key string) (Trouble, bool) {
	if h == nil {
		return Trouble{}, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.troubles[key]
	return t, ok
}

// Pause marks the portal paused because of err and reports whether it was
// running until now, so that the caller logs the pause once. The reason
// is err's message, which never carries the token.
func (h *Health) Pause(portal string, err error) bool {
	reason := "paused"
	if err != nil {
		reason = err.Error()
	}
	fresh, _ := h.set(healthPaused+portal, reason)
	return fresh
}

// Resume marks the portal running again and reports whether it was paused.
func (h *Health) Resume(portal string) bool { return h.clear(healthPaused + portal) }

// Paused reports whether the portal is paused, and why.
func (h *Health) Paused(portal string) (bool, string) {
	t, ok := h.get(healthPaused + portal)
	return ok, t.Reason
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
	var out []PortalHealth
	for key, t := range h.troubles {
		if name, ok := strings.CutPrefix(key, healthPaused); ok {
			out = append(out, PortalHealth{Portal: name, Paused: true, Reason: t.Reason, Since: t.Since})
		} else if name, ok := strings.CutPrefix(key, healthDown); ok {
			if _, paused := h.troubles[healthPaused+name]; !paused {
				out = append(out, PortalHealth{Portal: name, Unreachable: true, Reason: t.Reason, Since: t.Since})
			}
		}
	}
	slices.SortFunc(out, func(a, b PortalHealth) int { return strings.Compare(a.Portal, b.Portal) })
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
	return len(h.troubles) == 0
}

// Unreachable marks the portal unreachable because of err and reports
// whether it was reachable until now (log it once).
func (h *Health) Unreachable(portal string, err error) bool {
	reason := "unreachable"
	if err != nil {
		reason = "unreachable: " + err.Error()
	}
	fresh, _ := h.set(healthDown+portal, reason)
	return fresh
}

// Reachable marks the portal reachable again and reports whether it was
// unreachable.
func (h *Health) Reachable(portal string) bool { return h.clear(healthDown + portal) }

// JournalDown records that the journal cannot be written and reports
// whether it could until now (log it once).
func (h *Health) JournalDown(err error) bool {
	fresh, _ := h.set(healthJournal, err.Error())
	return fresh
}

// JournalUp records that the journal can be written again and reports
// whether it could not until now.
func (h *Health) JournalUp() bool { return h.clear(healthJournal) }

// Journal is the journal's trouble (zero while it is writable).
func (h *Health) Journal() Trouble {
	t, _ := h.get(healthJournal)
	return t
}

// InboxTrouble records why an inbox is degraded and reports whether it
// was not (or for another reason) until now (log it once).
func (h *Health) InboxTrouble(inbox, reason string) bool {
	fresh, changed := h.set(healthInbox+inbox, reason)
	return fresh || changed
}

// InboxFine clears an inbox's trouble and reports whether it had one.
func (h *Health) InboxFine(inbox string) bool { return h.clear(healthInbox + inbox) }

// Inbox is an inbox's trouble (zero while it is fine).
func (h *Health) Inbox(inbox string) Trouble {
	t, _ := h.get(healthInbox + inbox)
	return t
}

func (h *Health) clock() time.Time {
	if h.now != nil {
		return h.now().UTC()
	}
	return time.Now().UTC() // the zero Health's clock
}
