package ollama

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

const fixtureDir = "testdata/fixtures"

// streamCalls assembles the calls of this adapter's events (whole calls,
// start then end, routed by id). Calls with no end are incomplete.
func streamCalls(evs []core.Event) (calls []core.Call) {
	var cur *core.Call
	for _, ev := range evs {
		switch ev.Kind {
		case core.EventCallStart:
			cur = &core.Call{ID: ev.Chunk.ID, Name: ev.Chunk.Name}
		case core.EventCallEnd:
			if cur != nil && ev.Chunk.ID == cur.ID && ev.Chunk.Args != nil {
				cur.Arguments = json.RawMessage(*ev.Chunk.Args)
				calls = append(calls, *cur)
			}
			cur = nil
		}
	}
	return calls
}

func fixtures(t testing.TB, suffix string) []string {
	entries, err := os.ReadDir(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), suffix) && (suffix != ".json" || !strings.HasSuffix(e.Name(), ".req.json")) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		t.Fatalf("no %s fixtures", suffix)
	}
	return out
}

type golden struct {
	Request  *core.Request  `json:"request,omitempty"`
	Response *core.Response `json:"response,omitempty"`
	Events   []core.Event   `json:"events,omitempty"`
	Calls    []core.Call    `json:"calls"`
}

// TestFixturesGolden decodes every constructed fixture and compares the
// result with testdata/golden/<name>.json (written with -update and read
// against the fixture bytes).
func TestFixturesGolden(t *testing.T) {
	a := New()
	var names []string
	for _, s := range []string{".req.json", ".json", ".ndjson"} {
		names = append(names, fixtures(t, s)...)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join(fixtureDir, name))
			if err != nil {
				t.Fatal(err)
			}
			var g golden
			switch {
			case strings.HasSuffix(name, ".req.json"):
				g.Request, err = a.DecodeRequest(body)
				for _, m := range g.Request.Messages {
					g.Calls = append(g.Calls, m.Calls()...)
				}
			case strings.HasSuffix(name, ".ndjson"):
				g.Events, err = adaptertest.Drain(a.DecodeStream(bytes.NewReader(body)))
				g.Calls = streamCalls(g.Events)
			default:
				g.Response, err = a.DecodeResponse(body)
				if g.Response != nil {
					g.Calls = g.Response.Calls()
				}
			}
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			adaptertest.CheckGolden(t, filepath.Join("testdata", "golden", strings.TrimSuffix(name, filepath.Ext(name))+".golden.json"), g)
		})
	}
}

// droppedRequestFields are the request fields conform does not model,
// removed before comparing a fixture request with its re-encoding.
var droppedRequestFields = []string{"think", "keep_alive", "options.temperature", "messages[].tool_calls[].function.index"}

func TestFixtureRequestRoundTrip(t *testing.T) {
	a := New()
	for _, name := range fixtures(t, ".req.json") {
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join(fixtureDir, name))
			if err != nil {
				t.Fatal(err)
			}
			req, err := a.DecodeRequest(body)
			if err != nil {
				t.Fatal(err)
			}
			again, err := a.EncodeRequest(req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(normalize(t, body), normalize(t, again)); diff != "" {
				t.Errorf("re-encoded request differs (-want +got):\n%s", diff)
			}
		})
	}
}

func normalize(t *testing.T, body []byte) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "think")
	delete(m, "keep_alive")
	if o, ok := m["options"].(map[string]any); ok {
		delete(o, "temperature")
		if len(o) == 0 {
			delete(m, "options")
		}
	}
	msgs, _ := m["messages"].([]any)
	for _, msg := range msgs {
		tcs, _ := msg.(map[string]any)["tool_calls"].([]any)
		for _, tc := range tcs {
			delete(tc.(map[string]any)["function"].(map[string]any), "index")
		}
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	return string(b)
}

