package scenarios

import (
	"io"
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
			if HasDiffLine(p.Diff, line.sign, line.content) {
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
