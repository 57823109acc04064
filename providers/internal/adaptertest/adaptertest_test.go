package adaptertest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/wire"
	"pgregory.net/rapid"
)

func TestSourceName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"anthropic/fantasy__x--tool.yaml", "fantasy__x--tool.yaml"},
		{"anthropic/vercel-ai__a.1.chunks.txt.yaml", "vercel-ai__a.1.chunks.txt"},
		{"anthropic/vercel-ai__a.1.json.yaml", "vercel-ai__a.1.json"},
		{"gemini/langchaingo__T.httprr.yaml", "langchaingo__T.httprr"},
		{"other/x.sse.yaml", "x.sse"},
	}
	for _, tt := range tests {
		if got := SourceName(tt.in); got != tt.want {
			t.Errorf("SourceName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestRecordings checks the corpus as the adapters' tests see it: every
// recording of a protocol is there under its source name, response-only
// fixtures have no request body, and stream content types are told apart.
func TestRecordings(t *testing.T) {
	recs := Recordings(t, "anthropic")
	if len(recs) != 28 {
		t.Errorf("%d anthropic recordings, want 28", len(recs))
	}
	byName := map[string]Recording{}
	for i, r := range recs {
		byName[r.Name] = r
		if i > 0 && recs[i-1].Name >= r.Name {
			t.Errorf("recordings not sorted: %q before %q", recs[i-1].Name, r.Name)
		}
	}
	fixture, ok := byName["vercel-ai__anthropic-tool-no-args.chunks.txt"]
	if !ok || len(fixture.Exchanges) != 1 {
		t.Fatalf("chunks fixture missing or not one exchange: %+v", fixture)
	}
	ex := fixture.Exchanges[0]
	if ex.Request != nil || !ex.IsStream() || !IsSSE(ex.Response) {
		t.Errorf("chunks fixture: request %q, stream %v, SSE %v; want no request, a stream, SSE", ex.Request, ex.IsStream(), IsSSE(ex.Response))
	}
	rec, ok := byName["fantasy__TestAnthropicCommon--claude-sonnet-4--tool.yaml"]
	if !ok || len(rec.Exchanges) == 0 || len(rec.Exchanges[0].Request) == 0 || rec.Exchanges[0].IsStream() {
		t.Errorf("recorded exchange lacks its request or is taken for a stream: %+v", rec)
	}
	streams, bodies := ResponseBodies(t, "anthropic", IsSSE)
	if len(streams)+len(bodies) != 38 {
		t.Errorf("%d streams and %d bodies, want 38 responses", len(streams), len(bodies))
	}
	if len(RequestBodies(t, "anthropic")) < 15 {
		t.Error("fewer than 15 recorded anthropic requests")
	}
}

func TestIsStream(t *testing.T) {
	for ct, want := range map[string]bool{
		"text/event-stream; charset=utf-8":   true,
		"application/vnd.amazon.eventstream": true,
		"application/x-ndjson":               true,
		"application/json; charset=UTF-8":    false,
		"":                                   false,
	} {
		if got := (Exchange{ContentType: ct}).IsStream(); got != want {
			t.Errorf("IsStream(%q) = %v, want %v", ct, got, want)
		}
	}
}

func TestSplitReader(t *testing.T) {
	tests := []struct {
		sizes []int
		want  []string
	}{
		{nil, []string{"a", "b", "c", "d", "e"}},
		{[]int{2}, []string{"ab", "cd", "e"}},
		{[]int{1, 3}, []string{"a", "bcd", "e"}},
		{[]int{0, 9}, []string{"a", "bcde"}},
	}
	for _, tt := range tests {
		r := SplitReader([]byte("abcde"), tt.sizes...)
		var got []string
		buf := make([]byte, 8)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				got = append(got, string(buf[:n]))
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("sizes %v: pieces (-want +got):\n%s", tt.sizes, diff)
		}
	}
}

func TestDrawSplitReaderKeepsBytes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		data := rapid.SliceOf(rapid.Byte()).Draw(t, "data")
		got, err := io.ReadAll(DrawSplitReader(t, data))
		if err != nil || string(got) != string(data) {
			t.Fatalf("read %q, %v; want %q", got, err, data)
		}
	})
}

