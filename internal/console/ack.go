package console

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"

	"filebridge/internal/journal"
)

// acknowledge resolves an open failure by hand: who (the basic-auth user,
// else "console": the token and the loopback console name no one), when
// and the note are recorded in the journal.
func (c *Console) acknowledge(w http.ResponseWriter, r *http.Request) error {
	f, err := byID(r, c.d.Journal.File)
	if err != nil {
		return err
	}
	who := cmp.Or(c.basicUser(r), "console")
	acked, err := c.d.Journal.Acknowledge(r.Context(), f.ID, who, r.PostFormValue("note"))
	switch {
	case errors.Is(err, journal.ErrNotFailed), errors.Is(err, journal.ErrResolved):
		c.fail(w, r, http.StatusConflict, fmt.Errorf("#%d %s: %w", f.ID, f.Name, err))
		return nil
	case err != nil:
		return err
	}
	c.d.Logger.Info("console: failure acknowledged", "file", f.Name, "file_id", f.ID, "by", who)
	http.Redirect(w, r, fmt.Sprintf("/files/%d", acked.ID), http.StatusSeeOther)
	return nil
}
