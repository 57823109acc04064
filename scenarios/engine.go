package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/core"
)

// Status is the outcome of one scenario on one adapter.
type Status string

// The statuses. Only StatusPass is a pass; a skip is never one.
const (
	StatusPass Status = "pass"
	StatusFail Status = "fail"
	// StatusSkip means the adapter lacks a feature the case needs: one of
	// its encoders returned an error wrapping errors.ErrUnsupported.
	StatusSkip Status = "skip"
	// StatusKnownFailing is a failure listed in a known-failing list.
	StatusKnownFailing Status = "known-failing"
	// StatusNotGraded means the adapter does not implement an operation
	// the case needs (core.NotImplementedError): the case says nothing
	// about it either way.
	StatusNotGraded Status = "not-graded"
)

// Result is the outcome of one scenario on one adapter.
type Result struct {
	// Name is the scenario's name for this adapter (see Scenario.NameFor).
	Name     string
	Scenario *Scenario
	// Adapter is the adapter's label: its Label (see Subject) when it has
	// one, else its Name.
	Adapter string
	// Protocol is the protocol the adapter was graded as.
	Protocol string
	Severity Severity
	Status   Status
	// Reason says why a case was skipped or not graded, or which
	// known-failing entry covers it.
	Reason string
	// Problems lists every problem found, in the order found.
	Problems []Problem
}

// Problem is one broken rule: of a case the engine grades, of a follow-up
// request serve grades, of a gateway's answer. It is the one problem type
// of every report, and its JSON is the problems of conform run --json,
// conform run --client and conform gateway.
type Problem struct {
	// Rule names the rule broken: a check of the engine, such as "calls"
	// or "split-independence", or, where the check is one failure mode's
	// (serve and gateway), that failure mode's id, such as "G05".
	Rule string `json:"rule"`
	// Guards are the failure-mode ids of the scenario, when the engine
	// graded one.
	Guards []string `json:"guards,omitempty"`
	// Message says what is wrong in one line.
	Message string `json:"message"`
	// Diff is a cmp.Diff of indented JSON or text, labelled -want +got;
	// empty when there is nothing to compare.
	Diff string `json:"diff,omitempty"`
	// Contract names the API reference or recorded behaviour that
	// requires the rule, where a harness grades one (serve, gateway).
	Contract string `json:"contract,omitempty"`
}

// String formats the problem for a person: guards, rule and message on the
// first line, the diff indented below.
func (p Problem) String() string {
	var b strings.Builder
	if len(p.Guards) > 0 {
		b.WriteString("[" + strings.Join(p.Guards, " ") + "] ")
	}
	b.WriteString(p.Rule + ": " + p.Message)
	if p.Contract != "" {
		b.WriteString(" (contract: " + p.Contract + ")")
	}
	if p.Diff != "" {
		b.WriteString(" (-want +got):\n")
		b.WriteString(strings.TrimRight(p.Diff, "\n"))
	}
	return b.String()
}

// Options tune Check.
type Options struct {
	// Run, when not empty, keeps only the results whose names match one
	// of its patterns; Skip drops those matching one of its patterns.
	Run, Skip []Pattern
	// KnownFailing lists cases expected to fail. A listed case that fails
	// gets StatusKnownFailing; one that passes fails with a problem that
	// names the entry to remove.
	KnownFailing []Pattern
	// Splits is the number of extra decodes of every stream case with the
	// input re-split into random-size reads; 0 means 3. Use a negative
	// number for none.
	Splits int
	// Seed, when not zero, replaces the random re-splits by the one split
	// of that seed, which a split-independence problem names.
	Seed uint64
	// Progress, when set, is called after each case with the number of
	// cases done, the number selected, and the case's result.
	Progress func(done, total int, r Result)
}

// UnmatchedPatternError reports patterns that selected no case.
type UnmatchedPatternError struct {
	// Option is "run", "skip" or "known-failing".
	Option   string
	Patterns []Pattern
}