// endless yields text events for ever.
type endless struct{}

func (endless) Next() (core.Event, error) { return core.Event{Kind: core.EventText, Text: "x"}, nil }

func TestDrain(t *testing.T) {
	want := []core.Event{{Kind: core.EventText, Text: "a"}, {Kind: core.EventFinish, Finish: core.FinishStop}}
	got, err := Drain(core.SliceStream(want))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	got, err = DrainN(endless{}, 100)
	if !errors.Is(err, ErrRunaway) || len(got) != 100 {
		t.Errorf("endless stream: %d events, %v; want 100 and ErrRunaway", len(got), err)
	}
}

func TestEquateJSON(t *testing.T) {
	type v struct{ A json.RawMessage }
	tests := []struct {
		a, b string
		want bool
	}{
		{`{"x":1,"y":[1,2]}`, `{ "y": [1, 2], "x": 1 }`, true},
		{`{"x":1}`, `{"x":2}`, false},
		{`{"x":`, `{"x":`, true},
		{`{"x":`, `{"x": `, false},
	}
	for _, tt := range tests {
		if got := cmp.Equal(v{json.RawMessage(tt.a)}, v{json.RawMessage(tt.b)}, EquateJSON()); got != tt.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestSummarizeEvents(t *testing.T) {
	args := `{"a":1}`
	evs := []core.Event{
		{Kind: core.EventText, Text: "hi", ID: "r1"},
		{Kind: core.EventThinking, Text: "t", Signature: "S"},
		{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "c1", Name: "f", Index: 0, HasIndex: true}},
		{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: 0, HasIndex: true, ArgsDelta: `{"a":`}},
		{Kind: core.EventCallEnd, Chunk: &core.Chunk{Index: 0, HasIndex: true, Args: &args, Done: true}},
		{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "c2", Name: "g", Index: 1, HasIndex: true}},
		{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: 1, HasIndex: true, ArgsDelta: `{"b":`}},
		{Kind: core.EventFinish, Finish: core.FinishLength, ProviderFinish: "max_tokens"},
	}
	want := Summary{ID: "r1", Text: "hi", Thinking: "t", Signatures: []string{"S"},
		Calls:      []CallSum{{ID: "c1", Name: "f", Args: args}},
		Incomplete: []CallSum{{ID: "c2", Name: "g", Args: `{"b":`}},
		Finish:     core.FinishLength, ProviderFinish: "max_tokens"}
	if diff := cmp.Diff(want, SummarizeEvents(evs)); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

