package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"filebridge/internal/config"
	"filebridge/internal/inbox"
	"filebridge/internal/journal"
	"filebridge/internal/notify"
	"filebridge/internal/outbox"
	"filebridge/internal/portal"
	"filebridge/internal/server"
)

// DefaultGrace is how long Run waits, after its context ended, for the
// inboxes and exports to stop before it closes the journal anyway.
const DefaultGrace = 20 * time.Second

// UnreachableError is a dependency that could not be reached or opened at
// start (the journal, the metrics listener): `run` exits with code 3.
type UnreachableError struct{ Err error }

func (e *UnreachableError) Error() string { return e.Err.Error() }
func (e *UnreachableError) Unwrap() error { return e.Err }

// IsUnreachable reports whether err is an UnreachableError.
func IsUnreachable(err error) bool {
	var u *UnreachableError
	return errors.As(err, &u)
}

// Options adjust a Daemon.
type Options struct {
	// Inbox changes how inbox rounds run (demo: SkipSettle).
	Inbox inbox.Options
	// Grace bounds the shutdown; default DefaultGrace. The inboxes let
	// their requests in flight finish for Inbox.Grace (default: Grace less
	// a quarter of it, at most 5s less), within it.
	Grace time.Duration
	// Now is the clock of the inboxes (unless Inbox.Now is set), the
	// health report and the outbox runs; default time.Now.
	Now func() time.Time
	// HealthProbe is how often Run asks a portal that answered no request
	// in that time whether it is up and takes the token; default
	// DefaultHealthProbe.
	HealthProbe time.Duration
	// Metrics are the process's collectors, kept across the daemons of a
	// SIGHUP reload so that counters go on; nil: new ones.
	Metrics *Metrics
}

// Daemon is everything `filebridge run` runs in one process: every inbox of
// every portal (several portals are several tenants), the outbox schedules
// next to them, and the /metrics and /healthz server.
type Daemon struct {
	Config   *config.Config
	Log      *slog.Logger
	Journal  *journal.DB
	Portals  map[string]*portal.Client
	Registry *prometheus.Registry
	Health   *inbox.Health
	Inboxes  []*inbox.Inbox
	Outboxes []*Outbox

	opts     Options
	metrics  *Metrics               // the process's, shared with the daemons before and after a reload
	own      []prometheus.Collector // this daemon's collectors in metrics, out again at Close
	exports  *ExportMetrics
	notifier *notify.Notifier // nil: no [notify] table
	lock     *journal.Lock    // this process owns the journal

	sched atomic.Pointer[outbox.Scheduler] // while Run runs the schedules

	watch  *portalWatch
	probes map[string]*portal.Client // without retries, for the health probe
}

// Outbox is an outbox with its export jobs and the runner that writes them.
type Outbox struct {
	Config *config.Outbox
	Runner *outbox.Runner
	Jobs   []outbox.Job
	source *outbox.PortalSource // the Runner's, whose snapshot client Close closes
}

