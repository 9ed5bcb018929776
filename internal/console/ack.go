package console

import (
	"errors"
	"fmt"
	"net/http"

	"filebridge/internal/journal"
)

// acknowledge resolves an open failure by hand: who (the basic-auth user,
// else "console"), when and the note are recorded in the journal.
func (c *Console) acknowledge(w http.ResponseWriter, r *http.Request) {
	f, ok := c.fileOf(w, r)
	if !ok {
		return
	}
	who := c.user(r)
	acked, err := c.d.Journal.Acknowledge(r.Context(), f.ID, who, r.PostFormValue("note"))
	switch {
	case errors.Is(err, journal.ErrNotFailed), errors.Is(err, journal.ErrResolved):
		c.fail(w, r, http.StatusConflict, fmt.Errorf("#%d %s: %w", f.ID, f.Name, err))
		return
	case err != nil:
		c.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	c.d.Logger.Info("console: failure acknowledged", "file", f.Name, "file_id", f.ID, "by", who)
	http.Redirect(w, r, fmt.Sprintf("/files/%d", acked.ID), http.StatusSeeOther)
}

// user names who sent the request for the journal: the basic-auth login,
// else "console" (the token and the loopback console name no one).
func (c *Console) user(r *http.Request) string {
	if name, pass, ok := r.BasicAuth(); ok {
		for _, u := range c.d.Config.Server.Users {
			if equal(name, u.Name) && equal(pass, u.Password.Value()) {
				return u.Name
			}
		}
	}
	return "console"
}
