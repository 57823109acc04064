package scenarios

import (
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
)

// latestCallAdapter is a deliberately wrong adapter kept as a fixture: it
// wraps a real adapter but, as some real clients do (langchaingo's
// updateToolCalls, bifrost #1829), appends every argument delta to the most
// recently started call. It does so by stripping the routing (id, item id,
// index) from every call_delta event, which core.Chunk defines as "continue
// the most recently started call". Such a client builds the arguments of a
// streamed call from its deltas alone, so once deltas have been seen the
// wrapper also drops the complete argument text that some protocols repeat
// when a call ends (Responses function_call_arguments.done): core.Buffer
// lets that text replace what the deltas made, and a client that reads it
// is not the client of A05. Calls that arrive whole (a start or an end with
// the arguments and no delta) pass through unchanged.
type latestCallAdapter struct{ core.Adapter }

func (w latestCallAdapter) DecodeStream(r io.Reader) core.EventStream {
	return &latestCallStream{s: w.Adapter.DecodeStream(r)}
}

type latestCallStream struct {
	s        core.EventStream
	sawDelta bool // an argument delta has been seen
}

func (l *latestCallStream) Next() (core.Event, error) {
	ev, err := l.s.Next()
	if ev.Chunk == nil || ev.Chunk.Start || ev.Chunk.Name != "" {
		return ev, err
	}
	switch {
	case ev.Kind == core.EventCallDelta:
		c := *ev.Chunk
		c.ID, c.ItemID, c.Index, c.HasIndex = "", "", 0, false
		l.sawDelta = l.sawDelta || c.ArgsDelta != ""
		ev.Chunk = &c
	case ev.Kind == core.EventCallEnd && ev.Chunk.Args != nil && l.sawDelta:
		c := *ev.Chunk
		c.Args = nil
		ev.Chunk = &c
	}
	return ev, err
}

// interleavingPattern selects the scenarios whose calls' argument deltas
// interleave: A05 (round-robin fragments) and A19 (interleaved content
// blocks).
const interleavingPattern = "/streaming/^(A05|A19)-"

// wholeCallProtocols are the protocols whose streams carry no argument
// delta that names its call: there is nothing for the wrong adapter to
// misroute, so it is right there, and every interleaving case must pass
// with it too. Each entry says why.
var wholeCallProtocols = map[string]string{
	"gemini": "each functionCall part arrives whole, arguments included; Vertex partialArgs continue the one open call and name none",
	"ollama": "each NDJSON line carries whole calls with argument objects; there are no argument deltas",
}

// encoderSendsWholeCalls are the results of the case declared for every
// protocol (any/streaming/A05-round-robin-interleaving) that cannot catch
// the wrong adapter, with the reason: the adapter's own stream encoder,
// which produces the bytes of a declared-once case, is free to send each
// call's arguments whole with its start, and these do. Each such protocol
// has hand-written interleaved bytes that the test requires to catch it.
var encoderSendsWholeCalls = map[string]string{
	"openai-chat/streaming/A05-round-robin-interleaving": "the openai-chat encoder sends each call's arguments in the chunk that starts it",
	"mistral/streaming/A05-round-robin-interleaving":     "the mistral encoder sends whole calls, Mistral's own shape (A07)",
}

