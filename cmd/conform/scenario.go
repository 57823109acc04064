package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
)

// runScenario runs a scenario subcommand; "new" is the only one.
func runScenario(ctx context.Context, e *env, args []string) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		return runScenarioNew(ctx, e, args[:1])
	}
	if len(args) == 0 || args[0] != "new" {
		fs := newFlagSet(e, "scenario")
		if len(args) == 0 {
			return usageError(e, fs, "scenario: give a subcommand: new")
		}
		return usageError(e, fs, "scenario: unknown subcommand %q; known: new", args[0])
	}
	return runScenarioNew(ctx, e, args[1:])
}

// caseSegment is what a name segment of a scenario may hold.
var caseSegment = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// runScenarioNew turns one recorded exchange into a regression case: a
// txtar file whose expectations are what the reference decoder reads from
// the recorded response, with the cassette copied beside it and referenced
// relative to it.
func runScenarioNew(_ context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "scenario new")
	from := fs.String("from", "", "the recorded exchange `FILE#N`: a conform cassette and the 0-based number of its interaction (required)")
	protocol := fs.String("protocol", "", "the wire `PROTOCOL` of the exchange (default: guessed from the request URL)")
	dir := fs.String("dir", "scenarios", "write the case under `DIR`, the directory conform run --scenarios reads")
	name := fs.String("name", "", "the case's `CATEGORY/CASE` (default regression/<cassette>-<N>)")
	severity := fs.String("severity", "MUST", "the case's `SEVERITY`: MUST, SHOULD or INFO")
	force := fs.Bool("force", false, "overwrite an existing case and cassette copy")
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	if fs.NArg() > 0 {
		return usageError(e, fs, "scenario new: unexpected argument %q", fs.Arg(0))
	}
	if *from == "" {
		return usageError(e, fs, "scenario new: --from FILE#N is required: the cassette and the 0-based number of its interaction")
	}
	file, num, ok := strings.Cut(*from, "#")
	n, err := strconv.Atoi(num)
	if *from == "" || !ok || file == "" || err != nil || n < 0 {
		return usageError(e, fs, "scenario new: --from %q: want FILE#N, N the 0-based number of an interaction", *from)
	}
	switch scenarios.Severity(*severity) {
	case scenarios.MUST, scenarios.SHOULD, scenarios.INFO:
	default:
		return usageError(e, fs, "scenario new: --severity %q: want MUST, SHOULD or INFO", *severity)
	}

	data, err := os.ReadFile(file)
	if err != nil {
		e.errorf("scenario new: %v", err)
		return exitUsage
	}
	cas, err := cassettes.Parse(data)
	if err != nil {
		e.errorf("scenario new: %s: %v (conform import turns other recordings into cassettes)", file, err)
		return exitUsage
	}
	if n >= len(cas.Interactions) {
		e.errorf("scenario new: %s: no interaction %d: the cassette has %d", file, n, len(cas.Interactions))
		return exitUsage
	}
	in := cas.Interactions[n]
	if *protocol == "" {
		*protocol = cassettes.GuessProtocol(in.Request.URL)
		if *protocol == "" {
			e.errorf("scenario new: %s#%d: the request URL %q names no known protocol: give --protocol, one of %s", file, n, in.Request.URL, strings.Join(providers.Names(), ", "))
			return exitUsage
		}
	}
	adapter, err := providers.Lookup(*protocol)
	if err != nil {
		return usageError(e, fs, "scenario new: %v", err)
	}

	category, caseName := "regression", sanitizeSegment(strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)))+"-"+strconv.Itoa(n)
	if *name != "" {
		var ok bool
		category, caseName, ok = strings.Cut(*name, "/")
		if !ok || !caseSegment.MatchString(category) || !caseSegment.MatchString(caseName) {
			return usageError(e, fs, "scenario new: --name %q: want CATEGORY/CASE, each of letters, digits, '.', '_' and '-'", *name)
		}
	}
	caseDir := filepath.Join(*dir, *protocol, category)
	casePath := filepath.Join(caseDir, caseName+".txtar")
	cassettePath := filepath.Join(caseDir, caseName+".yaml")
	if !*force {
		for _, p := range []string{casePath, cassettePath} {
			if _, err := os.Lstat(p); err == nil {
				e.errorf("scenario new: %s exists (--force to overwrite)", p)
				return exitFail
			}
		}
	}

	body := []byte(in.Response.Body)
	stream := isStream(body)
	switch ct := strings.ToLower(in.Response.Headers.Get("Content-Type")); {
	case strings.HasPrefix(ct, "text/event-stream"), strings.Contains(ct, "eventstream"), strings.Contains(ct, "ndjson"):
		stream = true
	}
	var resp *core.Response
	if stream {
		resp, err = core.Collect(adapter.DecodeStream(bytes.NewReader(body)))
	} else {
		resp, err = adapter.DecodeResponse(body)
	}
	if resp == nil {
		resp = &core.Response{}
	}
	text, err := caseText(caseFacts{
		from: fmt.Sprintf("%s#%d", filepath.Base(file), n), method: in.Request.Method, url: in.Request.URL,
		protocol: *protocol, severity: *severity, stream: stream, cassette: caseName + ".yaml#" + strconv.Itoa(n),
		resp: resp, err: err,
	})
	if err != nil {
		e.errorf("scenario new: %v", err)
		return exitFail
	}

	// The case must pass on the decoder it was read from, split or whole;
	// a case that does not is not written.
	sc, perr := scenarios.Parse(*protocol+"/"+category+"/"+caseName, casePath, text, func(string) ([]byte, error) { return body, nil })
	if perr != nil {
		e.errorf("scenario new: the case written would not parse: %v", perr)
		return exitFail
	}
	if res := scenarios.CheckOne(adapter, sc, scenarios.Options{}); res.Status != scenarios.StatusPass {
		e.errorf("scenario new: the reference %s adapter does not pass the case it was read from (%s): %v", *protocol, res.Status, res.Problems)
		return exitFail
	}

	if err := os.MkdirAll(caseDir, 0o777); err != nil {
		e.errorf("scenario new: %v", err)
		return exitFail
	}
	if err := writeFileAtomic(cassettePath, data); err != nil {
		e.errorf("scenario new: %v", err)
		return exitFail
	}
	if err := writeFileAtomic(casePath, text); err != nil {
		e.errorf("scenario new: %v", err)
		return exitFail
	}
	fmt.Fprintf(e.stdout, "wrote %s and its cassette %s\n", casePath, cassettePath)
	fmt.Fprintf(e.stdout, "review its expectations and comment, then: conform run --scenarios %s --adapter %s\n", *dir, *protocol)
	return exitOK
}

