package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"filebridge/internal/model"
	"filebridge/internal/portalsim"
)

func init() { rootCmd.AddCommand(newSimCmd()) }

// newSimCmd builds `filebridge sim`: the portal simulator on loopback.
func newSimCmd() *cobra.Command {
	var (
		listen, edition, token, envelope, profile string
		flips                                     []string
		opts                                      portalsim.Options
	)
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Serve a simulated customer portal (Edition A or B) for demos and tests",
		Long: `Serve a simulated customer-portal API on a local address: the documents' envelopes,
filters, paging, bearer auth, validation, seeded warehouses and carriers, and a warehouse that
receives, ships and tracks on its own every --tick. POST /_sim/tick moves it on at once;
GET /_sim/stats shows counts (with the requests outside the API documents); POST /_sim/faults
changes the injected faults.

Where the API documents leave a point open, a switch takes either side; --profile picks a set
of them and --choice name=value (repeatable) flips one.

` + portalsim.ChoicesHelp(),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ed, err := model.ParseEdition(edition)
			if err != nil {
				return withCode(exitUsage, fmt.Errorf("--edition: %w", err))
			}
			if envelope != "hydra" && envelope != "plain" {
				return withCode(exitUsage, fmt.Errorf("--envelope %q: use hydra or plain", envelope))
			}
			if token == "" {
				return withCode(exitUsage, errors.New("--token must not be empty"))
			}
			if opts.Literal && !cmd.Flags().Changed("profile") {
				profile = "literal"
			}
			ch, err := portalsim.Profile(profile)
			if err != nil {
				return withCode(exitUsage, fmt.Errorf("--profile: %w", err))
			}
			if err := ch.SetAll(flips); err != nil {
				return withCode(exitUsage, fmt.Errorf("--choice: %w", err))
			}
			opts.Edition, opts.Token, opts.Envelope, opts.Choices = portalsim.Edition(ed), token, envelope, &ch
			opts.Logger = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
			sim, err := portalsim.New(opts)
			if err != nil {
				return withCode(exitUsage, err)
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return withCode(exitUnreachable, fmt.Errorf("listening on %s: %w (is another simulator running? choose another --listen)", listen, err))
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "portal simulator, edition %s (API %s)\n", ed, ed.APIVersion())
			fmt.Fprintf(out, "base_url = \"http://%s/api\"\n", ln.Addr())
			fmt.Fprintf(out, "token    = %s\n", token)
			fmt.Fprintf(out, "company  = %d\n", sim.Company())
			fmt.Fprintf(out, "profile  = %s", profile)
			if len(flips) > 0 {
				fmt.Fprintf(out, " (%s)", strings.Join(flips, ", "))
			}
			fmt.Fprintln(out)
			if opts.Tick > 0 {
				fmt.Fprintf(out, "the warehouse moves on every %s; POST http://%s/_sim/tick to move it now\n", opts.Tick, ln.Addr())
			} else {
				fmt.Fprintf(out, "the warehouse moves only on POST http://%s/_sim/tick\n", ln.Addr())
			}
			return sim.Serve(cmd.Context(), ln)
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "127.0.0.1:8089", "address to listen on")
	f.StringVar(&edition, "edition", "A", "API edition: A (v1.2.0) or B (v1.1.0)")
	f.StringVar(&token, "token", "demo-token", "bearer token the simulator accepts")
	f.Int64Var(&opts.Company, "company", 42, "company id of the caller")
	f.DurationVar(&opts.Tick, "tick", 5*time.Second, "move the warehouse on this often (0 = only on POST /_sim/tick)")
	f.Int64Var(&opts.Seed, "seed", 1, "seed of the warehouse and of the faults")
	f.DurationVar(&opts.Latency, "latency", 0, "delay before every API response (e.g. 50ms)")
	f.Float64Var(&opts.FailRate, "fail-rate", 0, "share of API requests answered 500/502/503 (0..1)")
	f.Float64Var(&opts.ThrottleRate, "throttle", 0, "share of API requests answered 429 with Retry-After (0..1)")
	f.Float64Var(&opts.DropRate, "drop-rate", 0, "share of API requests whose connection is closed without a response (0..1)")
	f.StringVar(&envelope, "envelope", "hydra", "collection envelope: hydra (hydra:member...) or plain (member...)")
	f.IntVar(&opts.Preload, "preload", 0, "create this many variants with suppliers and stock at start")
	f.BoolVar(&opts.Literal, "literal", false, "the same as --profile literal: only what the API documents state")
	f.StringVar(&profile, "profile", portalsim.DefaultProfile, "how the points the API documents leave open are read: "+strings.Join(portalsim.ProfileNames(), ", "))
	f.StringArrayVar(&flips, "choice", nil, "flip one switch of the profile, name=value (repeatable; the switches are listed above)")
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return withCode(exitUsage, err) })
	return cmd
}