// Open builds the daemon of cfg: it opens the journal (an UnreachableError
// when it cannot), creates the portal clients with measured transports,
// the inboxes and the outbox runners. Folders are opened on first use, so
// an SFTP server that is down at start is retried rather than fatal.
func Open(ctx context.Context, cfg *config.Config, log *slog.Logger, opts Options) (_ *Daemon, err error) {
	if opts.Grace <= 0 {
		opts.Grace = DefaultGrace
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.HealthProbe <= 0 {
		opts.HealthProbe = DefaultHealthProbe
	}
	if opts.Inbox.Now == nil {
		opts.Inbox.Now = opts.Now
	}
	if opts.Inbox.Grace <= 0 || opts.Inbox.Grace > opts.Grace {
		// Requests in flight get most of the grace period; the rest is
		// for journaling their results and stopping the exports.
		opts.Inbox.Grace = opts.Grace - min(opts.Grace/4, 5*time.Second)
	}
	m := opts.Metrics
	if m == nil {
		m = NewMetrics(opts.Now)
	}

	lock, err := LockJournal(cfg)
	if err != nil {
		return nil, &UnreachableError{Err: err}
	}
	j, err := OpenJournal(ctx, cfg)
	if err != nil {
		_ = lock.Release()
		return nil, &UnreachableError{Err: fmt.Errorf("%w; check the [journal] table in %s", err, cfg.File)}
	}
	d := &Daemon{
		Config: cfg, Log: log, Journal: j, Registry: m.Registry,
		Health: inbox.NewHealth(opts.Now), opts: opts, exports: m.exports, lock: lock, metrics: m,
	}
	defer func() {
		if err != nil {
			d.Close()
		}
	}()
	d.notifier = newNotifier(cfg, d)
	d.watch = newPortalWatch(d.Health, opts.Now, log)
	transport := portalTransport(m.api, d.watch)
	popts := PortalOptions{Transport: transport, Logger: log}
	if d.Portals, err = NewPortals(cfg, popts); err != nil {
		return nil, err
	}
	for _, ic := range cfg.Inboxes {
		if err := BackfillPortal(ctx, j, ic.Name, d.Portals[ic.Portal], log); err != nil {
			return nil, &UnreachableError{Err: err}
		}
	}
	noRetry := 0
	if d.probes, err = NewPortals(cfg, PortalOptions{Transport: transport, Logger: log, MaxRetries: &noRetry, Timeout: probeTimeout}); err != nil {
		return nil, err
	}
	own := append(limitGauges(d.Portals), portalStatusGauges(cfg.PortalNames(), d.Health)...)
	for _, c := range append(own, journalCounters(j, m.journalBefore)...) {
		if err := m.Registry.Register(c); err != nil {
			return nil, fmt.Errorf("registering the daemon's metrics: %w", err)
		}
		d.own = append(d.own, c)
	}
	orders := map[string]*inbox.Order{} // one per portal: dependency order across its inboxes
	watcher := inbox.NewWatcher(log)    // one inotify instance for every local inbox
	for i := range cfg.Inboxes {
		ic := cfg.Inboxes[i]
		p := cfg.Portals[ic.Portal]
		if orders[ic.Portal] == nil {
			orders[ic.Portal] = inbox.NewOrder()
		}
		in, err := inbox.New(ic, inbox.Deps{
			Journal: j, Portal: d.Portals[ic.Portal], Edition: p.Edition, Logger: log,
			Metrics: m.inbox, Health: d.Health, Order: orders[ic.Portal], Concurrency: InboxWorkers(p), Options: opts.Inbox, Watcher: watcher,
			Folder:   FolderOptions(ic.Folder, ic.SFTP, ic.OperationTimeout.Duration, nil), // the inbox logs through its own logger
			OnFailed: d.fileFailed(&cfg.Inboxes[i]),
		})
		if err != nil {
			return nil, err
		}
		d.Inboxes = append(d.Inboxes, in)
	}
	for i := range cfg.Outboxes {
		ob, err := d.newOutbox(&cfg.Outboxes[i], popts)
		if err != nil {
			return nil, err
		}
		d.Outboxes = append(d.Outboxes, ob)
	}
	return d, nil
}

func (d *Daemon) newOutbox(oc *config.Outbox, popts PortalOptions) (*Outbox, error) {
	jobs, err := outbox.Jobs(d.Config, oc)
	if err != nil {
		return nil, err
	}
	// Stock snapshots read the largest pages; the other lists the
	// portal's items_per_page.
	snap := *d.Config.Portals[oc.Portal]
	snap.ItemsPerPage = outbox.StockPageSize
	sc, err := NewPortal(&snap, popts)
	if err != nil {
		return nil, err
	}
	// The folder connects at the first export (and again after a break):
	// a server that is down only fails the runs until it is back.
	f, err := OpenOutboxFolder(context.Background(), oc, d.Log.With("outbox", oc.Name))
	if err != nil {
		sc.Close()
		return nil, err
	}
	src := &outbox.PortalSource{Client: d.Portals[oc.Portal], Snapshot: sc}
	return &Outbox{
		Config: oc, Jobs: jobs, source: src,
		Runner: &outbox.Runner{Source: src, Folder: f, Journal: d.Journal, Logger: d.Log, Now: d.opts.Now},
	}, nil
}

// RunOnce looks at every inbox, then runs rounds of every inbox, one
// after the other, until no file is deferred behind a file of another
// inbox of its portal (or a pass finishes none), and returns their
// results by inbox name. A round that leaves files for a retry is
// reported in its result and error.
func (d *Daemon) RunOnce(ctx context.Context) (map[string]inbox.RoundResult, error) {
	for _, in := range d.Inboxes {
		if err := in.Look(ctx); err != nil {
			d.Log.Debug("looking at the inbox before the first round", "inbox", in.Name(), "error", err)
		}
	}
	out := map[string]inbox.RoundResult{}
	var errs []error
	for pass := 0; pass <= len(d.Inboxes); pass++ {
		errs = errs[:0]
		deferred, finished := 0, 0
		for _, in := range d.Inboxes {
			res, err := in.RunOnce(ctx)
			prev := out[in.Name()]
			res.Files = append(prev.Files, res.Files...)
			out[in.Name()] = res
			deferred += res.Deferred
			finished += len(res.Files) - len(prev.Files)
			if err != nil {
				errs = append(errs, fmt.Errorf("inbox %s: %w", in.Name(), err))
			}
		}
		if deferred == 0 || finished == 0 || ctx.Err() != nil {
			break
		}
	}
	return out, errors.Join(errs...)
}

// ExportResult is the outcome of one export run by ExportOnce.
type ExportResult struct {
	Job    outbox.Job
	Result outbox.Result
	Err    error
}

// ticks is the journal as the record of export ticks when several
// instances share it (nil otherwise: one instance, no ticks).
func (d *Daemon) ticks() outbox.Ticks {
	if !d.Journal.Shared() {
		return nil
	}
	return d.Journal
}

// runNow runs one export of ob now, outside its schedule: through the
// running scheduler (never beside its own run of the export), and on a
// shared journal as a tick of its own (outbox.RunNow). A since not zero
// exports everything from then on again, leaving the cursor alone. The
// run is observed as a scheduled one is (metrics, notification).
func (d *Daemon) runNow(ctx context.Context, ob *Outbox, job outbox.Job, since time.Time) (res outbox.Result, err error) {
	begin := d.opts.Now()
	defer func() { d.observer().ExportRun(job, res, err, d.opts.Now().Sub(begin)) }()
	run := func(ctx context.Context) (outbox.Result, error) {
		if !since.IsZero() {
			return ob.Runner.RunSince(ctx, job, since)
		}
		return ob.Runner.Run(ctx, job)
	}
	if sched := d.sched.Load(); sched != nil {
		return sched.RunNow(ctx, job, run)
	}
	return outbox.RunNow(ctx, d.ticks(), d.Journal.Now(), job, run)
}

// ExportOnce runs every export of every outbox once, now (runNow).
func (d *Daemon) ExportOnce(ctx context.Context) []ExportResult {
	var out []ExportResult
	for _, ob := range d.Outboxes {
		for _, job := range ob.Jobs {
			res, err := d.runNow(ctx, ob, job, time.Time{})
			out = append(out, ExportResult{Job: job, Result: res, Err: err})
		}
	}
	return out
}

// Run serves /metrics and /healthz (unless server.listen is ""), starts
// the export schedules and watches every inbox until ctx ends. Then the
// inboxes stop discovering and start no new file or document at once,
// while the portal requests already sent finish and their results are
// journaled (within Options.Inbox.Grace; a request cancelled then is
// looked up from the journal at the next start); a file left unfinished
// stays in processing/ and resumes at the next start. Run waits for the
// inboxes and exports at most the grace period. The caller closes the
// daemon afterwards.
func (d *Daemon) Run(ctx context.Context) error {
	if addr := d.Config.Server.Listen; addr != "" {
		c, err := d.Console()
		if err != nil {
			return err
		}
		h := server.Handler(d.Registry, d.HealthReport, c.Access(d.Config.Server.PublicHealth), c.Mount)
		srv, err := server.Start(ctx, addr, h, d.Log)
		if err != nil {
			return &UnreachableError{Err: err}
		}
		defer func() {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
			defer cancel()
			if err := srv.Shutdown(sctx); err != nil {
				d.Log.Warn("stopping the metrics server", "error", err)
			}
		}()
	}
	sopts := outbox.SchedulerOptions{Logger: d.Log, Observer: d.observer()}
	if d.Journal.Shared() {
		// Others see at once when this instance stops (InstanceAlive).
		release, err := d.Journal.HoldInstance(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err() // stopped while starting
			}
			return err
		}
		defer release()
		// Export runs this instance's name still holds were left by an
		// earlier process of it (killed during a run): nothing of this
		// process runs yet, so their leases end now and they are redone
		// or passed by, instead of being renewed here as if they ran.
		if _, err := d.Journal.ReleaseTicks(ctx); err != nil {
			return err
		}
		sopts.Ticks = d.ticks() // each scheduled time runs on one instance
	}
	sched := outbox.NewScheduler(ctx, sopts)
	for _, ob := range d.Outboxes {
		for _, job := range ob.Jobs {
			if err := sched.Add(job, ob.Runner); err != nil {
				_ = sched.Shutdown()
				return err
			}
		}
	}
	sched.Start()
	d.sched.Store(sched)
	defer d.sched.Store(nil)
	var wg sync.WaitGroup
	for _, in := range d.Inboxes {
		wg.Go(func() {
			if err := in.Run(ctx); err != nil {
				d.Log.Error("inbox stopped", "inbox", in.Name(), "error", err)
			}
		})
	}
	if every := d.pruneInterval(); every > 0 {
		prune := time.NewTicker(every)
		defer prune.Stop()
		wg.Go(func() { d.pruneLoop(ctx, prune.C, every) })
	}
	if d.notifier != nil {
		held := time.NewTicker(heldLookEvery)
		defer held.Stop()
		wg.Go(func() { d.watchHeld(ctx, held.C) })
	}
	probe := time.NewTicker(d.opts.HealthProbe)
	defer probe.Stop()
	wg.Go(func() { d.watch.run(ctx, probe.C, d.probes, d.opts.HealthProbe) })
	stopRenewing := func() {}
	if d.Journal.Shared() {
		// Keep this instance's claims in a shared journal alive while its
		// work runs, grace period included.
		lctx, stopLeases := context.WithCancel(context.WithoutCancel(ctx))
		renew := time.NewTicker(d.Journal.Lease() / 3)
		var leases sync.WaitGroup
		leases.Go(func() { d.Journal.KeepLeases(lctx, renew.C, d.Log) })
		// Say this instance is alive and keep its export runs through the
		// grace period too; redo the runs of instances that died during one.
		beat := time.NewTicker(d.Journal.Lease() / 3)
		leases.Go(func() { d.Journal.KeepAlive(lctx, beat.C, d.Log) })
		watch := time.NewTicker(d.Journal.Lease() / 3)
		defer watch.Stop()
		wg.Go(func() { sched.Watch(ctx, watch.C) })
		stopRenewing = func() {
			stopLeases()
			leases.Wait()
			renew.Stop()
			beat.Stop()
		}
		defer stopRenewing()
	}
	d.Log.Info("filebridge running", "inboxes", len(d.Inboxes), "exports", len(sched.Jobs()), "portals", len(d.Portals),
		"instance", d.Journal.Instance())
	<-ctx.Done()

	d.Log.Info("stopping: no new files are picked up; waiting for the work in flight", "grace", d.opts.Grace)
	stopped := make(chan error, 1)
	go func() {
		wg.Wait()
		stopped <- sched.Shutdown()
	}()
	var err error
	select {
	case err = <-stopped:
		stopRenewing()
		d.releaseLeases(ctx)
	case <-time.After(d.opts.Grace):
		d.Log.Warn("work still running after the grace period; stopping anyway (it resumes from the journal at the next start)", "grace", d.opts.Grace)
	}
	return err
}