func (e *UnmatchedPatternError) Error() string {
	var where []string
	for _, p := range e.Patterns {
		if p.File != "" {
			where = append(where, fmt.Sprintf("%q (%s)", p.String(), p.Where()))
		} else {
			where = append(where, strconv.Quote(p.String()))
		}
	}
	msg := fmt.Sprintf("check scenarios: %s pattern matches no case: %s", e.Option, strings.Join(where, ", "))
	for _, p := range e.Patterns {
		if s := p.String(); !strings.Contains(s, "/") {
			// The commonest slip: a case name given as the whole pattern.
			msg += fmt.Sprintf(" (a pattern matches protocol/category/case a segment at a time, as go test -run does: %q selects case names in every protocol and category)", "//"+s)
			break
		}
	}
	return msg
}

// Check runs every case that applies to each adapter and returns one result
// per (case, adapter), in case order then adapter order. A pattern in opts
// that matches no case is an error, returned with the results. Two cases
// that produce one result name (NameClashError) are
// rejected before anything runs, with no results.
func Check(adapters []core.Adapter, cases []*Scenario, opts Options) ([]Result, error) {
	used := func(ps []Pattern) []bool { return make([]bool, len(ps)) }
	runUsed, skipUsed, kfUsed := used(opts.Run), used(opts.Skip), used(opts.KnownFailing)
	type job struct {
		sc   *Scenario
		a    core.Adapter
		name string
	}
	var jobs []job
	var clashes []error
	seen := map[string]*Scenario{}
	for _, sc := range cases {
		for _, a := range adapters {
			if !sc.Applies(a) {
				continue
			}
			name := sc.NameFor(a.Name())
			if prev, ok := seen[name]; ok && prev != sc {
				clashes = append(clashes, &NameClashError{Name: name, Files: [2]string{prev.File, sc.File}})
				continue
			}
			seen[name] = sc
			if len(opts.Run) > 0 && !matchAny(opts.Run, runUsed, name) {
				continue
			}
			if matchAny(opts.Skip, skipUsed, name) {
				continue
			}
			jobs = append(jobs, job{sc, a, name})
		}
	}
	if len(clashes) > 0 {
		return nil, fmt.Errorf("check scenarios: %w", errors.Join(clashes...))
	}
	results := make([]Result, 0, len(jobs))
	for _, j := range jobs {
		res := CheckOne(j.a, j.sc, opts)
		for i, p := range opts.KnownFailing {
			if p.Match(j.name) {
				kfUsed[i] = true
				res = applyKnownFailing(res, p)
				break
			}
		}
		results = append(results, res)
		if opts.Progress != nil {
			opts.Progress(len(results), len(jobs), res)
		}
	}
	var errs []error
	for _, u := range []struct {
		opt  string
		ps   []Pattern
		used []bool
	}{{"run", opts.Run, runUsed}, {"skip", opts.Skip, skipUsed}, {"known-failing", opts.KnownFailing, kfUsed}} {
		var bad []Pattern
		for i, ok := range u.used {
			if !ok {
				bad = append(bad, u.ps[i])
			}
		}
		if len(bad) > 0 {
			errs = append(errs, &UnmatchedPatternError{Option: u.opt, Patterns: bad})
		}
	}
	return results, errors.Join(errs...)
}

func matchAny(ps []Pattern, used []bool, name string) bool {
	hit := false
	for i, p := range ps {
		if p.Match(name) {
			used[i] = true
			hit = true
		}
	}
	return hit
}

// applyKnownFailing turns a failure into StatusKnownFailing and a pass into
// a failure that names the entry to remove.
func applyKnownFailing(res Result, p Pattern) Result {
	switch res.Status {
	case StatusFail:
		res.Status = StatusKnownFailing
		res.Reason = "listed in " + p.Where()
	case StatusPass:
		res.Status = StatusFail
		res.Problems = append(res.Problems, Problem{
			Rule:    "known-failing",
			Guards:  res.Scenario.Guards,
			Message: "known-failing case now passes: remove it from " + p.Where(),
		})
	}
	return res
}

// ApplyKnownFailing adjusts a result for a known-failing entry, as Check
// does: a failure becomes StatusKnownFailing, a pass becomes a failure that
// names the entry to remove.
func ApplyKnownFailing(res Result, p Pattern) Result { return applyKnownFailing(res, p) }

