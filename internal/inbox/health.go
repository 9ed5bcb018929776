package inbox

import (
	"sort"
	"sync"
	"time"
)

// Health tracks, per portal, whether submissions are paused because the
// portal refused the token (401/403). One Health is shared by every inbox
// (and export) of a process, so that /healthz shows one state per portal.
// The zero value is ready to use; it is safe for concurrent use.
//
// A pause does not stop anything by itself: inboxes leave their files in
// processing/ and retry them after their backoff; the first call that
// succeeds again resumes the portal.
type Health struct {
	mu     sync.Mutex
	paused map[string]PortalHealth
	now    func() time.Time
}

// PortalHealth is the state of one paused portal, as /healthz shows it.
type PortalHealth struct {
	Portal string    `json:"portal"`
	Paused bool      `json:"paused"`
	Reason string    `json:"reason,omitempty"`
	Since  time.Time `json:"since,omitzero"`
}

// NewHealth returns an empty Health (every portal running).
func NewHealth() *Health { return &Health{} }

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
	if _, ok := h.paused[portal]; !ok {
		return false
	}
	delete(h.paused, portal)
	return true
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

// Snapshot lists the paused portals sorted by name; an empty list means
// every portal is running.
func (h *Health) Snapshot() []PortalHealth {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]PortalHealth, 0, len(h.paused))
	for _, st := range h.paused {
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Portal < out[j].Portal })
	return out
}

// Healthy reports whether no portal is paused.
func (h *Health) Healthy() bool {
	if h == nil {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.paused) == 0
}

func (h *Health) clock() time.Time {
	if h.now != nil {
		return h.now()
	}
	return time.Now().UTC()
}
