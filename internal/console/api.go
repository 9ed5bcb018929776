package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"time"

	"filebridge/internal/formats/export"
	"filebridge/internal/outbox"
	"filebridge/internal/portal"
)

// ExportDone is what an export run now wrote: the file (relative to the
// outbox, "" when there was nothing to export), its rows, and the outbox
// folder it lies in.
type ExportDone struct {
	File   string `json:"file,omitempty"`
	Rows   int    `json:"rows"`
	Folder string `json:"folder,omitempty"`
}

// String is "wrote F (N rows)", or that nothing was written.
func (d ExportDone) String() string {
	if d.File == "" {
		return "nothing to export, no file written"
	}
	return fmt.Sprintf("wrote %s (%d rows)", d.File, d.Rows)
}

// ExportRequest is the body of POST /api/exports/{outbox}/{export}/run:
// Since (RFC 3339) exports everything from then on again without moving
// the cursor.
type ExportRequest struct {
	Since *time.Time `json:"since,omitempty"`
}

// ExportAnswer is the answer of POST /api/exports/{outbox}/{export}/run:
// what was written, or the error.
type ExportAnswer struct {
	Outbox string `json:"outbox"`
	Export string `json:"export"`
	ExportDone
	Error string `json:"error,omitempty"`
}

// ExportRefused reports whether a failed export was refused by the portal
// or the data (the token, a value that cannot be written, a name taken),
// rather than something unreachable.
func ExportRefused(err error) bool {
	var cell *export.CellError
	return portal.IsAuth(err) || portal.IsInvalid(err) || errors.As(err, &cell) || errors.Is(err, fs.ErrExist)
}

// apiRunExport runs an export for `filebridge export` while the daemon
// owns the journal. It is for programs, not browsers: it takes the same
// credentials as the pages (a Bearer token, or nothing from loopback when
// none is configured) but no CSRF token; instead it takes only a JSON body
// (Content-Type: application/json), which a page of another site cannot
// send without a CORS preflight, and the server approves none. Go's
// cross-origin protection checks the request too.
//
// The answer is JSON: 200 done; 400 a bad request; 404 no such export;
// 409 a run of the export is going on; 422 the portal or the data refused
// it; 503 the portal, the folder or the journal could not be reached.
func (c *Console) apiRunExport(w http.ResponseWriter, r *http.Request) {
	ob, ex := r.PathValue("outbox"), r.PathValue("export")
	ans := ExportAnswer{Outbox: ob, Export: ex}
	reply := func(status int, err error) {
		if err != nil {
			ans.Error = err.Error()
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(ans)
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		reply(http.StatusMethodNotAllowed, errors.New("use POST"))
		return
	}
	if !c.allowed(r) {
		if ch := c.Access(false).Challenge; ch != "" {
			w.Header().Set("WWW-Authenticate", ch)
		}
		reply(http.StatusUnauthorized, errors.New("send the console's access token (Authorization: Bearer) or a [[server.users]] login"))
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		reply(http.StatusUnsupportedMediaType, errors.New("send a JSON body with Content-Type: application/json"))
		return
	}
	if err := c.cop.Check(r); err != nil {
		reply(http.StatusForbidden, fmt.Errorf("refused a cross-origin request: %w", err))
		return
	}
	var req ExportRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&req); err != nil && !errors.Is(err, io.EOF) {
		reply(http.StatusBadRequest, fmt.Errorf("reading the request: %w", err))
		return
	}
	oc := c.d.Config.Outbox(ob)
	if c.d.RunExport == nil || oc == nil {
		reply(http.StatusNotFound, fmt.Errorf("no outbox %q in the running filebridge's configuration", ob))
		return
	}
	var since time.Time
	if req.Since != nil {
		since = *req.Since
	}
	c.d.Logger.Info("export asked for over the API", "outbox", ob, "export", ex, "remote", r.RemoteAddr)
	done, err := c.d.RunExport(r.Context(), ob, ex, since)
	ans.ExportDone = done
	switch {
	case err == nil:
		reply(http.StatusOK, nil)
	case errors.Is(err, ErrNoSuchExport):
		reply(http.StatusNotFound, err)
	case errors.Is(err, outbox.ErrExportRunning):
		reply(http.StatusConflict, err)
	default:
		if hint := portal.Hint(err, oc.Portal); hint != "" {
			err = fmt.Errorf("%w; %s", err, hint)
		}
		status := http.StatusServiceUnavailable
		if ExportRefused(err) {
			status = http.StatusUnprocessableEntity
		}
		reply(status, err)
	}
}

// ErrNoSuchExport is returned by Deps.RunExport for an export the outbox
// does not configure.
var ErrNoSuchExport = errors.New("no such export")