// CheckOne runs one case on one adapter, without regard to patterns or
// known-failing lists. The case should apply to the adapter.
func CheckOne(a core.Adapter, sc *Scenario, opts Options) Result {
	r := &run{
		res: Result{
			Name:     sc.NameFor(a.Name()),
			Scenario: sc,
			Adapter:  Label(a),
			Protocol: a.Name(),
			Severity: sc.Severity,
		},
		sc: sc,
		a:  a,
	}
	for _, op := range sc.needs() {
		if !core.Implements(a, op) {
			r.res.Status = StatusNotGraded
			r.res.Reason = (&core.NotImplementedError{Op: op}).Error()
			return r.res
		}
	}
	switch sc.Kind {
	case KindStream:
		r.stream(opts)
	case KindResponse:
		r.response()
	case KindRequest:
		r.request()
	case KindHistory:
		r.history()
	}
	switch {
	case r.res.Status == StatusSkip, r.res.Status == StatusNotGraded:
	case len(r.res.Problems) > 0:
		r.res.Status = StatusFail
	default:
		r.res.Status = StatusPass
	}
	return r.res
}

// Label returns the name a's results are reported under: its Label when it
// has one (see Subject), else its Name.
func Label(a core.Adapter) string {
	if l, ok := a.(interface{ Label() string }); ok {
		return l.Label()
	}
	return a.Name()
}

type run struct {
	res Result
	sc  *Scenario
	a   core.Adapter
}

func (r *run) problem(rule, diff, format string, args ...any) {
	r.res.Problems = append(r.res.Problems, Problem{
		Rule:    rule,
		Guards:  r.sc.Guards,
		Message: fmt.Sprintf(format, args...),
		Diff:    diff,
	})
}

// skipOrFail records an encoder error: a skip when the adapter says the
// feature is unsupported, else a problem. An adapter that declares the
// features the case requires cannot skip it: its refusal is a problem. It
// reports whether the run must stop.
func (r *run) skipOrFail(op string, err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, core.ErrNotImplemented) {
		r.res.Status = StatusNotGraded
		r.res.Reason = err.Error()
		r.res.Problems = nil
		return true
	}
	if _, ok := r.a.(core.FeatureDeclarer); ok && len(r.sc.Requires) > 0 && errors.Is(err, errors.ErrUnsupported) {
		r.problem("feature", "", "the %s protocol has %v, which this case requires, yet the adapter refused it: %v", r.a.Name(), r.sc.Requires, err)
		return true
	}
	if errors.Is(err, errors.ErrUnsupported) {
		r.res.Status = StatusSkip
		r.res.Reason = fmt.Sprintf("%s: %v", op, err)
		r.res.Problems = nil
		return true
	}
	r.problem(op, "", "adapter returned an error: %v", err)
	return true
}

// guard calls f, turning a panic into an error: adapters must never panic
// on any input.
func guard[T any](op string, f func() (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &panicError{op: op, value: p}
		}
	}()
	return f()
}

type panicError struct {
	op    string
	value any
}

func (e *panicError) Error() string { return fmt.Sprintf("%s: adapter panicked: %v", e.op, e.value) }

func (r *run) stream(opts Options) {
	body := r.sc.Body
	if body == nil {
		var buf bytes.Buffer
		_, err := guard("encode stream", func() (struct{}, error) { return struct{}{}, r.a.EncodeStream(&buf, r.sc.Events) })
		if r.skipOrFail("encode-stream", err) {
			return
		}
		body = buf.Bytes()
	}
	decode := func(rd io.Reader) (*core.Response, error) {
		return guard("decode stream", func() (*core.Response, error) { return core.Collect(r.a.DecodeStream(rd)) })
	}
	resp, err := decode(bytes.NewReader(body))
	r.outcome(resp, err)

	splits := opts.Splits
	if splits == 0 {
		splits = 3
	}
	whole := outcomeJSON(resp, err)
	seeds := make([]uint64, 0, max(splits, 1))
	if opts.Seed != 0 {
		seeds = append(seeds, opts.Seed)
	} else {
		for i := range max(splits, 0) {
			seeds = append(seeds, seedFor(r.res.Name, i))
		}
	}
	for _, seed := range seeds {
		resp2, err2 := decode(&splitReader{data: body, rng: rand.New(rand.NewPCG(seed, seed))})
		if got := outcomeJSON(resp2, err2); got != whole {
			r.problem("split-independence", textDiff(whole, got),
				"decoding the same bytes in random-size reads (seed %d, which --seed replays) gives a different result than one read", seed)
			break
		}
	}
}