// caseFacts is what a regression case is written from.
type caseFacts struct {
	from, method, url, protocol, severity, cassette string
	stream                                          bool
	resp                                            *core.Response
	err                                             error
}

// caseText writes the txtar of a regression case.
func caseText(f caseFacts) ([]byte, error) {
	var b bytes.Buffer
	kind := scenarios.KindResponse
	if f.stream {
		kind = scenarios.KindStream
	}
	fmt.Fprintf(&b, "A regression case from the recorded exchange %s (%s %s), made by\n", f.from, f.method, f.url)
	fmt.Fprintf(&b, "conform scenario new: the expectations are what the reference %s\n", f.protocol)
	b.WriteString("decoder read from the recorded response. Review them, say here what the\n")
	b.WriteString("case guards, and add the failure-mode ids it guards to guards:.\n\n")
	fmt.Fprintf(&b, "severity: %s\nguards:\nprotocol: %s\nkind: %s\nsource: %s\ncassette: %s\n", f.severity, f.protocol, kind, f.from, f.cassette)
	section := func(name string, v any) error {
		j, err := json.MarshalIndent(v, "", " ")
		if err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
		fmt.Fprintf(&b, "-- %s --\n%s\n", name, j)
		return nil
	}
	if err := section("want/calls.json", scenarios.WantCalls(f.resp.Calls(), true)); err != nil {
		return nil, err
	}
	if len(f.resp.Incomplete) > 0 {
		if err := section("want/incomplete.json", scenarios.WantCalls(f.resp.Incomplete, false)); err != nil {
			return nil, err
		}
	}
	if t := f.resp.Text(); t != "" {
		fmt.Fprintf(&b, "-- want/text.txt --\n%s\n", t)
	}
	if f.resp.Finish != "" {
		fmt.Fprintf(&b, "-- want/finish.txt --\n%s %s\n", f.resp.Finish, f.resp.ProviderFinish)
	}
	var errText []string
	if f.err != nil {
		errText = append(errText, f.err.Error())
	}
	if f.resp.Error != nil {
		errText = append(errText, f.resp.Error.Error())
	}
	if len(errText) > 0 {
		// The first line of the first error, quoted: the case then
		// pins the message, which a reviewer may loosen.
		first, _, _ := strings.Cut(errText[0], "\n")
		fmt.Fprintf(&b, "-- want/error.txt --\n%s\n", regexp.QuoteMeta(first))
	}
	return b.Bytes(), nil
}

// sanitizeSegment makes s a valid name segment: characters outside
// letters, digits, '.', '_' and '-' become '_'.
func sanitizeSegment(s string) string {
	out := []byte(s)
	for i, c := range out {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
		if !ok {
			out[i] = '_'
		}
	}
	if len(out) == 0 || !caseSegment.Match(out) {
		out = append([]byte("case"), out...)
	}
	return string(out)
}

// writeFileAtomic writes data to a temporary file beside path and renames
// it into place, so that path never holds half a file.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	err = errors.Join(err, tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
