package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"filebridge/internal/app"
	"filebridge/internal/config"
	"filebridge/internal/folder"
	"filebridge/internal/journal"
	"filebridge/internal/portal"
)

// checkTimeout bounds each check (one login, one API call).
const checkTimeout = 20 * time.Second

func init() {
	var cfgPath string
	cmd := &cobra.Command{
		Use:   "check --config FILE",
		Short: "Check the config, SFTP host keys and logins, the API token and the journal path",
		Long: `check reads the configuration, logs in to every SFTP inbox and outbox
(verifying its host key) and lists it, reads a local folder, calls the API of
every portal with its token, and checks that the journal can be written.
It prints one line per check.

Exit codes: 0 every check passed; 1 a token or login was refused;
2 the configuration is invalid; 3 something could not be reached.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCheck(cmd.Context(), cfgPath, cmd.OutOrStdout())
		},
	}
	requireConfig(cmd, &cfgPath)
	rootCmd.AddCommand(cmd)
}

// checkOutcome is the result of one check: ok, refused (exit 1) or
// unreachable (exit 3).
type checkOutcome int

const (
	checkOK checkOutcome = iota
	checkRefused
	checkUnreachable
)

// checkReport prints one line per check and remembers the worst outcome.
type checkReport struct {
	w                           io.Writer
	refused, unreachable, total int
}

func (r *checkReport) line(what string, out checkOutcome, msg string) {
	r.total++
	tag := "FAIL"
	switch out {
	case checkOK:
		tag = "ok  "
	case checkRefused:
		r.refused++
	case checkUnreachable:
		r.unreachable++
	}
	fmt.Fprintf(r.w, "%s %s: %s\n", tag, what, msg)
}

// failed is how many checks failed.
func (r *checkReport) failed() int { return r.refused + r.unreachable }

// skip prints a check that was not made because an earlier one failed.
func (r *checkReport) skip(what, why string) {
	fmt.Fprintf(r.w, "skip %s: %s\n", what, why)
}

// err is the command's error with the exit code: 3 when anything was
// unreachable, else 1 when something was refused.
func (r *checkReport) err() error {
	switch {
	case r.unreachable > 0:
		return withCode(exitUnreachable, fmt.Errorf("%d of %d checks failed", r.failed(), r.total))
	case r.refused > 0:
		return withCode(exitInvalid, fmt.Errorf("%d of %d checks failed: a token or login was refused", r.failed(), r.total))
	}
	return nil
}

func runCheck(ctx context.Context, cfgPath string, w io.Writer) error {
	cfg, err := decodeCheckConfig(cfgPath)
	if err != nil {
		fmt.Fprintf(w, "FAIL config %s: %v\n", cfgPath, err)
		return withCode(exitUsage, errors.New("the configuration is invalid"))
	}
	rep := &checkReport{w: w}
	rep.line("config "+cfg.File, checkOK, fmt.Sprintf("valid: %d portal(s), %d inbox(es), %d outbox(es)",
		len(cfg.Portals), len(cfg.Inboxes), len(cfg.Outboxes)))
	// A missing token or password is said once; the other checks go on
	// (a portal without its token is not called).
	secretErr := cfg.ResolveSecrets(nil)
	if secretErr != nil {
		rep.line("secrets", checkRefused, secretErr.Error())
	}

	out, msg := checkJournalPath(cfg.Journal.Path)
	if cfg.Journal.Postgres() {
		out, msg = checkOK, cfg.Journal.String()+": PostgreSQL answers (shared by every instance with this config)"
		if err := journal.Ping(ctx, app.JournalOptions(cfg)); err != nil {
			out, msg = checkUnreachable, err.Error()
		}
	}
	rep.line("journal", out, msg)

	log := slog.New(slog.DiscardHandler)
	for _, name := range cfg.PortalNames() {
		if cfg.Portals[name].Token.IsZero() {
			rep.skip("portal "+name, "not called: its token is missing (see secrets above)")
			continue
		}
		out, msg := checkPortal(ctx, cfg.Portals[name])
		rep.line("portal "+name, out, msg)
	}
	// The folders stay open until every one is checked: those on one
	// SFTP account share one connection, as in run.
	var open []folder.Folder
	defer func() {
		for _, f := range open {
			_ = f.Close()
		}
	}()
	folderLine := func(what string, u config.FolderURL, s config.SFTP, timeout time.Duration, state string) {
		out, msg := checkFolder(ctx, app.FolderOptions(u, s, min(timeout, checkTimeout), log), state, &open)
		rep.line(what, out, u.String()+": "+msg)
	}
	for _, in := range cfg.Inboxes {
		folderLine("inbox "+in.Name, in.Folder, in.SFTP, in.OperationTimeout.Duration, "waiting")
	}
	for _, ob := range cfg.Outboxes {
		folderLine("outbox "+ob.Name, ob.Folder, ob.SFTP, ob.OperationTimeout.Duration, "in it")
	}
	if secretErr != nil {
		return withCode(exitUsage, fmt.Errorf("%d of %d checks failed: a token or password is missing (see secrets)", rep.failed(), rep.total))
	}
	return rep.err()
}

// decodeCheckConfig reads and validates the config without its secrets, so
// that check can report a missing token once and go on.
func decodeCheckConfig(path string) (*config.Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading it: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Decode(data, filepath.Dir(abs))
	if err != nil {
		return nil, err
	}
	cfg.File = abs
	return cfg, nil
}

// checkJournalPath checks what `run` needs of the journal, with the same
// check run does at start (journal.CheckPath), without opening the
// database (a daemon may be running on it): its folder and, where they
// exist, the database file and its -wal and -shm files are writable.
func checkJournalPath(path string) (checkOutcome, string) {
	if err := journal.CheckPath(path); err != nil {
		return checkUnreachable, fmt.Sprintf("%s: %v", path, err)
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return checkOK, path + ": folder writable (the journal will be created at the first run)"
	}
	return checkOK, path + ": file and folder writable"
}

// checkPortal asks for one connection with the portal's token: the
// cheapest call every edition serves.
func checkPortal(ctx context.Context, p *config.Portal) (checkOutcome, string) {
	noRetry := 0
	c, err := app.NewPortal(p, app.PortalOptions{MaxRetries: &noRetry, Timeout: checkTimeout})
	if err != nil {
		return checkUnreachable, err.Error()
	}
	defer c.Close()
	// The client's timeout ends the call, with an error the hint explains;
	// the context only guards against one that would not end.
	ctx, cancel := context.WithTimeout(ctx, 2*checkTimeout)
	defer cancel()
	_, err = c.Page(ctx, portal.Connections, url.Values{"page": {"1"}, "itemsPerPage": {"1"}})
	if err == nil {
		return checkOK, fmt.Sprintf("%s answered, token accepted (edition %s, company %d)", p.BaseURL, p.Edition, p.Company)
	}
	msg := fmt.Sprintf("%s: %v", p.BaseURL, err)
	if hint := portal.Hint(err, p.Name); hint != "" {
		msg += "; " + hint
	}
	switch {
	case portal.IsAuth(err):
		src := "token_env " + p.TokenEnv
		if p.TokenFile != "" {
			src = "token_file " + p.TokenFile
		}
		return checkRefused, msg + " (the token was read from " + src + ")"
	case portal.IsNotFound(err):
		return checkUnreachable, msg + " (base_url usually ends in /api)"
	}
	return checkUnreachable, msg
}

// checkFolder opens a folder (for SFTP: connects, verifies the host key and
// logs in), lists its root and, on SFTP, tests its renames; state says
// what its files are doing. The folder opened is added to open, for the
// caller to close.
func checkFolder(ctx context.Context, o folder.Options, state string, open *[]folder.Folder) (checkOutcome, string) {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	f, err := folder.Open(ctx, o)
	if err != nil {
		return folderFailure(err)
	}
	*open = append(*open, f)
	entries, err := f.List(ctx, ".")
	if err != nil {
		return folderFailure(err)
	}
	files := 0
	for _, e := range entries {
		if !e.IsDir {
			files++
		}
	}
	if o.Location.IsSFTP() {
		renames, err := folder.RenameSafety(ctx, f)
		if err != nil {
			return folderFailure(err)
		}
		return checkOK, fmt.Sprintf("host key verified, logged in, %d file(s) %s; %s", files, state, renames)
	}
	return checkOK, fmt.Sprintf("readable, %d file(s) %s", files, state)
}

// folderFailure classes a folder error: a refused login is exit 1,
// anything else (host key, network, missing folder) exit 3.
func folderFailure(err error) (checkOutcome, string) {
	switch {
	case errors.Is(err, folder.ErrHostKeyMismatch):
		return checkUnreachable, "host key mismatch: " + err.Error()
	case errors.Is(err, folder.ErrHostKeyUnknown):
		return checkUnreachable, "host key unknown: " + err.Error()
	case errors.Is(err, folder.ErrKnownHostsMissing):
		return checkUnreachable, err.Error()
	case errors.Is(err, os.ErrNotExist):
		return checkUnreachable, "the folder does not exist: " + err.Error() + "; create it or fix the url"
	case strings.Contains(err.Error(), "logging in to"):
		return checkRefused, "login refused: " + err.Error()
	}
	return checkUnreachable, err.Error()
}
