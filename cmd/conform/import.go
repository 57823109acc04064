package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/toolconform/conform/cassettes"
)

// runImport turns foreign recordings into conform cassettes: one cassette
// per file, written to DIR/<file>.yaml (a name already ending in .yaml is
// kept). A file that cannot be read is a usage error (2); one that cannot
// be decoded, or whose cassette exists and --force was not given, fails the
// command (1). Every file is tried; the worst status wins.
func runImport(_ context.Context, e *env, args []string) int {
	fset := newFlagSet(e, "import")
	out := fset.String("o", ".", "write cassettes into `DIR`")
	protocol := fset.String("protocol", "", "the wire `PROTOCOL` of the files (default: guessed from URLs or payloads)")
	force := fset.Bool("force", false, "overwrite existing cassettes")
	if ok, status := parseFlags(fset, args); !ok {
		return status
	}
	if fset.NArg() == 0 {
		return usageError(e, fset, "import: no files given")
	}
	var opts []cassettes.Option
	if *protocol != "" {
		known := cassettes.Protocols()
		found := false
		for _, p := range known {
			found = found || p == *protocol
		}
		if !found {
			return usageError(e, fset, "import: unknown protocol %q; known: %s", *protocol, strings.Join(known, ", "))
		}
		opts = append(opts, cassettes.WithProtocol(*protocol))
	}
	status := exitOK
	worse := func(s int) {
		if s > status {
			status = s
		}
	}
	for _, path := range fset.Args() {
		res, err := cassettes.ImportPath(path, opts...)
		if err != nil {
			e.errorf("%v", err)
			var ie *cassettes.ImportError
			if errors.As(err, &ie) && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
				worse(exitFail)
			} else {
				worse(exitUsage)
			}
			continue
		}
		dst := filepath.Join(*out, cassettes.CassetteName(path))
		if err := res.Save(dst, *force); err != nil {
			e.errorf("import %s: %v", path, err)
			worse(exitFail)
			continue
		}
		proto := res.Protocol
		if proto == "" {
			proto = "protocol unknown"
		}
		extra := ""
		if res.ResponseOnly {
			extra = ", response only"
		}
		n := len(res.Cassette.Interactions)
		plural := "s"
		if n == 1 {
			plural = ""
		}
		fmt.Fprintf(e.stdout, "%s: %s, %s, %d interaction%s%s -> %s\n", path, res.Format, proto, n, plural, extra, dst)
		for _, note := range res.Notes {
			fmt.Fprintf(e.stdout, "\t%s\n", note)
		}
	}
	return status
}
