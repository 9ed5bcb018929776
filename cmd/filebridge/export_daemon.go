package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"filebridge/internal/app"
	"filebridge/internal/config"
	"filebridge/internal/console"
	"filebridge/internal/journal"
)

// exportByDaemon hands an export to the filebridge run that owns cfg's
// journal (only it may move the export's cursor): a POST to the console's
// /api/exports/{outbox}/{export}/run on server.listen, which answers once
// the run finished. It prints what the daemon wrote, with the exit codes
// of an export run here.
func exportByDaemon(ctx context.Context, cfg *config.Config, outboxName, typ string, since time.Time, owner *journal.LockedError, w io.Writer) error {
	srv, pid := cfg.Server, app.PIDText(owner.PID)
	if srv.Listen == "" {
		return withCode(exitUnreachable, fmt.Errorf(`filebridge run (%s) owns journal %s, and only it may run this export, but it serves no HTTP to hand the run to: server.listen is "" in %s; set [server] listen = "127.0.0.1:9090" there and restart filebridge run (then export asks it), or stop filebridge run and export again`,
			pid, cfg.Journal.Path, cfg.File))
	}
	var body console.ExportRequest
	if !since.IsZero() {
		body.Since = &since
	}
	b, err := json.Marshal(body)
	if err != nil {
		return withCode(exitUsage, err)
	}
	req, err := daemonRequest(ctx, srv, http.MethodPost, "/api/exports/"+url.PathEscape(outboxName)+"/"+url.PathEscape(typ)+"/run", b)
	if err != nil {
		return err
	}
	u := req.URL.String()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return withCode(exitUnreachable, fmt.Errorf("another filebridge (%s) owns journal %s, so the export is its to run, but nothing answers on server.listen %s: %w (is it filebridge run, started with this configuration? a process or replay holding the journal serves nothing: run export again once it finished)",
			pid, cfg.Journal.Path, srv.Listen, err))
	}
	defer resp.Body.Close()
	if refusedToken(resp) {
		if srv.Token.IsZero() {
			return withCode(exitUsage, fmt.Errorf("%s answered %s: the daemon's console takes logins this command does not have; set [server] token_env in %s (and restart filebridge run) so that export can ask it", u, resp.Status, cfg.File))
		}
		return withCode(exitUsage, fmt.Errorf("%s answered %s: the token of [server] token_env is not the one the daemon uses", u, resp.Status))
	}
	var ans console.ExportAnswer
	if err := decodeAnswer(resp, &ans); err != nil || ans.Outbox == "" {
		return withCode(exitUnreachable, fmt.Errorf("%s answered %s without an export result: is it an older filebridge, or another program listening on %s?", u, resp.Status, srv.Listen))
	}
	name := outboxName + "/" + typ
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("filebridge run (%s) ran it: %s", pid, ans.Error)
		switch resp.StatusCode {
		case http.StatusUnprocessableEntity:
			return withCode(exitInvalid, err)
		case http.StatusNotFound, http.StatusBadRequest:
			return withCode(exitUsage, fmt.Errorf("%w (reload it with SIGHUP after changing %s)", err, cfg.File))
		}
		return withCode(exitUnreachable, err)
	}
	if ans.File == "" {
		fmt.Fprintf(w, "%s: nothing to export, no file written (run by filebridge run, %s)\n", name, pid)
		return nil
	}
	fmt.Fprintf(w, "%s: wrote %s in %s (%d %s; run by filebridge run, %s)\n", name, ans.File, ans.Folder, ans.Rows, plural(ans.Rows, "row", "rows"), pid)
	return nil
}