func TestAssembleByIndex(t *testing.T) {
	args := `{"a":1}`
	good := []core.Event{
		{Kind: core.EventPlan, Text: "plan"},
		{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "c1", Name: "f", Index: 3, HasIndex: true, ArgsDelta: `{"a"`}},
		{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: 3, HasIndex: true, ArgsDelta: `:1}`}},
		{Kind: core.EventCallEnd, Chunk: &core.Chunk{Index: 3, HasIndex: true, Done: true}},
		{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "c2", Name: "g", Index: 4, HasIndex: true, Args: &args}},
		{Kind: core.EventCallEnd, Chunk: &core.Chunk{Index: 4, HasIndex: true, Done: true}},
	}
	s, err := AssembleByIndex(good)
	if err != nil {
		t.Fatal(err)
	}
	want := IndexSummary{Plan: "plan", Calls: []core.Call{{ID: "c1", Name: "f", Arguments: json.RawMessage(args)}, {ID: "c2", Name: "g", Arguments: json.RawMessage(args)}}}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	for name, evs := range map[string][]core.Event{
		"delta for no call": {{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: 1, HasIndex: true}}},
		"call never ends":   good[:3],
	} {
		if _, err := AssembleByIndex(evs); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestParseDroppingAndCompact(t *testing.T) {
	got := ParseDropping(t, []byte(`{"a":1,"temperature":0.5,"b":{"temperature":1}}`), []string{"temperature"})
	want := map[string]any{"a": 1.0, "b": map[string]any{"temperature": 1.0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseDropping (-want +got):\n%s", diff)
	}
	if got := string(Compact(t, json.RawMessage("{ \"a\" : [1, 2] }\n"))); got != `{"a":[1,2]}` {
		t.Errorf("Compact = %s", got)
	}
}

func TestCheckGoldenReadsFile(t *testing.T) {
	CheckGolden(t, "testdata/golden/example.json", map[string]any{"calls": []string{"f"}, "finish": "stop"})
}

// recordTB records the failures of a check instead of failing the test.
type recordTB struct {
	testing.TB
	errors []string
}

func (r *recordTB) Helper() {}

func (r *recordTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestCheckGoldenReportsMismatch(t *testing.T) {
	if Updating() {
		return // -update would rewrite the file with the wrong content
	}
	r := &recordTB{TB: t}
	CheckGolden(r, "testdata/golden/example.json", map[string]any{"calls": []string{"g"}, "finish": "stop"})
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], `"f"`) || !strings.Contains(r.errors[0], `"g"`) || !strings.Contains(r.errors[0], "(-want +got)") {
		t.Errorf("mismatch reported as %q, want one (-want +got) diff naming f and g", r.errors)
	}
}

// TestAssembleChat: chunks route by id, else by index, else to the last
// call; blank arguments read as {}; arguments that are not JSON make the
// call incomplete with its text kept; events are counted and logged.
func TestAssembleChat(t *testing.T) {
	whole := `{"w":1}`
	evs := []core.Event{
		{Kind: core.EventText, Text: "hi", ID: "r1", Model: "m"},
		{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "a", Name: "f", Index: 0, HasIndex: true, ArgsDelta: `{"x"`}},
		{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "b", Name: "g", Index: 1, HasIndex: true}},
		{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: 0, HasIndex: true, ArgsDelta: `:1}`}},
		{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "c", Name: "h"}},
		{Kind: core.EventCallDelta, Chunk: &core.Chunk{ArgsDelta: `{"y":`}},
		{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "d", Name: "k", Args: &whole}},
		{Kind: core.EventThinking, Text: "t"},
		{Kind: core.EventFinish, Finish: core.FinishToolCalls, ProviderFinish: "tool_calls"},
	}
	got := AssembleChat(evs)
	trunc := `{"y":`
	want := ChatSummary{
		Kind: "stream", ID: "r1", Model: "m", Thinking: "t", Text: "hi",
		Calls:      []ChatCall{{ID: "a", Name: "f", Arguments: json.RawMessage(`{"x":1}`)}, {ID: "b", Name: "g", Arguments: json.RawMessage(`{}`)}, {ID: "d", Name: "k", Arguments: json.RawMessage(whole)}},
		Incomplete: []ChatCall{{ID: "c", Name: "h", Original: &trunc}},
		Finish:     core.FinishToolCalls, ProviderFinish: "tool_calls",
		Events: map[string]int{string(core.EventText): 1, string(core.EventCallStart): 4, string(core.EventCallDelta): 2, string(core.EventThinking): 1, string(core.EventFinish): 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("AssembleChat (-want +got):\n%s", diff)
	}
	log := EventLog(evs[:2])
	wantLog := []string{string(core.EventText), string(core.EventCallStart) + ` id="a" name="f" index=0 has_index=true args="{\"x\""`}
	if diff := cmp.Diff(wantLog, log); diff != "" {
		t.Errorf("EventLog (-want +got):\n%s", diff)
	}
}

