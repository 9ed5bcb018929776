package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"filebridge/internal/app"
	"filebridge/internal/config"
)

func init() {
	var cfgPath string
	cmd := &cobra.Command{
		Use:   "run --config FILE",
		Short: "Watch the inboxes, run the export schedules, serve /metrics, /healthz and the web console",
		Long: `run watches every inbox of every portal, runs the outbox export schedules,
and serves /metrics, /healthz and the web console (http://server.listen/) on
server.listen, logging with slog as [log] asks. SIGTERM or SIGINT stops it gracefully: no new file is picked up and no
new document is sent, the API requests already sent finish and their results
are journaled (within 15 seconds; the whole stop takes at most 20), a file
left unfinished stays in processing/ and resumes at the next start, and the
journal is closed.

SIGHUP reloads the configuration: inboxes, routes, exports and portals change
without a restart (files in flight finish first, as on SIGTERM); a change of
journal.path, server.listen, server.token_env, server.users or [log] is refused
with a message naming the key, and an invalid file keeps the running
configuration and says why.

Exit codes: 0 stopped by a signal; 2 the configuration is invalid; 3 the
journal or the listen address could not be opened.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cfgPath)
			if err != nil {
				return err
			}
			log := app.NewLogger(cfg.Log, cmd.ErrOrStderr())
			hup := make(chan os.Signal, 1)
			signal.Notify(hup, syscall.SIGHUP)
			defer signal.Stop(hup)
			return runReloading(cmd.Context(), cfgPath, cfg, log, app.Options{}, hup)
		},
	}
	requireConfig(cmd, &cfgPath)
	rootCmd.AddCommand(cmd)
}

// loadConfig loads the config with its secrets; any problem is a usage
// error (exit 2).
func loadConfig(path string) (*config.Config, error) {
	cfg, err := config.Load(path)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	return cfg, nil
}

// runDaemon opens the daemon of cfg, calls before (if not nil) with it, and
// runs it until ctx ends, then closes it. An unreachable dependency at
// start exits 3. A stop asked for while it starts (SIGTERM, or a SIGHUP
// reload, before the journal or a folder answered) is a stop, not a
// failure: what it cut short is logged at debug level only.
func runDaemon(ctx context.Context, cfg *config.Config, log *slog.Logger, opts app.Options, before func(*app.Daemon) error) (err error) {
	d, err := app.Open(ctx, cfg, log, opts)
	if err != nil {
		if ctx.Err() != nil {
			log.Info("filebridge stopped while starting")
			log.Debug("what the stop cut short", "error", err)
			return nil
		}
		return daemonError(err)
	}
	defer func() {
		if cerr := d.Close(); cerr != nil {
			log.Error("closing", "error", cerr)
			if err == nil {
				err = withCode(exitUnreachable, cerr)
			}
		}
		log.Info("filebridge stopped")
	}()
	if before != nil {
		if err := before(d); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
	}
	return daemonError(d.Run(ctx))
}

// daemonError gives the daemon's errors their exit code.
func daemonError(err error) error {
	switch {
	case err == nil:
		return nil
	case app.IsUnreachable(err):
		return withCode(exitUnreachable, err)
	case errors.Is(err, context.Canceled):
		return nil
	}
	var ce *config.Error
	if errors.As(err, &ce) {
		return withCode(exitUsage, err)
	}
	return withCode(exitUsage, fmt.Errorf("starting filebridge: %w", err))
}

// runReloading runs the daemon of cfg until ctx ends; on every signal from
// hup (SIGHUP) it reads cfgPath again. A new config that is invalid keeps
// the running one (and says why); one that changes a key only a restart
// can change is refused, naming the key; otherwise the daemon stops
// gracefully (files in flight finish first, as on SIGTERM) and starts
// again with the new inboxes, routes, exports and portals.
func runReloading(ctx context.Context, cfgPath string, cfg *config.Config, log *slog.Logger, opts app.Options, hup <-chan os.Signal) error {
	if opts.Metrics == nil {
		// One set for the process: the counters go on across reloads.
		opts.Metrics = app.NewMetrics(opts.Now)
	}
	for {
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- runDaemon(runCtx, cfg, log, opts, nil) }()
		next, err := waitReload(ctx, cfgPath, cfg, log, hup, done)
		stop()
		if next == nil {
			return err
		}
		if err := <-done; err != nil {
			return err
		}
		cfg = next
		log.Info("configuration reloaded: starting again", "config", cfgPath, "inboxes", len(cfg.Inboxes), "outboxes", len(cfg.Outboxes), "portals", len(cfg.Portals))
	}
}

// waitReload waits for the daemon to end (it returns nil and the daemon's
// error) or for a SIGHUP bringing a usable new config (it returns it).
func waitReload(ctx context.Context, cfgPath string, cfg *config.Config, log *slog.Logger, hup <-chan os.Signal, done <-chan error) (*config.Config, error) {
	for {
		select {
		case err := <-done:
			return nil, err
		case <-hup:
			next, err := config.Load(cfgPath)
			if err != nil {
				log.Error("SIGHUP: the new configuration is invalid; the running one stays", "config", cfgPath, "error", err)
				continue
			}
			if keys := restartKeys(cfg, next); len(keys) > 0 {
				log.Error("SIGHUP: the new configuration changes "+strings.Join(keys, ", ")+", which only a restart applies; the running configuration stays: restart filebridge (systemctl restart filebridge)",
					"config", cfgPath, "keys", keys)
				continue
			}
			log.Info("SIGHUP: reloading the configuration; files in flight finish first", "config", cfgPath)
			return next, nil
		case <-ctx.Done():
			return nil, <-done
		}
	}
}

// restartKeys lists the keys whose change a reload cannot apply: the
// journal (its lock and handle), the listener and its credentials, and the
// logger.
func restartKeys(old, next *config.Config) []string {
	var keys []string
	add := func(changed bool, key string) {
		if changed {
			keys = append(keys, key)
		}
	}
	add(old.Journal.Path != next.Journal.Path, "journal.path")
	add(old.Journal.URL != next.Journal.URL, "journal.url")
	add(old.Journal.PasswordEnv != next.Journal.PasswordEnv || old.Journal.PasswordFile != next.Journal.PasswordFile ||
		old.Journal.Password.Value() != next.Journal.Password.Value(), "journal.password")
	add(old.Journal.Lease != next.Journal.Lease, "journal.lease")
	add(old.Server.Listen != next.Server.Listen, "server.listen")
	add(old.Server.TokenEnv != next.Server.TokenEnv || old.Server.Token.Value() != next.Server.Token.Value(), "server.token_env")
	add(!slices.EqualFunc(old.Server.Users, next.Server.Users, func(a, b config.ServerUser) bool {
		return a.Name == b.Name && a.PasswordEnv == b.PasswordEnv && a.Password.Value() == b.Password.Value()
	}), "server.users")
	add(old.Log.Level != next.Log.Level, "log.level")
	add(old.Log.Format != next.Log.Format, "log.format")
	return keys
}
