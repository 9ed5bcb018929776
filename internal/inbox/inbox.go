// Package inbox owns the inbound lifecycle of a file (DESIGN section 3):
// discover it in an inbox folder (local or SFTP), wait until it is settled,
// claim it into processing/, decode and validate it whole, submit its
// documents to the portal with bounded concurrency, write a report (and the
// rejected rows) next to it, and move it to processed/YYYY/MM/DD/ or error/.
//
// Every step survives a crash. The journal records the file when it is
// claimed and each document's result before the next step: a document is
// marked "sending" before its request goes out, so a restart sends it again
// through the portal client's create, which looks an existing key up
// instead of creating it twice. Files found in processing/ at start are
// resumed; a file without a journal row there is claimed then.
//
// Transient failures (network, 5xx, 429 after the client's retries) and
// refused tokens leave the file in processing/ and retry it after a backoff
// that doubles from retry_backoff up to retry_backoff_max; they never send
// a file to error/.
package inbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"filebridge/internal/config"
	"filebridge/internal/folder"
	"filebridge/internal/journal"
	"filebridge/internal/model"
	"filebridge/internal/portal"
)

// Deps are what an inbox works with. Journal and Portal are required.
type Deps struct {
	Journal *journal.DB
	Portal  *portal.Client
	Edition model.Edition // default: the portal client's edition
	Logger  *slog.Logger  // default: slog.Default()
	Metrics *Metrics      // may be nil
	// Health is shared by the inboxes of a portal: an auth failure pauses
	// the portal there (visible on /healthz). Nil: a private one.
	Health *Health
	// Order is shared by the inboxes of one portal: it keeps their files
	// in dependency order across inboxes. Nil: a private one.
	Order *Order
	// OpenFolder opens the inbox folder. Nil: folder.Open with Folder.
	OpenFolder func(ctx context.Context) (folder.Folder, error)
	// Folder are the options of the inbox folder (app.FolderOptions of the
	// inbox's url and SFTP settings). Without a Location: the inbox's
	// local folder (cfg.Folder) with default timeouts.
	Folder folder.Options
	// Concurrency is the number of documents submitted at once; the portal
	// client's own semaphore bounds the requests. Default 8.
	Concurrency int
	// Watcher watches the folders of the local inboxes of the process
	// (one inotify instance for all). Nil: one of the inbox's own.
	Watcher *Watcher
	// Options change timing, for demo --once and tests.
	Options Options
	// OnFailed, when set, hears of every file that ended failed (to notify
	// people); it must not block.
	OnFailed func(journal.File)
}

// Options change how rounds run.
type Options struct {
	// SkipSettle claims files at the first look, without waiting for their
	// size and mtime to settle (done markers are still waited for).
	SkipSettle bool
	// Now replaces time.Now (the processed/YYYY/MM/DD folder and reports).
	Now func() time.Time
	// Grace is how long Run lets the portal requests already sent finish
	// (and their results be journaled) after its context ended; then they
	// are cancelled. Default DefaultGrace.
	Grace time.Duration
	// FairShare is how long a round of Run waits, once every file of a
	// dependency level has started, for those still running: a file that
	// needs longer goes on in the background and the inbox starts its
	// next rounds, so a huge file does not hold up the files that arrive
	// after it. Default DefaultFairShare. RunOnce and ProcessFile always
	// wait for their files.
	FairShare time.Duration
}

// DefaultGrace is the default Options.Grace.
const DefaultGrace = 15 * time.Second

// DefaultFairShare is the default Options.FairShare.
const DefaultFairShare = 10 * time.Second