func (r *run) response() {
	body := r.sc.Body
	if body == nil {
		b, err := guard("encode response", func() ([]byte, error) { return r.a.EncodeResponse(r.sc.Response) })
		if r.skipOrFail("encode-response", err) {
			return
		}
		body = b
	}
	resp, err := guard("decode response", func() (*core.Response, error) { return r.a.DecodeResponse(body) })
	r.outcome(resp, err)
}

func (r *run) request() {
	enc, err := guard("encode request", func() ([]byte, error) { return r.a.EncodeRequest(r.sc.Request) })
	if r.skipOrFail("encode-request", err) {
		return
	}
	if r.sc.Want.Request != nil {
		r.compareRequest(enc)
	}
	dec, err := guard("decode request", func() (*core.Request, error) { return r.a.DecodeRequest(enc) })
	if err != nil {
		r.problem("decode-request", "", "decoding the adapter's own encoded request failed: %v", err)
		return
	}
	want, _ := json.Marshal(r.sc.Request)
	got, _ := json.Marshal(dec)
	r.compareJSON("round-trip", "decode(encode(request)) differs from request.json", rawAny(want), got)
}

func (r *run) history() {
	enc, err := guard("encode request", func() ([]byte, error) { return r.a.EncodeRequest(r.sc.Request) })
	var pe *panicError
	if errors.As(err, &pe) {
		r.problem("no-panic", "", "%v", err)
		return
	}
	if errors.Is(err, errors.ErrUnsupported) && r.sc.Want.Error == nil {
		r.skipOrFail("encode-request", err)
		return
	}
	if r.sc.Want.Error != nil {
		switch {
		case err == nil:
			r.problem("history-rule", "", "encoding must fail with an error matching %q, but the adapter encoded the request", r.sc.Want.Error)
		case !r.sc.Want.Error.MatchString(err.Error()):
			r.problem("history-rule", "", "encoding failed with %q, which does not match %q", err.Error(), r.sc.Want.Error)
		}
		return
	}
	if err != nil {
		r.problem("encode-request", "", "adapter returned an error: %v", err)
		return
	}
	r.compareRequest(enc)
}

// compareRequest compares an encoded request with want/request.json. Only
// the top-level keys the want names are compared (a history case states the
// messages, not every default the adapter adds); below the top level the
// comparison is exact.
func (r *run) compareRequest(enc []byte) {
	got := normalize(rawAny(enc))
	want := normalize(r.sc.Want.Request)
	if wm, ok := want.(map[string]any); ok {
		if gm, ok := got.(map[string]any); ok {
			sub := map[string]any{}
			for k := range wm {
				if v, ok := gm[k]; ok {
					sub[k] = v
				}
			}
			got = sub
		}
	}
	r.compareValues("encoded-request", "encoded request differs from want/request.json (top-level keys of the want only)", want, got)
}

// decodeError checks the error of a body that must fail to decode
// (want/decode-error.json) by its kind and place, never its wording: a
// decode error, not a provider error or a stream cut short, that names a
// byte offset within want (any decimal number in its text: adapters word
// the place as they like, "at byte 691", "event at byte 505", "offset
// 692").
func (r *run) decodeError(want ByteRange, resp *core.Response, err error) {
	place := fmt.Sprintf("a byte offset from %d to %d", want.From, want.To)
	switch {
	case resp.Error != nil:
		r.problem("error", "", "want a decode error naming %s, got a provider error: %v", place, resp.Error)
		return
	case err == nil:
		r.problem("error", "", "want a decode error naming %s, got none", place)
		return
	case errors.Is(err, core.ErrTruncated) && !errors.Is(err, core.ErrMalformed):
		r.problem("error", "", "want a decode error naming %s, got a stream cut short: %v", place, err)
		return
	}
	for _, m := range offsetText.FindAllString(err.Error(), -1) {
		if n, perr := strconv.ParseInt(m, 10, 64); perr == nil && want.Contains(n) {
			return
		}
	}
	r.problem("error", "", "decode error %q names no byte offset from %d to %d (the malformed event's start to the byte after its data)", err, want.From, want.To)
}

