package inbox

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"filebridge/internal/config"
)

// IgnoredFile is an entry of the inbox folder that is not taken, and why:
// no route matches its name (unmatched = "leave"), or the folder refused
// it (an unsafe name, a link leading outside the inbox). It is logged once
// and listed by Status until it is gone.
type IgnoredFile struct {
	Name   string
	Reason string
	Since  time.Time
}

// ignored is the inbox's list of ignored entries; seen marks those of the
// listing under way.
type ignored struct {
	files map[string]IgnoredFile
	seen  map[string]bool
}

// beginListing starts a listing of the inbox root (in.mu held).
func (in *Inbox) beginListing() {
	in.ign.seen = map[string]bool{}
}

// ignore records an entry of the listing under way that is not taken,
// logging it the first time (or when its reason changed).
func (in *Inbox) ignore(name, reason string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.ignoreLocked(name, reason)
}

func (in *Inbox) ignoreLocked(name, reason string) {
	if in.ign.files == nil {
		in.ign.files = map[string]IgnoredFile{}
	}
	if in.ign.seen != nil {
		in.ign.seen[name] = true
	}
	if prev, ok := in.ign.files[name]; ok && prev.Reason == reason {
		return
	}
	in.ign.files[name] = IgnoredFile{Name: name, Reason: reason, Since: in.now()}
	in.log.Warn("file in the inbox is not taken: "+reason, "file", name)
}

// endListing forgets the ignored entries the listing did not show again
// (in.mu held).
func (in *Inbox) endListing() {
	maps.DeleteFunc(in.ign.files, func(name string, _ IgnoredFile) bool { return !in.ign.seen[name] })
	in.ign.seen = nil
}

// ignoredFiles lists the ignored entries by name (in.mu held).
func (in *Inbox) ignoredFiles() []IgnoredFile {
	out := slices.Collect(maps.Values(in.ign.files))
	slices.SortFunc(out, func(a, b IgnoredFile) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// onSkip receives the entries the folder leaves out of a listing.
func (in *Inbox) onSkip(dir, name, reason string) {
	if dir != "." && dir != "" {
		in.log.Debug("entry left out of a listing", "dir", dir, "name", name, "reason", reason)
		return
	}
	in.ignore(name, reason)
}

// unmatchedLeft reports whether a name of the inbox root is not taken by
// the inbox's settings: an exclude glob matches it (silently), or no
// route matches and unmatched is "leave" (listed once). in.mu is held.
func (in *Inbox) unmatchedLeft(name string) bool {
	if in.cfg.Excluded(name) {
		return true
	}
	if in.route(name) != nil || in.cfg.Unmatched == config.UnmatchedError {
		return false
	}
	in.ignoreLocked(name, fmt.Sprintf("no route of inbox %q matches its name: left in place (add a route for it, an exclude glob, or set unmatched = \"error\")", in.cfg.Name))
	return true
}
