package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/toolconform/conform/proxy"
	"github.com/toolconform/conform/serve"
)

// runProxy runs the reference gateway until interrupted: it takes requests
// in the front protocol and sends them on in the upstream one, streams
// event by event where the front's adapter can write them so (see package
// proxy). Its timeouts are idle timeouts: each bounds one wait, never a
// whole exchange.
func runProxy(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "proxy")
	front := fs.String("front", "", "the `PROTOCOL` clients speak to the proxy")
	upstream := fs.String("upstream", "", "the `PROTOCOL` the proxy speaks to the upstream")
	upstreamURL := fs.String("upstream-url", "", "the upstream's base `URL`, such as http://127.0.0.1:8080")
	addr := fs.String("addr", "127.0.0.1:0", "listen on `HOST:PORT` (loopback only; port 0 picks a free one)")
	key := fs.String("key", "", "upstream API `KEY` when none of the upstream protocol's key variables is set")
	headerTimeout := fs.Duration("header-timeout", proxy.DefaultHeaderTimeout, "wait at most `D` for a request's headers")
	bodyTimeout := fs.Duration("body-timeout", proxy.DefaultBodyTimeout, "wait at most `D` for each read of a request body")
	idleTimeout := fs.Duration("idle-timeout", proxy.DefaultIdleTimeout, "close a keep-alive connection idle for `D`")
	upstreamIdle := fs.Duration("upstream-idle-timeout", proxy.DefaultUpstreamIdleTimeout, "abandon an upstream that sends nothing for `D` (its headers, or the next bytes of its body)")
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	if fs.NArg() > 0 {
		return usageError(e, fs, "proxy: unexpected argument %q", fs.Arg(0))
	}
	switch {
	case *front == "":
		return usageError(e, fs, "proxy: --front is required")
	case *upstream == "":
		return usageError(e, fs, "proxy: --upstream is required")
	case *upstreamURL == "":
		return usageError(e, fs, "proxy: --upstream-url is required")
	}
	p, err := proxy.New(proxy.Options{Front: *front, Upstream: *upstream, UpstreamURL: *upstreamURL, Key: *key, Log: e.stderr,
		HeaderTimeout: *headerTimeout, BodyTimeout: *bodyTimeout, IdleTimeout: *idleTimeout, UpstreamIdleTimeout: *upstreamIdle})
	if err != nil {
		return usageError(e, fs, "%v", err)
	}
	ln, err := serve.Listen(*addr)
	if err != nil {
		return usageError(e, fs, "proxy: %v", err)
	}
	fmt.Fprintf(e.stdout, "conform proxy: %s front on %s, %s upstream at %s\n", *front, serve.URL(ln), *upstream, *upstreamURL)
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serveUntil(ctx, ln, p.Server()); err != nil {
		e.errorf("proxy: %v", err)
		return exitFail
	}
	return exitOK
}

// serveUntil serves srv on ln until ctx ends, over HTTP/1.1 and h2c as
// serve does (serve.Protocols) when srv names no protocols.
func serveUntil(ctx context.Context, ln net.Listener, srv *http.Server) error {
	if srv.Protocols == nil {
		srv.Protocols = serve.Protocols()
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		srv.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