// Inbox runs the lifecycle of one configured inbox. Its methods may be
// called from several goroutines: files are processed one at a time.
type Inbox struct {
	cfg     config.Inbox
	j       *journal.DB
	p       *portal.Client
	edition model.Edition
	log     *slog.Logger
	metrics *Metrics
	// onFailed hears of failed files (Deps.OnFailed); never nil.
	onFailed func(journal.File)
	health   *Health
	order    *Order
	wake     *wakeup // signalled when a file of the portal finished while the inbox waited
	open     func(ctx context.Context) (folder.Folder, error)
	watcher  *Watcher // nil: Run starts one of its own
	ring     *alarm   // Run's alarm, nil without one (used by Run's goroutine only, see waitFairShare)
	workers  int
	opts     Options
	pace     *pace // how many files at once (pace.go)

	work      sync.Mutex // held while a file is claimed or processed
	grownLook time.Time  // the last look for files grown after their reading (requeueGrown; under work)
	ledger    ledger     // the reading ledger (reading.go)
	// strays are the files of processing/ without an open journal row,
	// with when this instance first saw them so, on the journal's clock
	// (guarded by work; shared journal only, see lease.go).
	strays map[string]look
	// opening is held while the folder is opened and cleaned up: that I/O
	// lists the folder, whose skip hook takes mu.
	opening sync.Mutex

	mu    sync.Mutex // guards the fields below
	f     folder.Folder
	looks map[string]look // settle state of the names in the inbox root
	// listed is what the last listing of the inbox root showed of its
	// files, which their claims take instead of asking again.
	listed map[string]folder.Entry
	// claimLooks are what the claims of this process saw of the files
	// (size, modification time) until they are processed (changed.go).
	claimLooks map[int64]look
	cleanedAt  time.Time // when removeTemps last ran (cleanup.go)
	retries    int       // transient failures since the last success
	retryAt    time.Time // no round before this, after a transient failure
	status     Status    // what Status reports
	// deferred counts the claimed files the last round did not start
	// because a file they depend on was not finished, or held for master
	// data.
	deferred  int
	held      map[int64]HeldFile  // by journal id
	ign       ignored             // entries of the root not taken
	deferLog  map[int64]string    // what each deferred file was last logged waiting for
	rootTypes map[string]rootType // header types of root files without a route type
	// running holds the files a round of Run left running in the
	// background (by journal id); background counts their goroutines.
	running    map[int64]bool
	background sync.WaitGroup
	// spooled keeps the claims of this round of remote files read into
	// memory, by journal id, for processing to use instead of reading
	// the files again (see keepSpooled); spooledBytes is their size.
	// Local files stay open likewise: spooledFiles of them, at most
	// keptMax (handleBudget).
	spooled      map[int64]*source
	spooledBytes int64
	spooledFiles int
	keptMax      int
}

// FileResult says what happened to one file.
type FileResult struct {
	Name         string // original name in the inbox
	DocType      string // canonical document type, when known
	FinalPath    string // in processed/ or error/ ("" while in processing/)
	ReportPath   string
	RejectedPath string
	State        journal.FileState
	Rows         int // data rows read
	DocsOK       int // created or already existing
	DocsFailed   int // invalid, conflict, skipped or failed
	Invalid      int // documents refused by validation or by the portal
	Duplicate    bool
	// Held says the file waits in processing/ for master data not on the
	// portal yet (Message names the codes); it is retried every round.
	Held    bool
	Message string // what happened, for the operator
}

// RoundResult sums up one round of an inbox.
type RoundResult struct {
	Files []FileResult
	// Waiting counts files seen in the inbox but not settled yet (or
	// waiting for their done marker).
	Waiting int
	// Retrying counts files left in processing/ for a later retry.
	Retrying int
	// Deferred counts files claimed but not started: a file of a type
	// they depend on is settling, waiting or in processing/ in an inbox of
	// the same portal. They start in a later round.
	Deferred int
	// Held counts files waiting in processing/ for master data not on
	// the portal yet.
	Held int
	// Running counts files that took longer than their fair share and go
	// on in the background (Run only).
	Running int
	// Left counts settled files the round did not claim: on a shared
	// journal a round claims only the files it can start, leaving the
	// others to the other instances and to its next round (at once).
	Left int
}

