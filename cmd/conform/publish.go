package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/toolconform/conform/publish"
)

// runPublish reads result files of any kind and writes them as a markdown
// summary, JUnit XML or a static site.
func runPublish(_ context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "publish")
	format := fs.String("format", "markdown", "what to write: markdown, junit, or site (a directory of HTML pages)")
	out := fs.String("out", "", "write to `FILE` (for site: the directory, required) instead of standard output")
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	if fs.NArg() == 0 {
		return usageError(e, fs, "publish: name the result files, each FILE or SUBJECT=FILE")
	}
	switch *format {
	case "markdown", "junit":
	case "site":
		if *out == "" {
			return usageError(e, fs, "publish: --format site needs --out DIR")
		}
	default:
		return usageError(e, fs, "publish: --format %q: want markdown, junit or site", *format)
	}
	var runs []*publish.Run
	for _, arg := range fs.Args() {
		subject, path := "", arg
		if name, p, ok := strings.Cut(arg, "="); ok && name != "" && p != "" {
			subject, path = name, p
		}
		data, err := readFileBounded(path, publish.MaxFile)
		if err != nil {
			e.errorf("publish: %v", err)
			return exitUsage
		}
		run, err := publish.Read(path, data, subject)
		if err != nil {
			e.errorf("publish: %v", err)
			return exitUsage
		}
		runs = append(runs, run)
	}
	if *format == "site" {
		if err := publish.WriteSite(*out, runs); err != nil {
			e.errorf("publish: %v", err)
			return exitFail
		}
		fmt.Fprintf(e.stdout, "publish: wrote the site of %d result files to %s\n", len(runs), *out)
		return exitOK
	}
	w := e.stdout
	var f *os.File
	if *out != "" {
		var err error
		if f, err = os.Create(*out); err != nil {
			e.errorf("publish: %v", err)
			return exitUsage
		}
		w = f
	}
	subjects := publish.Subjects(runs)
	var err error
	if *format == "junit" {
		err = publish.WriteJUnit(w, subjects)
	} else {
		err = publish.WriteMarkdown(w, subjects)
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		e.errorf("publish: %v", err)
		return exitFail
	}
	return exitOK
}

// readFileBounded reads a file of at most limit bytes.
func readFileBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := readBounded(f, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}
