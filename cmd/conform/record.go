package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/record"
	"github.com/toolconform/conform/scenarios"
)

// getenv is os.Getenv, replaceable in tests.
var getenv = os.Getenv

// runRecord sends a scenario's request to a live API and saves the
// redacted exchange as a cassette, or nothing when the file read back
// still holds a secret (record.Save). An existing cassette is refused before
// anything is sent unless --force is given. Bedrock requests are
// SigV4-signed with AWS credentials from the environment; a missing
// variable is refused before anything is sent.
func runRecord(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "record")
	protocol := fs.String("protocol", "", "the wire `PROTOCOL` to record (required); the API key comes from the provider's usual variable, and bedrock requests are SigV4-signed with AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, optional AWS_SESSION_TOKEN and AWS_REGION (or AWS_DEFAULT_REGION)")
	name := fs.String("scenario", "", "the scenario `NAME` whose request is sent (required)")
	baseURL := fs.String("base-url", "", "send to `URL` instead of the provider's public API (bedrock's is https://bedrock-runtime.<region>.amazonaws.com); a URL already ending in the API version, as in OPENAI_BASE_URL=http://host/v1, does not get it twice")
	force := fs.Bool("force", false, "overwrite an existing cassette")
	out := fs.String("o", "", "write the cassette to `FILE` (default: <protocol>__<case>.yaml)")
	stream := fs.Bool("stream", false, "ask for a streamed response, or with =false a whole one (default: streamed for a stream scenario)")
	model := fs.String("model", "", "the `MODEL` to ask (default: the scenario's, else the protocol's default)")
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	if fs.NArg() > 0 {
		return usageError(e, fs, "record: unexpected argument %q", fs.Arg(0))
	}
	if *protocol == "" || *name == "" {
		return usageError(e, fs, "record: --protocol and --scenario are required")
	}
	if _, err := providers.HTTP(*protocol); err != nil {
		return usageError(e, fs, "record: %v", err)
	}
	key, variable, err := record.KeyFromEnv(*protocol, getenv)
	var aws *record.AWSCredentials
	from := "no key"
	if variable != "" {
		from = "key from " + variable
	}
	if errors.Is(err, record.ErrNotKeyed) {
		// Bedrock: signed with AWS credentials rather than keyed.
		creds, regionVar, aerr := record.AWSFromEnv(getenv)
		if aerr != nil {
			e.errorf("%v", aerr)
			return exitUsage
		}
		aws, err = &creds, nil
		from = "SigV4-signed with " + record.EnvAccessKeyID
		if creds.SessionToken != "" {
			from += " and " + record.EnvSessionToken
		}
		from += ", region " + creds.Region + " from " + regionVar
	}
	if err != nil {
		e.errorf("%v", err)
		return exitUsage
	}
	cases, err := scenarios.LoadBuiltin(scenarios.VCRResolver(cassettes.Load))
	if err != nil {
		e.errorf("record: load scenarios: %v", err)
		return exitFail
	}
	adapter, err := providers.Lookup(*protocol)
	if err != nil {
		return usageError(e, fs, "record: %v", err)
	}
	var sc *scenarios.Scenario
	var known []string
	for _, c := range cases {
		if !c.Applies(adapter) {
			continue
		}
		n := c.NameFor(*protocol)
		known = append(known, n)
		if n == *name || c.Name == *name {
			sc = c
		}
	}
	if sc == nil {
		hint := ""
		if len(known) > 0 {
			hint = fmt.Sprintf(" (%d scenarios apply to %s, such as %s; conform serve --list lists them)", len(known), *protocol, known[0])
		}
		return usageError(e, fs, "record: unknown scenario %q for protocol %s%s", *name, *protocol, hint)
	}
	path := *out
	if path == "" {
		segs := strings.Split(sc.NameFor(*protocol), "/")
		path = *protocol + "__" + segs[len(segs)-1] + ".yaml"
	}
	if err := checkOutput(path, *force); err != nil {
		e.errorf("record: save cassette %s: %v; nothing was sent", path, err)
		return exitFail
	}
	req, err := record.RequestFor(sc, *protocol)
	if err != nil {
		e.errorf("%v", err)
		return exitUsage
	}
	if *model != "" {
		req.Model = *model
	}
	wantStream := sc.Kind == scenarios.KindStream
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "stream" {
			wantStream = *stream
		}
	})
	opts := record.Options{Protocol: *protocol, Request: req, Stream: wantStream, BaseURL: *baseURL, Key: key, AWS: aws}
	c, err := record.Record(ctx, opts)
	if err != nil {
		e.errorf("%v", err)
		if errors.Is(err, record.ErrUnsupported) || errors.Is(err, record.ErrNoRequest) {
			return exitUsage
		}
		return exitFail
	}
	if err := record.Save(c, path, *force, opts.Secrets()...); err != nil {
		e.errorf("record: %v", err)
		return exitFail
	}
	i := c.Interactions[0]
	mode := "whole"
	if wantStream {
		mode = "streamed"
	}
	pieces := strings.Count(i.Response.Headers.Get(record.ChunkTimesHeader), ",") + 1
	fmt.Fprintf(e.stdout, "%s: %s %s, %d %s bytes in %d pieces (%s) -> %s\n", sc.NameFor(*protocol), i.Request.Method, i.Request.URL, len(i.Response.Body), mode, pieces, from, filepath.Clean(path))
	return exitOK
}

// checkOutput checks, before a paid request is sent, that the cassette can
// be written to path: it is not a directory, it does not exist unless force
// is set, and a file can be created beside it.
func checkOutput(path string, force bool) error {
	dir := filepath.Dir(path)
	dirInfo, dirErr := os.Stat(dir)
	if dirErr == nil && !dirInfo.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("is a directory; give a file name")
	case err == nil && !force:
		return fmt.Errorf("%w (force to overwrite)", cassettes.ErrExists)
	case err == nil && !fi.Mode().IsRegular():
		return fmt.Errorf("is not a regular file")
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return err
	}
	if errors.Is(dirErr, os.ErrNotExist) {
		return nil // made when the cassette is saved
	}
	probe, err := os.CreateTemp(dir, "."+filepath.Base(path)+".probe*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}