// New checks the dependencies and returns the inbox. It opens nothing.
func New(cfg config.Inbox, deps Deps) (*Inbox, error) {
	if deps.Journal == nil {
		return nil, fmt.Errorf("creating inbox %q: no journal", cfg.Name)
	}
	if deps.Portal == nil {
		return nil, fmt.Errorf("creating inbox %q: no portal client for portal %q", cfg.Name, cfg.Portal)
	}
	e := cmp.Or(deps.Edition, deps.Portal.Edition())
	if _, err := model.ParseEdition(string(e)); err != nil {
		return nil, fmt.Errorf("creating inbox %q: %w", cfg.Name, err)
	}
	if cfg.Folder.Scheme == "" {
		return nil, fmt.Errorf("creating inbox %q: its url was not parsed: load the config with config.Load", cfg.Name)
	}
	if cfg.ProcessingDir == "" || cfg.ProcessedDir == "" || cfg.ErrorDir == "" || cfg.Poll.Duration <= 0 ||
		cfg.RetryBackoff.Duration <= 0 || cfg.RetryBackoffMax.Duration <= 0 || cfg.MaxFileSize <= 0 {
		return nil, fmt.Errorf("creating inbox %q: its defaults were not set: load the config with config.Load", cfg.Name)
	}
	log := cmp.Or(deps.Logger, slog.Default())
	in := &Inbox{
		cfg: cfg, j: deps.Journal, p: deps.Portal, edition: e,
		log:     log.With("inbox", cfg.Name),
		metrics: deps.Metrics, health: cmp.Or(deps.Health, NewHealth(deps.Options.Now)), open: deps.OpenFolder, onFailed: deps.OnFailed,
		workers: deps.Concurrency, opts: deps.Options, watcher: deps.Watcher, order: cmp.Or(deps.Order, NewOrder()),
		looks: map[string]look{}, pace: newPace(cfg.FileConcurrency), keptMax: handleBudget(),
	}
	if in.onFailed == nil {
		in.onFailed = func(journal.File) {}
	}
	in.wake = in.order.register(cfg.Name)
	if in.workers <= 0 {
		in.workers = config.DefaultConcurrency
	}
	if in.open == nil {
		opts := deps.Folder
		if opts.Location.Scheme == "" {
			opts.Location, opts.Timeout = cfg.Folder, cfg.OperationTimeout.Duration
		}
		if opts.Logger == nil {
			opts.Logger = log
		}
		opts.OnSkip = in.onSkip // listed once, not warned about at every poll
		in.open = func(ctx context.Context) (folder.Folder, error) { return folder.Open(ctx, opts) }
	}
	if in.opts.Now == nil {
		in.opts.Now = time.Now
	}
	if in.opts.Grace <= 0 {
		in.opts.Grace = DefaultGrace
	}
	if in.opts.FairShare <= 0 {
		in.opts.FairShare = DefaultFairShare
	}
	return in, nil
}

// Name is the inbox's name.
func (in *Inbox) Name() string { return in.cfg.Name }

// Portal is the name of the portal the inbox submits to.
func (in *Inbox) Portal() string { return in.cfg.Portal }

// Folder returns the inbox's folder, opening it (and creating processing/)
// on first use. Close closes it.
func (in *Inbox) Folder(ctx context.Context) (folder.Folder, error) { return in.folder(ctx) }

// folder returns the open folder, opening it (creating processing/ and
// removing temporary files an earlier stop left) on first use.
func (in *Inbox) folder(ctx context.Context) (folder.Folder, error) {
	f, _, err := in.openFolder(ctx)
	return f, err
}

// openFolder is folder; root is, when this call opened the folder, what
// removeTemps listed of its root, for a scan that follows at once to
// take instead of listing the root again (on SFTP a listing of a
// thousand files is some fifteen round trips); nil otherwise.
func (in *Inbox) openFolder(ctx context.Context) (f folder.Folder, root []folder.Entry, err error) {
	in.opening.Lock()
	defer in.opening.Unlock()
	in.mu.Lock()
	f = in.f
	in.mu.Unlock()
	if f != nil {
		return f, nil, nil
	}
	if f, err = in.open(ctx); err != nil {
		return nil, nil, fmt.Errorf("opening inbox %q: %w", in.cfg.Name, err)
	}
	if err := f.MkdirAll(ctx, in.cfg.ProcessingDir); err != nil {
		_ = f.Close()
		return nil, nil, fmt.Errorf("opening inbox %q: %w", in.cfg.Name, err)
	}
	// The entries the root's listing leaves out count as that of a scan
	// (see ignored), which may take the listing.
	in.mu.Lock()
	in.beginListing()
	in.mu.Unlock()
	root = in.removeTemps(ctx, f)
	in.mu.Lock()
	in.f = f
	in.mu.Unlock()
	return f, root, nil
}

// Close closes the inbox's folder and its reading ledger's file.
func (in *Inbox) Close() error {
	lerr := in.ledger.close()
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.f == nil {
		return lerr
	}
	err := in.f.Close()
	in.f = nil
	return errors.Join(err, lerr)
}

func (in *Inbox) now() time.Time { return in.opts.Now() }

// route returns the route of a file name (nil: none matches).
func (in *Inbox) route(name string) *config.Route { return in.cfg.Route(name) }

// retryError marks a failure that leaves files in processing/ for a later
// round: the folder or the portal was unreachable, or refused the token
// (portal.IsAuth matches it then, and the portal is paused in Health).
type retryError struct{ err error }

func (e *retryError) Error() string { return e.err.Error() }
func (e *retryError) Unwrap() error { return e.err }

// IsRetry reports whether err left a file in processing/ to be retried
// later (transient portal or folder failure, or a refused token).
func IsRetry(err error) bool {
	var re *retryError
	return errors.As(err, &re)
}