// TestSummarizeChatResponse: a repaired call and one without arguments
// keep their original text; incomplete calls are listed.
func TestSummarizeChatResponse(t *testing.T) {
	r := &core.Response{ID: "r", Model: "m", Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{
		{Kind: core.PartThinking, Text: "t"},
		core.TextPart("x"),
		core.CallPart(core.Call{ID: "a", Name: "f", Arguments: json.RawMessage(`{}`)}),
		core.CallPart(core.Call{ID: "b", Name: "g", Arguments: json.RawMessage(`{"a":1}`), Repaired: true, Original: `{"a":1`}),
	}}, Incomplete: []core.Call{{ID: "c", Name: "h", Original: `{"q`}}}
	got := SummarizeChatResponse(r)
	rep, inc := `{"a":1`, `{"q`
	want := ChatSummary{Kind: "response", ID: "r", Model: "m", Thinking: "t", Text: "x",
		Calls:      []ChatCall{{ID: "a", Name: "f", Arguments: json.RawMessage(`{}`)}, {ID: "b", Name: "g", Arguments: json.RawMessage(`{"a":1}`), Repaired: true, Original: &rep}},
		Incomplete: []ChatCall{{ID: "c", Name: "h", Original: &inc}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SummarizeChatResponse (-want +got):\n%s", diff)
	}
}

// TestDrawGenerators: DrawCuts pieces are non-empty, valid UTF-8 and join
// to the text; DrawArgs is a JSON object; DrawText is 1 to 12 runes.
func TestDrawGenerators(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := DrawText(t, "text")
		if n := utf8.RuneCountInString(s); n < 1 || n > 12 {
			t.Fatalf("DrawText gave %d runes: %q", n, s)
		}
		args := DrawArgs(t, "args")
		var m map[string]any
		if err := json.Unmarshal(args, &m); err != nil || m == nil {
			t.Fatalf("DrawArgs gave %s: %v", args, err)
		}
		whole := s + string(args)
		parts := DrawCuts(t, whole)
		if got := strings.Join(parts, ""); got != whole {
			t.Fatalf("cuts join to %q, want %q", got, whole)
		}
		for _, p := range parts {
			if p == "" || !utf8.ValidString(p) {
				t.Fatalf("cut %q of %q is empty or splits a character", p, whole)
			}
		}
	})
	if parts := DrawCuts(nil, ""); parts != nil {
		t.Errorf("DrawCuts of \"\" = %q, want none", parts)
	}
}

// TestCheckJSON: key order and white space make no difference; a changed
// value is one (-want +got) diff.
func TestCheckJSON(t *testing.T) {
	r := &recordTB{TB: t}
	CheckJSON(r, []byte(`{"a":1,"b":[true,null]}`), []byte("{ \"b\": [true, null],\n \"a\": 1 }"))
	if len(r.errors) != 0 {
		t.Errorf("equal JSON reported as %q", r.errors)
	}
	CheckJSON(r, []byte(`{"a":1}`), []byte(`{"a":2}`))
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "(-want +got)") {
		t.Errorf("changed value reported as %q, want one (-want +got) diff", r.errors)
	}
}

// TestFactsOf: errors with the same text differ in their facts when their
// type, place or sentinels differ.
func TestFactsOf(t *testing.T) {
	malformed := fmt.Errorf("bad: %w", core.ErrMalformed)
	own := errors.New("own sentinel")
	placed := &wire.DecodeError{Protocol: "p", Op: "decode stream", Offset: 7, Err: malformed}
	for _, tc := range []struct {
		name string
		a, b error
	}{
		{"sentinel", malformed, errors.New(malformed.Error())},
		{"own sentinel", fmt.Errorf("x: %w", own), fmt.Errorf("x: %v", own)},
		{"type", placed, errors.New(placed.Error())},
	} {
		if tc.a.Error() != tc.b.Error() {
			t.Fatalf("%s: the errors' texts differ: %q, %q", tc.name, tc.a, tc.b)
		}
		if FactsOf(tc.a, own) == FactsOf(tc.b, own) {
			t.Errorf("%s: %v and %v have the same facts %+v", tc.name, tc.a, tc.b, FactsOf(tc.a, own))
		}
	}
	if f := FactsOf(nil); f != (ErrorFacts{}) {
		t.Errorf("FactsOf(nil) = %+v, want the zero facts", f)
	}
	if f := FactsOf(placed); f.Offset != 7 || f.Sentinels != core.ErrMalformed.Error() {
		t.Errorf("FactsOf(%v) = %+v, want offset 7 and the sentinel %q", placed, f, core.ErrMalformed)
	}
}
