package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/scenarios"
	"github.com/toolconform/conform/serve"
)

// loadServable loads the built-in scenarios for serve and run --client.
func loadServable() ([]*scenarios.Scenario, error) {
	return scenarios.LoadBuiltin(scenarios.VCRResolver(cassettes.Load))
}

// runServe runs the fake provider until interrupted or, with --for, for a
// while. The start line goes to stdout, one line per request to stderr;
// when the server stops, each scenario's verdict is printed to stdout, and
// the status is 1 if a graded follow-up failed.
func runServe(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "serve")
	addr := fs.String("addr", "127.0.0.1:0", "listen on `HOST:PORT` (loopback only; port 0 picks a free one)")
	scenario := fs.String("scenario", "", "serve `NAME` when a request names no scenario")
	chaos := fs.String("chaos", "", "chaos `OPTIONS`, comma-separated: "+strings.Join(serve.ChaosNames(), ", ")+" (split=SEED, delay=DURATION)")
	list := fs.Bool("list", false, "list the servable scenarios and exit")
	forDur := fs.Duration("for", 0, "stop after `DURATION` (default: run until interrupted)")
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	if fs.NArg() > 0 {
		return usageError(e, fs, "serve: unexpected argument %q", fs.Arg(0))
	}
	if *forDur < 0 {
		return usageError(e, fs, "serve: --for %v: a duration cannot be negative", *forDur)
	}
	ch, err := serve.ParseChaos(*chaos)
	if err != nil {
		return usageError(e, fs, "serve: %v", err)
	}
	cases, err := loadServable()
	if err != nil {
		e.errorf("serve: load scenarios: %v", err)
		return exitFail
	}
	srv, err := serve.New(serve.Options{Scenarios: cases, Scenario: *scenario, Chaos: ch, Log: e.stderr})
	if err != nil {
		return usageError(e, fs, "%v", err)
	}
	if *list {
		for _, name := range srv.Names() {
			fmt.Fprintln(e.stdout, name)
		}
		return exitOK
	}
	ln, err := serve.Listen(*addr)
	if err != nil {
		return usageError(e, fs, "%v", err)
	}
	fmt.Fprintf(e.stdout, "conform serve: listening on %s\n", serve.URL(ln))
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *forDur > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *forDur)
		defer cancel()
	}
	if err := srv.ServeListener(ctx, ln); err != nil {
		e.errorf("%v", err)
		return exitFail
	}
	status := exitOK
	for _, v := range srv.Verdicts() {
		fmt.Fprintln(e.stdout, verdictLine(v))
		if v.Graded && !v.Pass {
			status = exitFail
		}
	}
	return status
}

// verdictLine is one verdict in a line: PASS, FAIL or NOT GRADED, the
// scenario, then the problems.
func verdictLine(v serve.Verdict) string {
	word := "PASS"
	switch {
	case !v.Graded:
		word = "NOT GRADED"
	case !v.Pass:
		word = "FAIL"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (served %d, follow-ups %d, chaos %s)", word, v.Scenario, v.Served, v.FollowUps, v.Chaos)
	for _, p := range v.Problems {
		fmt.Fprintf(&b, "\n\t%s", p)
	}
	for _, er := range v.Errors {
		fmt.Fprintf(&b, "\n\terror: %s", er)
	}
	return b.String()
}