// offsetText matches the numbers an error may name a place with.
var offsetText = regexp.MustCompile(`\d+`)

// outcome checks a decoded response, and the error that came with it,
// against the scenario's wants, recording every difference.
func (r *run) outcome(resp *core.Response, err error) {
	w := r.sc.Want
	var pe *panicError
	if errors.As(err, &pe) {
		r.problem("no-panic", "", "%v", err)
		return
	}
	if resp == nil {
		resp = &core.Response{}
	}
	var errText []string
	if err != nil {
		errText = append(errText, err.Error())
	}
	if resp.Error != nil {
		errText = append(errText, resp.Error.Error())
	}
	switch {
	case w.DecodeError != nil:
		r.decodeError(*w.DecodeError, resp, err)
	case w.Error == nil && err != nil:
		r.problem("decode", "", "unexpected error: %v", err)
	case w.Error == nil && resp.Error != nil:
		r.problem("provider-error", "", "unexpected provider error in the response: %v", resp.Error)
	case w.Error != nil && len(errText) == 0:
		r.problem("error", "", "want an error matching %q, got none", w.Error)
	case w.Error != nil && !w.Error.MatchString(strings.Join(errText, "\n")):
		r.problem("error", "", "error %q does not match %q", strings.Join(errText, "; "), w.Error)
	}

	want := w.Calls
	if want == nil {
		want = []map[string]any{}
	}
	r.compareCalls("calls", "complete tool calls differ from want/calls.json", want, resp.Calls())
	inc := w.Incomplete
	if inc == nil {
		inc = []map[string]any{}
	}
	r.compareCalls("incomplete", "calls left incomplete differ from want/incomplete.json (an incomplete call must never be reported as complete)", inc, resp.Incomplete)

	if w.Text != nil && *w.Text != resp.Text() {
		r.problem("text", textDiff(*w.Text, resp.Text()), "visible text differs from want/text.txt")
	}
	if f := w.Finish; f != nil {
		if f.Reason != resp.Finish {
			r.problem("finish", textDiff(string(f.Reason), string(resp.Finish)), "normalised finish reason differs from want/finish.txt")
		}
		if f.Provider != "" && f.Provider != resp.ProviderFinish {
			r.problem("provider-finish", textDiff(f.Provider, resp.ProviderFinish), "provider finish reason differs from want/finish.txt")
		}
	}
}

// AnyID is the want/calls.json id that matches any non-empty id, for
// protocols that send none (the adapter generates one, D01). Calls with
// AnyID must still get distinct ids.
const AnyID = "<any>"

func (r *run) compareCalls(rule, msg string, want []map[string]any, got []core.Call) {
	gotMaps := make([]any, len(got))
	seen := map[string]bool{}
	for i, c := range got {
		var w map[string]any
		if i < len(want) {
			w = want[i]
		}
		m := map[string]any{"id": c.ID, "name": c.Name}
		_, wantArgs := w["arguments"]
		if len(bytes.TrimSpace(c.Arguments)) > 0 || wantArgs {
			m["arguments"] = argValue(c.Arguments)
		}
		if w != nil {
			if _, ok := w["item_id"]; ok {
				m["item_id"] = c.ItemID
			}
			if _, ok := w["signature"]; ok {
				m["signature"] = c.Signature
			}
			if w["id"] == AnyID && c.ID != "" {
				if seen[c.ID] {
					r.problem(rule, "", "call %d reuses the generated id %q; generated ids must be distinct", i, c.ID)
				}
				seen[c.ID] = true
				m["id"] = AnyID
			}
		}
		if c.Repaired {
			m["repaired"] = true
		}
		if c.Original != "" {
			m["original"] = c.Original
		}
		gotMaps[i] = m
	}
	wantAny := make([]any, len(want))
	for i, w := range want {
		wantAny[i] = w
	}
	r.compareValues(rule, msg, normalize(wantAny), normalize(gotMaps))
}

// argValue turns argument text into a JSON value for comparison. Text that
// is not JSON is kept as a string marked so that a diff shows it plainly.
func argValue(raw json.RawMessage) any {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "<empty>"
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil || d.More() {
		return "<invalid JSON> " + string(raw)
	}
	return v
}

