package openaichat

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// drain reads a stream to its end, with adaptertest's bound on the number
// of events.
func drain(st core.EventStream) ([]core.Event, error) { return adaptertest.Drain(st) }

// TestCorpusResponses: every recorded response, streaming or not, decodes
// without error, split or whole alike, and gives the calls in the golden
// file.
func TestCorpusResponses(t *testing.T) {
	nResp, nStream, nCalls := 0, 0, 0
	for _, path := range corpusFiles(t, corpusDir) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			exs, err := loadExchanges(path)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			var sums []adaptertest.ChatSummary
			for i, ex := range exs {
				if len(ex.Response) == 0 {
					t.Fatalf("exchange %d: empty response body", i)
				}
				a := New()
				var s adaptertest.ChatSummary
				if ex.Stream {
					evs, err := drain(a.DecodeStream(bytes.NewReader(ex.Response)))
					if err != nil {
						t.Fatalf("exchange %d: decode stream: %v", i, err)
					}
					s = adaptertest.AssembleChat(evs)
					nStream++
				} else {
					resp, err := a.DecodeResponse(ex.Response)
					if err != nil {
						t.Fatalf("exchange %d: decode response: %v", i, err)
					}
					s = adaptertest.SummarizeChatResponse(resp)
					nResp++
				}
				nCalls += len(s.Calls)
				sums = append(sums, s)
			}
			adaptertest.CheckGolden(t, filepath.Join("testdata", "golden", strings.TrimSuffix(name, filepath.Ext(name))+".json"), sums)
		})
	}
	t.Logf("decoded %d responses and %d streams with %d calls", nResp, nStream, nCalls)
	if nCalls < 50 {
		t.Errorf("only %d calls in the whole corpus; the corpus or the decoder is broken", nCalls)
	}
}

// Fields of a recorded request that conform does not model, dropped from
// both sides before comparing, with the normalisations applied to both.
var (
	droppedTop = []string{
		"stream_options", // written from Config, not modelled
		"temperature", "top_p", "seed", "user", "n", "stop", "metadata",
		"usage",            // OpenRouter usage accounting
		"reasoning",        // OpenRouter/Vercel reasoning settings
		"reasoning_effort", // OpenAI reasoning effort
		"provider", "store", "service_tier", "logprobs", "top_logprobs",
		"frequency_penalty", "presence_penalty",
	}
	droppedMessage  = []string{"name", "reasoning_details", "refusal", "annotations", "audio"}
	droppedToolCall = []string{"index"}
)

// normalizeRequest parses a request body and applies the comparison rules:
// drop the unmodelled fields above; max_completion_tokens is max_tokens;
// developer is system; an assistant message with tool_calls and content ""
// or null has no content; a message's "reasoning" is "reasoning_content";
// tool strict false is absent; tool_choice null is absent.
func normalizeRequest(t *testing.T, body []byte) any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("parse request: %v", err)
	}
	for _, k := range droppedTop {
		delete(m, k)
	}
	if v, ok := m["max_completion_tokens"]; ok {
		m["max_tokens"] = v
		delete(m, "max_completion_tokens")
	}
	if v, ok := m["tool_choice"]; ok && v == nil {
		delete(m, "tool_choice")
	}
	if rf, ok := m["response_format"].(map[string]any); ok && rf["type"] != "json_schema" {
		delete(m, "response_format")
	}
	if v, ok := m["stream"]; ok && v == false {
		delete(m, "stream")
	}
	msgs, _ := m["messages"].([]any)
	for _, x := range msgs {
		msg := x.(map[string]any)
		for _, k := range droppedMessage {
			delete(msg, k)
		}
		if msg["role"] == "developer" {
			msg["role"] = "system"
		}
		if r, ok := msg["reasoning"]; ok {
			if _, has := msg["reasoning_content"]; !has {
				msg["reasoning_content"] = r
			}
			delete(msg, "reasoning")
		}
		if tcs, ok := msg["tool_calls"].([]any); ok && len(tcs) > 0 {
			if c, ok := msg["content"]; ok && (c == nil || c == "") {
				delete(msg, "content")
			}
			for _, tc := range tcs {
				for _, k := range droppedToolCall {
					delete(tc.(map[string]any), k)
				}
			}
		}
		if c, ok := msg["content"]; ok && c == nil {
			msg["content"] = ""
		}
	}
	tools, _ := m["tools"].([]any)
	for _, x := range tools {
		fn, _ := x.(map[string]any)["function"].(map[string]any)
		if fn != nil && fn["strict"] == false {
			delete(fn, "strict")
		}
	}
	return m
}

