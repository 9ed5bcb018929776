package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"filebridge/internal/config"
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
			cfg, err := config.Load(cfgPath)
			if err != nil {
				return withCode(exitUsage, err)
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

// healthAnswer is the part of /healthz that health reads: the overall
// status, and each component's status and reason.
type healthAnswer struct {
	Status  string                `json:"status"`
	Journal *healthPart           `json:"journal"`
	Portals map[string]healthPart `json:"portals"`
	Inboxes map[string]healthPart `json:"inboxes"`
	Outbox  map[string]healthPart `json:"outboxes"`
}

type healthPart struct {
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// askHealth GETs /healthz of the daemon listening on srv.Listen and writes
// its verdict to w.
func askHealth(ctx context.Context, srv config.Server, w io.Writer) error {
	if srv.Listen == "" {
		return withCode(exitUsage, errors.New(`server.listen is "": this configuration serves no /healthz; set [server] listen`))
	}
	url := "http://" + dialable(srv.Listen) + "/healthz"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return withCode(exitUsage, fmt.Errorf("server.listen %q: %w", srv.Listen, err))
	}
	if tok := srv.Token.Value(); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return withCode(exitUnreachable, fmt.Errorf("no filebridge answers on %s: %w (is filebridge run started with this configuration?)", srv.Listen, err))
	}
	defer resp.Body.Close()
	var h healthAnswer
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return withCode(exitUsage, fmt.Errorf("%s answered %s: the token of [server] token_env is not the one the daemon uses", url, resp.Status))
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&h); err != nil || h.Status == "" {
		return withCode(exitUnreachable, fmt.Errorf("%s answered %s without a health report: is another program listening on %s?", url, resp.Status, srv.Listen))
	}
	if h.Status == "ok" && resp.StatusCode == http.StatusOK {
		fmt.Fprintln(w, "ok")
		return nil
	}
	fmt.Fprintln(w, h.Status)
	for _, line := range h.troubles() {
		fmt.Fprintln(w, "  "+line)
	}
	return withCode(exitInvalid, fmt.Errorf("filebridge on %s is %s", srv.Listen, h.Status))
}

// troubles lists each component that is not ok, "portal main: paused:
// the token was refused ...", sorted.
func (h healthAnswer) troubles() []string {
	var out []string
	add := func(kind, name string, p healthPart) {
		if p.Status == "" || p.Status == "ok" {
			return
		}
		line := fmt.Sprintf("%s %s: %s", kind, name, p.Status)
		if name == "" {
			line = fmt.Sprintf("%s: %s", kind, p.Status)
		}
		if p.Reason != "" {
			line += ": " + p.Reason
		}
		out = append(out, line)
	}
	if h.Journal != nil {
		add("journal", "", *h.Journal)
	}
	for _, group := range []struct {
		kind  string
		parts map[string]healthPart
	}{{"portal", h.Portals}, {"inbox", h.Inboxes}, {"outbox", h.Outbox}} {
		names := make([]string, 0, len(group.parts))
		for name := range group.parts {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			add(group.kind, name, group.parts[name])
		}
	}
	return out
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