// releaseLeases hands the claims of this instance in a shared journal back
// once its work stopped, so that other instances take its files over at
// their next poll rather than after the lease.
func (d *Daemon) releaseLeases(ctx context.Context) {
	if !d.Journal.Shared() {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	n, err := d.Journal.ReleaseLeases(rctx)
	if err != nil {
		d.Log.Warn("could not hand this instance's files back to the others; they take them over once the lease ran out", "lease", d.Journal.Lease(), "error", err)
		return
	}
	if n > 0 {
		d.Log.Info("handed the files left in processing/ back to the other instances", "files", n)
	}
}

// Close closes the inboxes' and outboxes' folders, the portal clients and
// the journal.
func (d *Daemon) Close() error {
	var errs []error
	for _, in := range d.Inboxes {
		errs = append(errs, in.Close())
	}
	for _, ob := range d.Outboxes {
		errs = append(errs, ob.Runner.Folder.Close())
		ob.source.Snapshot.Close()
	}
	for _, c := range d.Portals {
		c.Close()
	}
	if d.notifier != nil {
		// Notifications under way get a moment to go out.
		ctx, cancel := context.WithTimeout(context.Background(), notifyGrace)
		d.notifier.Close(ctx)
		cancel()
	}
	for _, c := range d.probes {
		c.Close()
	}
	for _, c := range d.own {
		d.Registry.Unregister(c)
	}
	if d.Journal != nil {
		d.metrics.closed(d.Journal.WriteStats())
		errs = append(errs, d.Journal.Close())
	}
	errs = append(errs, d.lock.Release())
	return errors.Join(errs...)
}

// pruneEvery is how often the processed/ folders of inboxes with a
// retention are pruned, resolved failures past error_retention moved
// out of error/ and, with journal.retention, the journal's history
// pruned (also once at start); a shorter error_retention is checked as
// often as it is long, once a second at most.
const pruneEvery = time.Hour

// pruneInterval is the loop's period for the configuration; 0 when
// there is nothing to prune.
func (d *Daemon) pruneInterval() time.Duration {
	every := time.Duration(0)
	if d.Config.Journal.Retention > 0 {
		every = pruneEvery
	}
	for i := range d.Config.Inboxes {
		ic := &d.Config.Inboxes[i]
		if ic.Retention > 0 {
			every = pruneEvery
		}
		if k := ic.ErrorRetention.Dur(); k > 0 {
			every = min(cmp.Or(every, pruneEvery), max(k, time.Second))
		}
	}
	return every
}

// pruneLoop deletes the dated processed/ folders past each inbox's
// retention, moves resolved failures past its error_retention out of
// error/ and prunes the journal's history past journal.retention, at
// start and at every tick until ctx ends; inboxes without either are
// left alone, and so is the journal without journal.retention.
func (d *Daemon) pruneLoop(ctx context.Context, tick <-chan time.Time, every time.Duration) {
	for {
		for _, in := range d.Inboxes {
			if _, err := in.PruneProcessed(ctx, d.opts.Now()); err != nil && ctx.Err() == nil {
				d.Log.Warn("could not delete processed files past the retention; retried later", "inbox", in.Name(), "error", err, "every", every)
			}
			if _, err := in.ArchiveResolved(ctx, d.opts.Now()); err != nil && ctx.Err() == nil {
				d.Log.Warn("could not move resolved failures out of the error folder; retried later", "inbox", in.Name(), "error", err, "every", every)
			}
		}
		d.pruneJournal(ctx, every)
		select {
		case <-ctx.Done():
			return
		case <-tick:
		}
	}
}

// pruneJournal deletes the journal's history older than journal.retention
// (nothing without it): files no longer worked on, with their documents,
// and export runs, with the copies of their files.
func (d *Daemon) pruneJournal(ctx context.Context, every time.Duration) {
	keep := d.Config.Journal.Retention.Dur()
	if keep <= 0 {
		return
	}
	before := d.opts.Now().Add(-keep)
	n, err := d.Journal.Prune(ctx, before)
	switch {
	case err != nil && ctx.Err() == nil:
		d.Log.Warn("could not prune the journal's history; retried later", "error", err, "retention", keep, "every", every)
	case err == nil:
		d.Log.Info("pruned the journal's history", "files", n, "before", before.UTC(), "retention", keep)
	}
}