func TestDecodeResponseFailureModes(t *testing.T) {
	type call struct{ ID, Name, Args, Original string }
	tests := []struct {
		name       string
		body       string
		want       []call
		repaired   []bool
		finish     core.FinishReason
		raw        string
		wantErrMsg string
		cutErr     string // the error of a body that is a cut stream
	}{
		{
			name:   "C04 arguments as an object",
			body:   `{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]},"done":true,"done_reason":"stop"}`,
			want:   []call{{"ollama_call_0", "f", `{"a":1}`, ""}},
			finish: core.FinishToolCalls, raw: "stop",
		},
		{
			name:     "C05 arguments as a string holding JSON are unwrapped and reported",
			body:     `{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":"{\"a\": 1}"}}]},"done":true,"done_reason":"stop"}`,
			want:     []call{{"ollama_call_0", "f", `{"a":1}`, `{"a": 1}`}},
			repaired: []bool{true},
			finish:   core.FinishToolCalls, raw: "stop",
		},
		{
			name:   "D07 identical calls are both kept with distinct ids",
			body:   `{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}},{"function":{"name":"f","arguments":{"a":1}}}]},"done":true,"done_reason":"stop"}`,
			want:   []call{{"ollama_call_0", "f", `{"a":1}`, ""}, {"ollama_call_1", "f", `{"a":1}`, ""}},
			finish: core.FinishToolCalls, raw: "stop",
		},
		{
			name:   "newer ids are kept",
			body:   `{"message":{"role":"assistant","content":"","tool_calls":[{"id":"call_x","function":{"index":0,"name":"f","arguments":{}}}]},"done":true,"done_reason":"stop"}`,
			want:   []call{{"call_x", "f", `{}`, ""}},
			finish: core.FinishToolCalls, raw: "stop",
		},
		{
			name:   "null arguments are {}",
			body:   `{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":null}}]},"done":true,"done_reason":"stop"}`,
			want:   []call{{"ollama_call_0", "f", `{}`, ""}},
			finish: core.FinishToolCalls, raw: "stop",
		},
		{name: "stop without calls", body: `{"message":{"role":"assistant","content":"hi"},"done":true,"done_reason":"stop"}`, finish: core.FinishStop, raw: "stop"},
		{name: "length", body: `{"message":{"role":"assistant","content":"hi"},"done":true,"done_reason":"length"}`, finish: core.FinishLength, raw: "length"},
		{name: "load is other", body: `{"message":{"role":"assistant","content":""},"done":true,"done_reason":"load"}`, finish: core.FinishOther, raw: "load"},
		// A stream line given as a whole body: cut, an error, with the
		// call it carried.
		{
			name:   "not done is a cut stream",
			body:   `{"message":{"role":"assistant","content":"par","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]},"done":false}`,
			want:   []call{{"ollama_call_0", "f", `{"a":1}`, ""}},
			cutErr: "ollama: decode response: at done: false: a stream line cut before its done line, not a whole response: stream ended early",
		},
		{name: "error body", body: `{"error":"model not found"}`, finish: core.FinishError, wantErrMsg: "model not found"},
	}
	a := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := a.DecodeResponse([]byte(tt.body))
			switch {
			case tt.cutErr != "":
				if err == nil || err.Error() != tt.cutErr || !errors.Is(err, core.ErrTruncated) {
					t.Errorf("error %v, want %q wrapping core.ErrTruncated", err, tt.cutErr)
				}
			case err != nil:
				t.Fatal(err)
			}
			var got []call
			var rep []bool
			for _, c := range resp.Calls() {
				got = append(got, call{c.ID, c.Name, string(c.Arguments), c.Original})
				rep = append(rep, c.Repaired)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if tt.repaired != nil {
				if diff := cmp.Diff(tt.repaired, rep); diff != "" {
					t.Errorf("repaired flags (-want +got):\n%s", diff)
				}
			} else {
				for _, r := range rep {
					if r {
						t.Errorf("a call is marked repaired")
					}
				}
			}
			if resp.Finish != tt.finish || resp.ProviderFinish != tt.raw {
				t.Errorf("finish %q/%q, want %q/%q", resp.Finish, resp.ProviderFinish, tt.finish, tt.raw)
			}
			if tt.wantErrMsg != "" && (resp.Error == nil || resp.Error.Message != tt.wantErrMsg) {
				t.Errorf("error = %+v, want message %q", resp.Error, tt.wantErrMsg)
			}
		})
	}
}

func TestDecodeBadInput(t *testing.T) {
	tests := []struct {
		name, body, wantIn string
	}{
		{"C05 string that is not an object", `{"message":{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":"a=1"}}]}}`, "message.tool_calls[0].function.arguments"},
		{"array arguments", `{"message":{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":[1]}}]}}`, "must be a JSON object, got an array"},
		{"syntax error offset", `{"message":{"role":}}`, "at byte 19"},
		{"truncated", `{"message":{"role":"assistant"`, "ollama: decode response: at byte"},
	}
	a := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := a.DecodeResponse([]byte(tt.body))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, core.ErrMalformed) || !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("error %q: want core.ErrMalformed mentioning %q", err, tt.wantIn)
			}
		})
	}
}

