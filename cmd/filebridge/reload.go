package main

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"strings"

	"filebridge/internal/app"
	"filebridge/internal/config"
)

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
