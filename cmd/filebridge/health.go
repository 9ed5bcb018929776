package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"filebridge/internal/config"
	"filebridge/internal/server"
)

func init() {
	var (
		cfgPath string
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "health --config FILE",
		Short: "Ask the running filebridge whether it can do its work (for a container HEALTHCHECK)",
		Long: `health asks the filebridge run of this configuration for its /healthz on
server.listen (with server's token when one is set) and prints "ok", or
"degraded" with what is wrong. It needs no curl, so a distroless container's
HEALTHCHECK can call it.

Exit codes: 0 ok; 1 degraded (the daemon runs, but a portal, the journal,
an inbox or an outbox is in trouble); 2 the configuration is invalid or
server.listen is ""; 3 no filebridge answers on server.listen.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cfgPath)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			return askHealth(ctx, cfg.Server, cmd.OutOrStdout())
		},
	}
	requireConfig(cmd, &cfgPath)
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Second, "how long to wait for the answer")
	rootCmd.AddCommand(cmd)
}

// askHealth GETs /healthz of the daemon listening on srv.Listen and writes
// its verdict to w.
func askHealth(ctx context.Context, srv config.Server, w io.Writer) error {
	if srv.Listen == "" {
		return withCode(exitUsage, errors.New(`server.listen is "": this configuration serves no /healthz; set [server] listen`))
	}
	req, err := daemonRequest(ctx, srv, http.MethodGet, "/healthz", nil)
	if err != nil {
		return err
	}
	url := req.URL.String()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return withCode(exitUnreachable, fmt.Errorf("no filebridge answers on %s: %w (is filebridge run started with this configuration?)", srv.Listen, err))
	}
	defer resp.Body.Close()
	if refusedToken(resp) {
		return withCode(exitUsage, fmt.Errorf("%s answered %s: the token of [server] token_env is not the one the daemon uses", url, resp.Status))
	}
	var h server.Health
	if err := decodeAnswer(resp, &h); err != nil || h.Status == "" {
		return withCode(exitUnreachable, fmt.Errorf("%s answered %s without a health report: is another program listening on %s?", url, resp.Status, srv.Listen))
	}
	if h.Status == "ok" && resp.StatusCode == http.StatusOK {
		fmt.Fprintln(w, "ok")
		return nil
	}
	fmt.Fprintln(w, h.Status)
	for _, line := range troubles(h) {
		fmt.Fprintln(w, "  "+line)
	}
	return withCode(exitInvalid, fmt.Errorf("filebridge on %s is %s", srv.Listen, h.Status))
}

// troubles lists each component that is not ok, "portal main: paused:
// the token was refused ...", sorted.
func troubles(h server.Health) []string {
	var out []string
	add := func(kind, name, status, reason string) {
		if status == "" || status == server.StatusOK {
			return
		}
		line := kind
		if name != "" {
			line += " " + name
		}
		line += ": " + status
		if reason != "" {
			line += ": " + reason
		}
		out = append(out, line)
	}
	if h.Journal != nil {
		add("journal", "", h.Journal.Status, h.Journal.Reason)
	}
	for _, name := range slices.Sorted(maps.Keys(h.Portals)) {
		add("portal", name, h.Portals[name].Status, h.Portals[name].Reason)
	}
	for _, name := range slices.Sorted(maps.Keys(h.Inboxes)) {
		add("inbox", name, h.Inboxes[name].Status, h.Inboxes[name].Reason)
	}
	for _, name := range slices.Sorted(maps.Keys(h.Outboxes)) {
		add("outbox", name, h.Outboxes[name].Status, h.Outboxes[name].Reason)
	}
	return out
}

// daemonRequest is a request to the filebridge run listening on
// srv.Listen, with srv's token; a body is JSON.
func daemonRequest(ctx context.Context, srv config.Server, method, path string, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, "http://"+dialable(srv.Listen)+path, bytes.NewReader(body))
	if err != nil {
		return nil, withCode(exitUsage, fmt.Errorf("server.listen %q: %w", srv.Listen, err))
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if tok := srv.Token.Value(); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	return req, nil
}

// refusedToken reports whether the daemon refused this command's token.
func refusedToken(resp *http.Response) bool {
	return resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden
}

// decodeAnswer reads the daemon's JSON answer (at most 1 MiB).
func decodeAnswer(resp *http.Response, v any) error {
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v)
}

// dialable turns a listen address into one to connect to: a wildcard host
// ("", 0.0.0.0, ::) becomes the loopback address of its family.
func dialable(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	switch strings.Trim(host, "[]") {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return net.JoinHostPort(host, port)
}