func TestDecodeStream(t *testing.T) {
	s := func(v string) *string { return &v }
	tests := []struct {
		name string
		body string
		want []core.Event
	}{
		{
			name: "A15 D07 whole identical calls in one line, then done",
			body: `{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}},{"function":{"name":"f","arguments":{"a":1}}}]},"done":false}` + "\n" +
				`{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":5,"eval_count":7}` + "\n",
			want: []core.Event{
				{Kind: core.EventCallStart, Model: "m", Chunk: &core.Chunk{ID: "ollama_call_0", Name: "f", Start: true}},
				{Kind: core.EventCallEnd, Chunk: &core.Chunk{ID: "ollama_call_0", Done: true, Args: s(`{"a":1}`)}},
				{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "ollama_call_1", Name: "f", Start: true}},
				{Kind: core.EventCallEnd, Chunk: &core.Chunk{ID: "ollama_call_1", Done: true, Args: s(`{"a":1}`)}},
				{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: 5, OutputTokens: 7}},
				{Kind: core.EventFinish, Finish: core.FinishToolCalls, ProviderFinish: "stop"},
			},
		},
		{
			name: "C05 double-encoded arguments pass through as sent, CRLF and blank lines",
			body: "{\"message\":{\"role\":\"assistant\",\"thinking\":\"hm\",\"content\":\"ok\",\"tool_calls\":[{\"id\":\"c1\",\"function\":{\"index\":3,\"name\":\"f\",\"arguments\":\"{\\\"a\\\":1}\"}}]}}\r\n\r\n  \n{\"error\":\"boom\"}",
			want: []core.Event{
				{Kind: core.EventThinking, Text: "hm"},
				{Kind: core.EventText, Text: "ok"},
				{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "c1", Index: 3, HasIndex: true, Name: "f", Start: true}},
				{Kind: core.EventCallEnd, Chunk: &core.Chunk{ID: "c1", Index: 3, HasIndex: true, Done: true, Args: s(`"{\"a\":1}"`)}},
				{Kind: core.EventError, Error: &core.ProviderError{Message: "boom"}},
			},
		},
	}
	a := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := adaptertest.Drain(a.DecodeStream(strings.NewReader(tt.body)))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeStreamErrors(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		opts       []Option
		wantEvents int
		wantIs     error
		wantIn     string
	}{
		{"malformed second line names its offset", `{"message":{"role":"assistant","content":"a"}}` + "\n" + `{"message":}` + "\n", nil, 1, core.ErrMalformed, "at byte 58"},
		{"line too long", `{"message":{"role":"assistant","content":"` + strings.Repeat("x", 200) + `"}}`, []Option{WithMaxLine(64)}, 0, core.ErrTooLarge, "at byte 0"},
		{"bad arguments", `{"message":{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":7}}]}}`, nil, 0, core.ErrMalformed, "message.tool_calls[0].function.arguments"},
		{"not an object", "[1,2]\n", nil, 0, core.ErrMalformed, "at byte"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := adaptertest.Drain(New(tt.opts...).DecodeStream(strings.NewReader(tt.body)))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, tt.wantIs) || !strings.Contains(err.Error(), tt.wantIn) || !strings.HasPrefix(err.Error(), "ollama: decode stream") {
				t.Errorf("error %q: want %v with %q", err, tt.wantIs, tt.wantIn)
			}
			if len(evs) != tt.wantEvents {
				t.Errorf("%d events before the error, want %d", len(evs), tt.wantEvents)
			}
		})
	}
}

func TestEncodeRequestToolResults(t *testing.T) {
	a := New()
	req := &core.Request{Messages: []core.Message{
		{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}},
		{Role: core.RoleAssistant, Parts: []core.Part{
			core.CallPart(core.Call{ID: "ollama_call_0", Name: "f", Arguments: json.RawMessage(`{"a":1}`)}),
			core.CallPart(core.Call{ID: "call_9", Name: "g", Arguments: json.RawMessage(`{}`)}),
		}},
		{Role: core.RoleTool, Parts: []core.Part{
			core.ResultPart(core.Result{CallID: "ollama_call_0", Content: []core.Part{core.TextPart("1")}}),
			core.ResultPart(core.Result{CallID: "call_9", Content: []core.Part{core.TextPart("2")}}),
		}},
	}}
	body, err := a.EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}},{"id":"call_9","function":{"name":"g","arguments":{}}}]},{"role":"tool","content":"1","tool_name":"f"},{"role":"tool","content":"2","tool_name":"g","tool_call_id":"call_9"}],"stream":false}`
	if string(body) != want {
		t.Errorf("body:\n%s\nwant:\n%s", body, want)
	}
	back, err := a.DecodeRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	calls, results := back.Messages[1].Calls(), back.Messages[2].Results()
	if len(results) != 2 || results[0].CallID != calls[0].ID || results[1].CallID != "call_9" {
		t.Errorf("pairing lost: calls %+v results %+v", calls, results)
	}
	bad := &core.Request{Messages: []core.Message{{Role: core.RoleAssistant, Parts: []core.Part{core.CallPart(core.Call{ID: "x", Name: "f", Arguments: json.RawMessage(`"{}"`)})}}}}
	if _, err := a.EncodeRequest(bad); err == nil || !strings.Contains(err.Error(), "messages[0].parts[0].call.arguments") {
		t.Errorf("string arguments: err = %v", err)
	}
}