func rawAny(b []byte) any {
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return "<invalid JSON> " + string(b)
	}
	return v
}

func (r *run) compareJSON(rule, msg string, want any, got []byte) {
	gv := rawAny(got)
	r.compareValues(rule, msg, normalize(want), normalize(gv))
}

func (r *run) compareValues(rule, msg string, want, got any) {
	if cmp.Equal(want, got) {
		return
	}
	r.problem(rule, textDiff(indent(want), indent(got)), "%s", msg)
}

// normalize gives numbers one spelling (2 and 2.0 are the same number) and
// turns every value into plain maps, slices and scalars.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case json.Number:
		if f, err := strconv.ParseFloat(string(x), 64); err == nil {
			if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
				return json.Number(strconv.FormatInt(i, 10))
			}
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
		return x
	case float64:
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
	default:
		return v
	}
}

func indent(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return buf.String()
}

// textDiff is cmp.Diff of two texts, labelled -want +got. cmp shows a line
// diff only for strings of 32 bytes or more; shorter ones are shown here as
// whole lines in the same style.
func textDiff(want, got string) string {
	if len(want) >= 32 && len(got) >= 32 {
		return cmp.Diff(want, got)
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(want, "\n"), "\n") {
		b.WriteString("- \t" + l + "\n")
	}
	for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		b.WriteString("+ \t" + l + "\n")
	}
	return b.String()
}

// outcomeJSON renders a decode outcome as indented JSON, for comparing two
// decodes of the same bytes.
func outcomeJSON(resp *core.Response, err error) string {
	var safe *core.Response
	if resp != nil {
		cp := *resp
		cp.Message.Parts = nil
		for _, p := range resp.Message.Parts {
			if p.Call != nil {
				c := *p.Call
				c.Arguments = safeArgs(c.Arguments)
				p.Call = &c
			}
			cp.Message.Parts = append(cp.Message.Parts, p)
		}
		cp.Incomplete = nil
		for _, c := range resp.Incomplete {
			c.Arguments = safeArgs(c.Arguments)
			cp.Incomplete = append(cp.Incomplete, c)
		}
		safe = &cp
	}
	out := map[string]any{"response": safe}
	if err != nil {
		out["error"] = err.Error()
	}
	b, mErr := json.MarshalIndent(out, "", "  ")
	if mErr != nil {
		return fmt.Sprintf("%#v", out)
	}
	return string(b) + "\n"
}

func seedFor(name string, i int) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64() + uint64(i)
}

// splitReader returns its data in reads of random size between 1 and 64
// bytes.
type splitReader struct {
	data []byte
	rng  *rand.Rand
}

func (s *splitReader) Read(p []byte) (int, error) {
	if len(s.data) == 0 {
		return 0, io.EOF
	}
	n := 1 + s.rng.IntN(64)
	n = min(n, len(p), len(s.data))
	copy(p, s.data[:n])
	s.data = s.data[n:]
	return n, nil
}

// safeArgs returns arguments that marshal: valid JSON as it is, anything
// else as a JSON string.
func safeArgs(raw json.RawMessage) json.RawMessage {
	if json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal("<invalid JSON> " + string(raw))
	return b
}

// WantCalls returns calls in the form of want/calls.json (complete set)
// or want/incomplete.json, as the engine compares them: id, name,
// arguments as a JSON value (text that is not JSON, or none, as a marked
// string; always present for complete calls), and item_id, signature,
// repaired and original where set. A case written from it passes on the
// decoder that produced the calls.
func WantCalls(calls []core.Call, complete bool) []map[string]any {
	out := make([]map[string]any, 0, len(calls))
	for _, c := range calls {
		m := map[string]any{"id": c.ID, "name": c.Name}
		if complete || len(bytes.TrimSpace(c.Arguments)) > 0 {
			m["arguments"] = argValue(c.Arguments)
		}
		if c.ItemID != "" {
			m["item_id"] = c.ItemID
		}
		if c.Signature != "" {
			m["signature"] = c.Signature
		}
		if c.Repaired {
			m["repaired"] = true
		}
		if c.Original != "" {
			m["original"] = c.Original
		}
		out = append(out, m)
	}
	return out
}