// TestCorpusRequests: every recorded request decodes, re-encodes, and the
// re-encoded JSON equals the original for the modelled fields.
func TestCorpusRequests(t *testing.T) {
	n := 0
	for _, path := range corpusFiles(t, corpusDir) {
		exs, err := loadExchanges(path)
		if err != nil {
			t.Fatalf("%s: load: %v", path, err)
		}
		for i, ex := range exs {
			if ex.Request == nil {
				continue
			}
			n++
			a := New()
			if bytes.Contains(ex.Request, []byte(`"max_completion_tokens"`)) {
				a = New(MaxCompletionTokens())
			}
			req, err := a.DecodeRequest(ex.Request)
			if err != nil {
				t.Errorf("%s #%d: decode: %v", filepath.Base(path), i, err)
				continue
			}
			out, err := a.EncodeRequest(req)
			if err != nil {
				t.Errorf("%s #%d: encode: %v", filepath.Base(path), i, err)
				continue
			}
			if diff := cmp.Diff(normalizeRequest(t, ex.Request), normalizeRequest(t, out)); diff != "" {
				t.Errorf("%s #%d: re-encoded request differs (-recorded +re-encoded):\n%s", filepath.Base(path), i, diff)
			}
		}
	}
	t.Logf("round-tripped %d recorded requests", n)
	if n < 100 {
		t.Errorf("only %d requests found in the corpus", n)
	}
}

// callKeys reduces calls to id, name and compact arguments, for comparing
// the test assembler with core.Collect.
func callKeys(t testing.TB, calls []adaptertest.ChatCall) []string {
	var out []string
	for _, c := range calls {
		var b bytes.Buffer
		if err := json.Compact(&b, c.Arguments); err != nil {
			t.Fatalf("call %q: arguments %q: %v", c.ID, c.Arguments, err)
		}
		out = append(out, c.ID+" "+c.Name+" "+b.String())
	}
	return out
}

// TestCorpusCollect: every recorded stream collected by core.Collect (the
// real Buffer) gives, without error, the calls of the golden files.
func TestCorpusCollect(t *testing.T) {
	n := 0
	for _, rs := range corpusStreams(t) {
		evs, err := drain(New().DecodeStream(bytes.NewReader(rs.body)))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := core.Collect(core.SliceStream(evs))
		if err != nil {
			t.Errorf("%s: collect: %v", rs.name, err)
			continue
		}
		if len(resp.Incomplete) > 0 {
			t.Errorf("%s: incomplete calls %v", rs.name, resp.Incomplete)
		}
		want := callKeys(t, adaptertest.AssembleChat(evs).Calls)
		got := callKeys(t, adaptertest.ChatCalls(resp.Calls()))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: core.Collect calls (-assembler +collect):\n%s", rs.name, diff)
		}
		n++
	}
	if n < 80 {
		t.Errorf("collected only %d streams", n)
	}
}

// TestCorpusStreamReencode: the events of every recorded stream, written
// back by EncodeStream, decode to the same events.
func TestCorpusStreamReencode(t *testing.T) {
	n := 0
	for _, rs := range corpusStreams(t) {
		a := New()
		evs, err := drain(a.DecodeStream(bytes.NewReader(rs.body)))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := a.EncodeStream(&buf, evs); err != nil {
			t.Fatalf("%s: encode: %v", rs.name, err)
		}
		again, err := drain(a.DecodeStream(&buf))
		if err != nil {
			t.Fatalf("%s: decode re-encoded: %v", rs.name, err)
		}
		if diff := cmp.Diff(evs, again); diff != "" {
			t.Errorf("%s: re-encoded stream differs (-recorded +re-encoded):\n%s", rs.name, diff)
		}
		n++
	}
	if n < 80 {
		t.Errorf("re-encoded only %d streams", n)
	}
}