// TestWrongAdapterFailsInterleaving shows, on every built-in protocol, that
// the interleaving scenarios catch an accumulator that appends to the
// latest call, with calls diffs a person can read, while the real adapter
// passes the same scenarios. No result is left out: the exceptions above
// are checked to pass with the wrong adapter (so an exception that stops
// being one fails the test), and every protocol with argument deltas has a
// case that catches it.
func TestWrongAdapterFailsInterleaving(t *testing.T) {
	cases, err := LoadBuiltin(VCRResolver(cassettes.Load))
	if err != nil {
		t.Fatal(err)
	}
	run := Options{Run: []Pattern{MustCompilePattern(interleavingPattern)}}
	usedException := map[string]bool{}
	caught := map[string][]string{}
	for _, a := range providers.All() {
		proto := a.Name()
		good, err := Check([]core.Adapter{a}, cases, run)
		if err != nil {
			t.Fatal(err)
		}
		wrong, err := Check([]core.Adapter{latestCallAdapter{a}}, cases, run)
		if err != nil {
			t.Fatal(err)
		}
		if len(good) == 0 {
			t.Errorf("%s: no interleaving case (%s) runs on this protocol", proto, interleavingPattern)
			continue
		}
		var goodNames, wrongNames []string
		for _, r := range good {
			goodNames = append(goodNames, r.Name)
			if r.Status != StatusPass {
				t.Errorf("real %s adapter: %s: %s, want pass: %v", proto, r.Name, r.Status, r.Problems)
			}
		}
		for _, r := range wrong {
			wrongNames = append(wrongNames, r.Name)
		}
		if diff := cmp.Diff(goodNames, wrongNames); diff != "" {
			t.Fatalf("%s: the wrong adapter ran other cases than the real one (-real +wrong):\n%s", proto, diff)
		}

		for _, r := range wrong {
			why, whole := wholeCallProtocols[proto]
			if !whole {
				why, whole = encoderSendsWholeCalls[r.Name]
				usedException[r.Name] = whole
			}
			if whole {
				if r.Status != StatusPass {
					t.Errorf("wrong adapter: %s: %s, but it is listed as blind to the fault (%s); remove the exception: %v", r.Name, r.Status, why, r.Problems)
				} else {
					t.Logf("%s: cannot catch the wrong adapter: %s", r.Name, why)
				}
				continue
			}
			if r.Status != StatusFail {
				t.Errorf("wrong adapter: %s: %s, want fail", r.Name, r.Status)
				continue
			}
			var calls *Problem
			for i := range r.Problems {
				if r.Problems[i].Rule == "calls" {
					calls = &r.Problems[i]
				}
			}
			if calls == nil {
				t.Errorf("wrong adapter: %s: no calls problem among %v", r.Name, r.Problems)
				continue
			}
			text := calls.String()
			if id := r.Scenario.Guards[0]; !strings.HasPrefix(text, "["+id) || !strings.Contains(text, "(-want +got)") {
				t.Errorf("wrong adapter: %s: calls problem does not name %s and the diff direction:\n%s", r.Name, id, text)
			}
			caught[proto] = append(caught[proto], r.Name)
			t.Logf("%s:\n%s", r.Name, text)
		}
		if _, whole := wholeCallProtocols[proto]; !whole && len(caught[proto]) == 0 {
			t.Errorf("%s: no interleaving case catches the wrong adapter; add hand-written interleaved bytes", proto)
		}
	}
	for name := range encoderSendsWholeCalls {
		if !usedException[name] {
			t.Errorf("exception %s matched no result; remove it", name)
		}
	}
	for proto := range wholeCallProtocols {
		if _, err := providers.Lookup(proto); err != nil {
			t.Errorf("whole-call protocol %s: %v", proto, err)
		}
	}

	// The counts per protocol, so that a lost case shows in the diff.
	got := map[string]int{}
	for p, names := range caught {
		got[p] = len(names)
	}
	want := map[string]int{
		"anthropic":        2, // A05 declared once, A19 hand-written
		"bedrock":          2, // the same
		"cohere":           2,
		"mistral":          1, // hand-written A05; the encoder sends whole calls
		"openai-chat":      2, // two hand-written A05; the encoder sends whole arguments
		"openai-responses": 2,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("interleaving cases that catch the wrong adapter, per protocol (-want +got):\n%s", diff)
	}

	// The hand-written round-robin case: the first two calls lose their
	// arguments to the third, whose text becomes an invalid mash that is
	// left incomplete.
	wrong, err := Check([]core.Adapter{latestCallAdapter{mustLookup(t, "openai-chat")}}, cases,
		Options{Run: []Pattern{MustCompilePattern("openai-chat/streaming/^A05-three-calls-round-robin-id-on-first-chunk$")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(wrong) != 1 {
		t.Fatalf("openai-chat/streaming/A05-three-calls-round-robin-id-on-first-chunk: %d results, want 1", len(wrong))
	}
	r := wrong[0]
	var all []string
	for _, p := range r.Problems {
		all = append(all, p.String())
	}
	text := strings.Join(all, "\n")
	for _, line := range []struct {
		sign    byte
		content string
	}{
		{'-', `"city": "Paris"`},
		{'-', `"zone": "Europe/Paris"`},
		{'+', `"arguments": {},`},
		{'+', `"original": "{\"city\": {\"zone\": {\"city\": \"Paris\"}\"Europe/Paris\"}\"Lyon\"}"`},
	} {
		found := false
		for _, p := range r.Problems {
			if hasDiffLine(p.Diff, line.sign, line.content) {
				found = true
			}
		}
		if !found {
			t.Errorf("wrong adapter: %s: no %c line %s in the diffs; first problem:\n%s", r.Name, line.sign, line.content, text)
		}
	}
}

func mustLookup(t *testing.T, name string) core.Adapter {
	t.Helper()
	a, err := providers.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// eventFilter is a deliberately wrong adapter kept as a fixture: it wraps a
// real adapter and rewrites each event its stream decoder yields.
type eventFilter struct {
	core.Adapter
	rewrite func(core.Event) core.Event
}

func (w eventFilter) DecodeStream(r io.Reader) core.EventStream {
	return filteredStream{w.Adapter.DecodeStream(r), w.rewrite}
}

type filteredStream struct {
	s       core.EventStream
	rewrite func(core.Event) core.Event
}

func (f filteredStream) Next() (core.Event, error) {
	ev, err := f.s.Next()
	if err != nil {
		return ev, err
	}
	if ev.Chunk != nil {
		c := *ev.Chunk
		ev.Chunk = &c
	}
	return f.rewrite(ev), nil
}

// rewriting returns a wrapper that rewrites each event with f.
func rewriting(f func(core.Event) core.Event) func(core.Adapter) core.Adapter {
	return func(a core.Adapter) core.Adapter { return eventFilter{a, f} }
}

// TestWrongAdaptersFailNamedCases runs adapters with one known fault each
// over the stream cases named by the failure mode of that fault, on every
// protocol those cases run on, and requires each to fail with a calls (or
// finish) problem that names the mode: the id-named cases detect what their name
// says, while the real adapters pass them.
func TestWrongAdaptersFailNamedCases(t *testing.T) {
	cases, err := LoadBuiltin(VCRResolver(cassettes.Load))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, pattern string
		// rule is the rule whose problem must name the mode.
		rule string
		wrap func(core.Adapter) core.Adapter
		// wantProtocols are the protocols on which a case must run.
		wantProtocols []string
	}{
		{
			// A20: argument deltas ignored, every streamed call runs with
			// what its start carried ({} or ""). The complete text some
			// protocols repeat at the end (Responses arguments.done) is
			// ignored too, or the fault would not show there.
			name: "argument deltas ignored", pattern: "/streaming/^A20-", rule: "calls",
			wrap: rewriting(func(ev core.Event) core.Event {
				if ev.Chunk != nil && !ev.Chunk.Start {
					ev.Chunk.ArgsDelta, ev.Chunk.Args = "", nil
				}
				return ev
			}),
			wantProtocols: []string{"anthropic", "bedrock", "cohere", "mistral", "openai-chat", "openai-responses"},
		},
		{
			// D01, D02: the provider's ids (or the adapter's own for an
			// id-less protocol) replaced by one constant, as a runtime that
			// keys calls by "null" does.
			name: "ids flattened", pattern: "/streaming/^(D01|D02)-", rule: "calls",
			wrap: rewriting(func(ev core.Event) core.Event {
				if ev.Chunk != nil && ev.Chunk.ID != "" {
					ev.Chunk.ID = "null"
				}
				return ev
			}),
			wantProtocols: []string{"gemini", "ollama"},
		},
		{
			// B09, B10: a lenient partial-JSON parser finishes cut calls.
			// Gemini and Ollama send each call whole inside one JSON
			// chunk or line, so their B09 cases cut the JSON itself: no
			// call text is left for a lenient parser to close (the
			// decoder must report the cut instead).
			name:          "cut calls closed",
			rule:          "calls",
			pattern:       "^(anthropic|bedrock|cohere|mistral|openai-chat|openai-responses)$/streaming/^(B09|B10)-",
			wrap:          lenientFinishAdapter,
			wantProtocols: []string{"anthropic", "bedrock", "cohere", "mistral", "openai-chat", "openai-responses"},
		},
		{
			// A15: a client that waits for argument deltas after a call
			// starts, so a call that arrives whole, its arguments in the
			// chunk that starts it, runs with {}.
			name: "whole arguments ignored", pattern: "/streaming/^A15-", rule: "calls",
			wrap: rewriting(func(ev core.Event) core.Event {
				if ev.Chunk != nil {
					ev.Chunk.Args = nil
					if ev.Chunk.Start {
						ev.Chunk.ArgsDelta = ""
					}
				}
				return ev
			}),
			wantProtocols: []string{"gemini", "mistral", "ollama", "openai-chat"},
		},
		{
			// F02: Gemini's STOP taken at its word on a tool turn. (On
			// the Gemini-compat Chat Completions stream the reason stays
			// stop and the case checks the calls are kept, F01.)
			name: "STOP taken at its word", pattern: "^gemini$/streaming/^F02-", rule: "finish",
			wrap: rewriting(func(ev core.Event) core.Event {
				if ev.Kind == core.EventFinish && ev.ProviderFinish == "STOP" {
					ev.Finish = core.FinishStop
				}
				return ev
			}),
			wantProtocols: []string{"gemini"},
		},
		{
			// C01: a no-argument call's empty arguments kept raw.
			name: "empty arguments kept raw", pattern: "/streaming/^C01-", rule: "calls",
			wrap:          rawEmptyArgsAdapter,
			wantProtocols: []string{"anthropic", "bedrock", "cohere", "gemini", "mistral", "ollama", "openai-chat", "openai-responses"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkWrong(t, cases, tc.pattern, tc.wrap, tc.rule, tc.wantProtocols)
		})
	}
}

// checkWrong runs the cases matching pattern on every built-in adapter and
// on each wrapped by wrap, and requires the real adapters to pass, the
// wrapped ones to fail with a problem of the rule given that names the
// case's first failure mode, and the cases to run on exactly the protocols
// of want.
func checkWrong(t *testing.T, cases []*Scenario, pattern string, wrap func(core.Adapter) core.Adapter, rule string, want []string) {
	t.Helper()
	run := Options{Run: []Pattern{MustCompilePattern(pattern)}}
	real := providers.All()
	var wrongs []core.Adapter
	for _, a := range real {
		wrongs = append(wrongs, wrap(a))
	}
	good, err := Check(real, cases, run)
	if err != nil {
		t.Fatal(err)
	}
	wrong, err := Check(wrongs, cases, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(good) != len(wrong) {
		t.Fatalf("%d results from the real adapters, %d from the wrong ones", len(good), len(wrong))
	}
	var ran []string
	for i, r := range wrong {
		if good[i].Name != r.Name {
			t.Fatalf("result %d: %s from the real adapters, %s from the wrong ones", i, good[i].Name, r.Name)
		}
		if good[i].Status != StatusPass {
			t.Errorf("real adapter: %s: %s, want pass: %v", good[i].Name, good[i].Status, good[i].Problems)
		}
		if !slices.Contains(ran, r.Adapter) {
			ran = append(ran, r.Adapter)
		}
		if r.Status != StatusFail {
			t.Errorf("wrong adapter: %s: %s, want fail", r.Name, r.Status)
			continue
		}
		i := slices.IndexFunc(r.Problems, func(p Problem) bool { return p.Rule == rule })
		if i < 0 || !strings.HasPrefix(r.Problems[i].String(), "["+r.Scenario.Guards[0]) {
			t.Errorf("wrong adapter: %s: no %s problem naming %s among %v", r.Name, rule, r.Scenario.Guards[0], r.Problems)
			continue
		}
		t.Logf("%s:\n%s", r.Name, r.Problems[i])
	}
	slices.Sort(ran)
	if !slices.Equal(ran, want) {
		t.Errorf("cases %s ran on %v, want %v", pattern, ran, want)
	}
}

// finishingAdapter is a deliberately wrong adapter kept as a fixture: it
// wraps a real adapter, follows each call's argument text (routing deltas
// as core.Buffer does, by id, item id, then index, else to the latest
// call) and, when the call ends or the turn finishes, sends its arguments
// whole as finish(text), the deltas withheld, the way a faulty client
// reads them. With
// lenient set it also finishes the calls still open when the stream stops.
type finishingAdapter struct {
	core.Adapter
	finish  func(text string) string
	lenient bool
}

// lenientFinishAdapter is a client with a lenient partial-JSON parser
// (earendil-works/pi #8501, vercel/ai #13137): it finishes every call,
// ended or cut off, with its argument text closed into JSON (an open
// string and the open objects closed, a dangling key dropped).
func lenientFinishAdapter(a core.Adapter) core.Adapter {
	return finishingAdapter{Adapter: a, finish: closeJSON, lenient: true}
}

// rawEmptyArgsAdapter is a client that keeps a no-argument call's
// arguments as the raw JSON it was given (C01): empty argument text
// becomes the JSON string "" and an empty object null, as a Go client that
// holds the string field in a json.RawMessage, or an empty map in a nil
// one, sends them on.
func rawEmptyArgsAdapter(a core.Adapter) core.Adapter {
	return finishingAdapter{Adapter: a, finish: func(text string) string {
		switch strings.TrimSpace(text) {
		case "":
			return `""`
		case "{}":
			return "null"
		}
		return text
	}}
}

func (w finishingAdapter) DecodeStream(r io.Reader) core.EventStream {
	return &lenientStream{s: w.Adapter.DecodeStream(r), finish: w.finish, lenient: w.lenient}
}

type lenientCall struct {
	id, itemID string
	index      int
	hasIndex   bool
	text       string
	ended      bool
}

type lenientStream struct {
	s       core.EventStream
	finish  func(string) string
	lenient bool
	calls   []*lenientCall
	pending []core.Event
	err     error
}

func (l *lenientStream) find(c *core.Chunk) *lenientCall {
	for i := len(l.calls) - 1; i >= 0; i-- {
		k := l.calls[i]
		switch {
		case c.ID != "" && k.id == c.ID,
			c.ID == "" && c.ItemID != "" && k.itemID == c.ItemID,
			c.ID == "" && c.ItemID == "" && c.HasIndex && k.hasIndex && k.index == c.Index:
			return k
		}
	}
	if c.ID == "" && c.ItemID == "" && !c.HasIndex && len(l.calls) > 0 {
		return l.calls[len(l.calls)-1]
	}
	return nil
}

// flush queues a call_end with finished arguments for every open call.
func (l *lenientStream) flush() {
	for _, k := range l.calls {
		if k.ended {
			continue
		}
		k.ended = true
		args := l.finish(k.text)
		l.pending = append(l.pending, core.Event{Kind: core.EventCallEnd, Chunk: &core.Chunk{
			ID: k.id, ItemID: k.itemID, Index: k.index, HasIndex: k.hasIndex, Args: &args, Done: true,
		}})
	}
}

func (l *lenientStream) Next() (core.Event, error) {
	if len(l.pending) > 0 {
		ev := l.pending[0]
		l.pending = l.pending[1:]
		return ev, nil
	}
	if l.err != nil {
		return core.Event{}, l.err
	}
	ev, err := l.s.Next()
	if err != nil {
		l.err = err
		if l.lenient {
			l.flush()
		}
		return l.Next()
	}
	switch ev.Kind {
	case core.EventCallStart, core.EventCallDelta, core.EventCallEnd:
		if ev.Chunk == nil {
			break
		}
		c := *ev.Chunk
		ev.Chunk = &c
		k := l.find(&c)
		if c.Start || k == nil {
			k = &lenientCall{id: c.ID, itemID: c.ItemID, index: c.Index, hasIndex: c.HasIndex}
			l.calls = append(l.calls, k)
		}
		if c.Args != nil {
			k.text = *c.Args
		}
		k.text += c.ArgsDelta
		// The text goes on whole at the end only: a final that differs
		// from deltas sent before it would be a conflict, not the
		// client's reading of them.
		c.Args, c.ArgsDelta = nil, ""
		if c.Done && !k.ended {
			k.ended = true
			args := l.finish(k.text)
			c.Args, c.ArgsDelta = &args, ""
		}
	case core.EventFinish:
		l.flush()
		if len(l.pending) > 0 {
			l.pending = append(l.pending, ev)
			return l.Next()
		}
	}
	return ev, nil
}

// closeJSON closes a prefix of a JSON object the way lenient partial-JSON
// parsers do: an open string is closed, a dangling key or comma dropped, and
// the open arrays and objects closed. Text it cannot close is returned as
// it is.
func closeJSON(text string) string {
	if json.Valid([]byte(text)) {
		return text
	}
	var stack []byte
	inString, escaped := false, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == '{' || c == '['):
			stack = append(stack, c)
		case !inString && (c == '}' || c == ']') && len(stack) > 0:
			stack = stack[:len(stack)-1]
		}
	}
	out := text
	if inString {
		out += `"`
	}
	out = strings.TrimRight(out, " \t\r\n")
	if strings.HasSuffix(out, ":") {
		// Drop the dangling key: back to the quote that opens it.
		out = strings.TrimRight(strings.TrimSuffix(out, ":"), " ")
		if j := strings.LastIndex(strings.TrimSuffix(out, `"`), `"`); j >= 0 {
			out = strings.TrimRight(out[:j], " ")
		}
	}
	out = strings.TrimSuffix(out, ",")
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i] == '{' {
			out += "}"
		} else {
			out += "]"
		}
	}
	if !json.Valid([]byte(out)) {
		return text
	}
	return out
}

func TestCloseJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"n":1`, `{"n":1}`},
		{`{"path": "/etc/hosts", "mode":`, `{"path": "/etc/hosts"}`},
		{`{"path": "notes.md", "content": "# Plan\n1. Measure`, `{"path": "notes.md", "content": "# Plan\n1. Measure"}`},
		{`{"a": [1, 2,`, `{"a": [1, 2]}`},
		{`{"q": "say \"hi`, `{"q": "say \"hi"}`},
		{`{"x": {}}`, `{"x": {}}`},
		{`{"a": tr`, `{"a": tr`},
	} {
		if got := closeJSON(tc.in); got != tc.want {
			t.Errorf("closeJSON(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// callParsingAdapter is a deliberately wrong adapter kept as a fixture: it
// wraps a real adapter and, as a server-side tool parser that runs although
// no tool was offered does (vllm #55080), takes every line of the decoded
// text that looks like a JSON call ({"name": ..., "arguments": ...}) out of
// the text and reports it as a call (F07).
type callParsingAdapter struct{ core.Adapter }

func (w callParsingAdapter) DecodeResponse(body []byte) (*core.Response, error) {
	resp, err := w.Adapter.DecodeResponse(body)
	if err != nil || resp == nil {
		return resp, err
	}
	var parts []core.Part
	for _, p := range resp.Message.Parts {
		if p.Kind != core.PartText {
			parts = append(parts, p)
			continue
		}
		var kept []string
		for _, line := range strings.Split(p.Text, "\n") {
			var call struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			}
			if json.Unmarshal([]byte(line), &call) == nil && call.Name != "" {
				parts = append(parts, core.CallPart(core.Call{ID: "call_parsed", Name: call.Name, Arguments: call.Arguments}))
				continue
			}
			kept = append(kept, line)
		}
		parts = append(parts, core.TextPart(strings.Join(kept, "\n")))
	}
	resp.Message.Parts = parts
	resp.Finish = core.FinishToolCalls
	return resp, nil
}

// TestCallParsingAdapterFailsF07 shows that the F07 case, declared for
// every protocol, catches a decoder that turns call-shaped text into a
// call, on every built-in adapter, while the real adapters pass it.
func TestCallParsingAdapterFailsF07(t *testing.T) {
	cases, err := LoadBuiltin(VCRResolver(cassettes.Load))
	if err != nil {
		t.Fatal(err)
	}
	run := Options{Run: []Pattern{MustCompilePattern("/response/^F07-")}}
	real := providers.All()
	var wrongs []core.Adapter
	for _, a := range real {
		wrongs = append(wrongs, callParsingAdapter{a})
	}
	good, err := Check(real, cases, run)
	if err != nil {
		t.Fatal(err)
	}
	wrong, err := Check(wrongs, cases, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(good) != len(real) || len(wrong) != len(real) {
		t.Fatalf("%d and %d results, want one per adapter (%d)", len(good), len(wrong), len(real))
	}
	for i, r := range wrong {
		if good[i].Status != StatusPass {
			t.Errorf("real adapter: %s: %s, want pass: %v", good[i].Name, good[i].Status, good[i].Problems)
		}
		rules := map[string]bool{}
		for _, p := range r.Problems {
			rules[p.Rule] = true
		}
		if r.Status != StatusFail || !rules["calls"] || !rules["text"] || !rules["finish"] {
			t.Errorf("call-parsing adapter: %s: %s with rules %v, want fail with calls, text and finish problems", r.Name, r.Status, rules)
		}
	}
}

// requestAdapter is a deliberately wrong adapter kept as a fixture: it
// wraps a real adapter's request encoder with a fault, on the canonical
// request before encoding (before) or on the encoded JSON after (after).
type requestAdapter struct {
	core.Adapter
	before func(*core.Request)
	after  func(any) any
}

func (w requestAdapter) EncodeRequest(req *core.Request) ([]byte, error) {
	if w.before != nil {
		var clone core.Request
		b, err := json.Marshal(req)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &clone); err != nil {
			return nil, err
		}
		w.before(&clone)
		req = &clone
	}
	body, err := w.Adapter.EncodeRequest(req)
	if err != nil || w.after == nil {
		return body, err
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, err
	}
	return json.Marshal(w.after(v))
}

// stripKeys deletes key from every object found under one of the keys in
// under, anywhere in v.
func stripKeys(v any, key string, under ...string) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if m, ok := e.(map[string]any); ok && slices.Contains(under, k) {
				delete(m, key)
			}
			v[k] = stripKeys(e, key, under...)
		}
	case []any:
		for i, e := range v {
			v[i] = stripKeys(e, key, under...)
		}
	}
	return v
}

// TestWrongEncodersFailHistoryCases runs request encoders with one known
// fault each over the history cases named by its failure mode and requires
// each to fail where the real adapters pass.
func TestWrongEncodersFailHistoryCases(t *testing.T) {
	cases, err := LoadBuiltin(VCRResolver(cassettes.Load))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, pattern string
		wrap          func(core.Adapter) core.Adapter
		wantProtocols []string
	}{
		{
			// G10: a result's text parts JSON-stringified into one text.
			name: "result parts stringified", pattern: "/history/^G10-",
			wrap: func(a core.Adapter) core.Adapter {
				return requestAdapter{Adapter: a, before: func(req *core.Request) {
					for _, m := range req.Messages {
						for _, p := range m.Parts {
							if r := p.Result; r != nil && len(r.Content) > 1 {
								b, _ := json.Marshal(r.Content) // parts always marshal
								r.Content = []core.Part{core.TextPart(string(b))}
							}
						}
					}
				}}
			},
			wantProtocols: []string{"anthropic", "bedrock", "cohere", "gemini", "mistral", "ollama", "openai-chat", "openai-responses"},
		},
		{
			// D02: Gemini call ids stripped from functionCall and
			// functionResponse.
			name: "gemini ids stripped", pattern: "^gemini$/history/^D02-",
			wrap: func(a core.Adapter) core.Adapter {
				return requestAdapter{Adapter: a, after: func(v any) any {
					return stripKeys(v, "id", "functionCall", "functionResponse")
				}}
			},
			wantProtocols: []string{"gemini"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkWrong(t, cases, tc.pattern, tc.wrap, "encoded-request", tc.wantProtocols)
		})
	}
}
