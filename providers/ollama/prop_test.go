package ollama

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
	"pgregory.net/rapid"
)

var (
	genName = rapid.StringMatching(`[a-z][a-z_]{0,9}`)
	genText = rapid.StringN(1, 40, -1)
	genID   = rapid.OneOf(rapid.Just(""), rapid.StringMatching(`call_[a-z0-9]{8}`))
)

func genArgs(t *rapid.T, label string) string {
	m := map[string]any{}
	for i := rapid.IntRange(0, 3).Draw(t, label+"_n"); i > 0; i-- {
		k := rapid.StringMatching(`[a-z]{1,6}`).Draw(t, label+"_k")
		switch rapid.IntRange(0, 2).Draw(t, label+"_kind") {
		case 0:
			m[k] = rapid.String().Draw(t, label+"_s")
		case 1:
			m[k] = rapid.IntRange(-1000, 1000).Draw(t, label+"_i")
		default:
			m[k] = map[string]any{"nested": rapid.Bool().Draw(t, label+"_b")}
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// genEvents draws events in the normal form DecodeStream produces: text,
// thinking and whole calls (ids as Ollama sends them or generated in stream
// order), then optionally an error, then optionally usage and a finish
// (Ollama writes both on the done line).
func genEvents(t *rapid.T) []core.Event {
	var evs []core.Event
	calls := 0
	for i := rapid.IntRange(0, 6).Draw(t, "n"); i > 0; i-- {
		switch rapid.IntRange(0, 2).Draw(t, "kind") {
		case 0:
			evs = append(evs, core.Event{Kind: core.EventText, Text: genText.Draw(t, "text")})
		case 1:
			evs = append(evs, core.Event{Kind: core.EventThinking, Text: genText.Draw(t, "think")})
		default:
			id := genID.Draw(t, "id")
			if id == "" {
				id = GeneratedIDPrefix + itoa(calls)
			}
			ch := core.Chunk{ID: id}
			if rapid.Bool().Draw(t, "hasindex") {
				ch.Index, ch.HasIndex = calls, true
			}
			start, end := ch, ch
			start.Name, start.Start = genName.Draw(t, "name"), true
			args := genArgs(t, "args")
			end.Done, end.Args = true, &args
			evs = append(evs, core.Event{Kind: core.EventCallStart, Chunk: &start}, core.Event{Kind: core.EventCallEnd, Chunk: &end})
			calls++
		}
	}
	if rapid.Bool().Draw(t, "error") {
		evs = append(evs, core.Event{Kind: core.EventError, Error: &core.ProviderError{Message: genText.Draw(t, "emsg")}})
	} else if rapid.Bool().Draw(t, "done") {
		// The done line always has counts: a stream without usage is
		// written, and read back, with zero counts.
		u := &core.Usage{}
		if rapid.Bool().Draw(t, "usage") {
			u = &core.Usage{InputTokens: rapid.IntRange(0, 1e6).Draw(t, "in"), OutputTokens: rapid.IntRange(0, 1e6).Draw(t, "out")}
		}
		evs = append(evs, core.Event{Kind: core.EventUsage, Usage: u})
		raw := rapid.SampledFrom([]string{"stop", "length", "load", "unload"}).Draw(t, "raw")
		evs = append(evs, core.Event{Kind: core.EventFinish, Finish: NormalizeFinish(raw, calls > 0), ProviderFinish: raw})
	}
	if len(evs) > 0 && rapid.Bool().Draw(t, "model") {
		evs[0].Model = "qwen3"
	}
	return evs
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestPropStreamRoundTrip(t *testing.T) {
	a := New()
	adaptertest.CheckStreamRoundTrip(t, a, genEvents, cmpopts.EquateEmpty())
}

func TestPropResponseRoundTrip(t *testing.T) {
	a := New()
	rapid.Check(t, func(t *rapid.T) {
		want := &core.Response{Message: core.Message{Role: core.RoleAssistant}}
		if rapid.Bool().Draw(t, "thinks") {
			want.Message.Parts = append(want.Message.Parts, core.Part{Kind: core.PartThinking, Text: genText.Draw(t, "think")})
		}
		if rapid.Bool().Draw(t, "says") {
			want.Message.Parts = append(want.Message.Parts, core.TextPart(genText.Draw(t, "text")))
		}
		n := rapid.IntRange(0, 3).Draw(t, "ncalls")
		for k := 0; k < n; k++ {
			id := genID.Draw(t, "id")
			if id == "" {
				id = GeneratedIDPrefix + itoa(k)
			}
			want.Message.Parts = append(want.Message.Parts, core.CallPart(core.Call{ID: id, Name: genName.Draw(t, "name"), Arguments: json.RawMessage(genArgs(t, "args"))}))
		}
		raw := rapid.SampledFrom([]string{"stop", "length", "load"}).Draw(t, "raw")
		want.Finish, want.ProviderFinish = NormalizeFinish(raw, n > 0), raw
		// A done body always has counts: none read back as zero counts.
		want.Usage = &core.Usage{}
		if rapid.Bool().Draw(t, "usage") {
			want.Usage = &core.Usage{InputTokens: rapid.IntRange(0, 1e6).Draw(t, "in"), OutputTokens: rapid.IntRange(0, 1e6).Draw(t, "out")}
		}
		want.Model = rapid.SampledFrom([]string{"", "llama3.2"}).Draw(t, "model")
		body, err := a.EncodeResponse(want)
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.DecodeResponse(body)
		if err != nil {
			t.Fatalf("DecodeResponse: %v\n%s", err, body)
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("response (-want +got):\n%s", diff)
		}
	})
}

// TestPropRequestRoundTrip checks decode ∘ encode = identity on requests in
// the form Ollama carries: one text part per user or system message, at
// most one thinking and one text part per assistant message, one tool
// message per assistant turn with results named after their calls, no tool
// choice or parallel flag.
func TestPropRequestRoundTrip(t *testing.T) {
	a := New()
	rapid.Check(t, func(t *rapid.T) {
		want := &core.Request{Model: "llama3.2", Stream: rapid.Bool().Draw(t, "stream")}
		if rapid.Bool().Draw(t, "system") {
			want.Messages = append(want.Messages, core.Message{Role: core.RoleSystem, Parts: []core.Part{core.TextPart(genText.Draw(t, "sys"))}})
		}
		for turn, n := 0, rapid.IntRange(1, 3).Draw(t, "turns"); turn < n; turn++ {
			want.Messages = append(want.Messages, core.Message{Role: core.RoleUser, Parts: []core.Part{core.TextPart(genText.Draw(t, "user"))}})
			asst := core.Message{Role: core.RoleAssistant}
			if rapid.Bool().Draw(t, "thinks") {
				asst.Parts = append(asst.Parts, core.Part{Kind: core.PartThinking, Text: genText.Draw(t, "think")})
			}
			if rapid.Bool().Draw(t, "says") {
				asst.Parts = append(asst.Parts, core.TextPart(genText.Draw(t, "text")))
			}
			mi := turn
			var calls []core.Call
			for k, nc := 0, rapid.IntRange(0, 3).Draw(t, "ncalls"); k < nc; k++ {
				id := genID.Draw(t, "id")
				if id == "" {
					id = GeneratedIDPrefix + itoa(mi) + "_" + itoa(k)
				}
				c := core.Call{ID: id, Name: genName.Draw(t, "name"), Arguments: json.RawMessage(genArgs(t, "args"))}
				calls = append(calls, c)
				asst.Parts = append(asst.Parts, core.CallPart(c))
			}
			if len(asst.Parts) == 0 {
				asst.Parts = append(asst.Parts, core.TextPart("ok"))
			}
			want.Messages = append(want.Messages, asst)
			if len(calls) > 0 {
				tool := core.Message{Role: core.RoleTool}
				for _, c := range calls {
					tool.Parts = append(tool.Parts, core.ResultPart(core.Result{CallID: c.ID, Name: c.Name, Content: []core.Part{core.TextPart(rapid.String().Draw(t, "result"))}}))
				}
				want.Messages = append(want.Messages, tool)
			}
		}
		if rapid.Bool().Draw(t, "tools") {
			want.Tools = []core.ToolSpec{{Name: "f", Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"}}}`)}}
		}
		switch rapid.IntRange(0, 2).Draw(t, "format") {
		case 1:
			want.ResponseFormat = &core.ResponseFormat{}
		case 2:
			want.ResponseFormat = &core.ResponseFormat{Schema: json.RawMessage(`{"type":"object"}`)}
		}
		want.MaxTokens = rapid.IntRange(0, 4096).Draw(t, "max")
		body, err := a.EncodeRequest(want)
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.DecodeRequest(body)
		if err != nil {
			t.Fatalf("DecodeRequest: %v\n%s", err, body)
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("request (-want +got):\n%s\n%s", diff, body)
		}
	})
}

// TestPropSplitStreams checks that the fixture streams give the same events
// whatever the sizes of the reads that deliver them.
func TestPropSplitStreams(t *testing.T) {
	a := New()
	var bodies [][]byte
	for _, name := range fixtures(t, ".ndjson") {
		b, err := os.ReadFile(filepath.Join(fixtureDir, name))
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	adaptertest.CheckSplitStreams(t, bodies, func(r io.Reader) core.EventStream { return a.DecodeStream(r) })
}

func FuzzDecodeStream(f *testing.F) {
	for _, name := range fixtures(f, ".ndjson") {
		b, err := os.ReadFile(filepath.Join(fixtureDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("{\"message\":{\"tool_calls\":[{\"function\":{\"arguments\":\"\\\"x\\\"\"}}]}}\n"))
	f.Add([]byte("{\"done\":true}\n{\"done\":true}\n{"))
	f.Add([]byte("\r\n\r\n{\"error\":1}"))
	a := New(WithMaxLine(1 << 12))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := a.DecodeStream(bytes.NewReader(data))
		for n := 0; ; n++ {
			ev, err := s.Next()
			if err != nil {
				break
			}
			if n > len(data)+4 {
				t.Fatalf("%d events from %d bytes", n, len(data))
			}
			if ev.Kind == core.EventCallEnd && (ev.Chunk == nil || ev.Chunk.Args == nil || !json.Valid([]byte(*ev.Chunk.Args))) {
				t.Fatalf("call_end without valid arguments: %+v", ev)
			}
		}
		adaptertest.CheckVouches(t, a.DecodeStream(bytes.NewReader(data)), len(data)+8)
		adaptertest.CheckCollectReused(t, [][]byte{data}, a.DecodeStream)
	})
}

func FuzzDecodeResponse(f *testing.F) {
	for _, name := range fixtures(f, ".json") {
		b, err := os.ReadFile(filepath.Join(fixtureDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"message":{"tool_calls":[{"function":{"name":"f","arguments":"{\"a\":1}"}}]},"done":true}`))
	f.Add([]byte(`{"message":{"tool_calls":[{"function":{"arguments":[]}}]}}`))
	a := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		resp, err := a.DecodeResponse(data)
		if err != nil {
			return
		}
		body, err := a.EncodeResponse(resp)
		if err != nil {
			t.Fatalf("EncodeResponse of a decoded response: %v", err)
		}
		again, err := a.DecodeResponse(body)
		if err != nil {
			t.Fatalf("DecodeResponse of an encoded response: %v\n%s", err, body)
		}
		if len(again.Calls()) != len(resp.Calls()) || again.Text() != resp.Text() || again.Finish != resp.Finish {
			t.Fatalf("round trip changed the response:\n%+v\n%+v", resp, again)
		}
		// Arguments are compared as JSON values: the encoder writes "<",
		// ">" and "&" as \u escapes, as encoding/json does, which is the
		// same object.
		for i, c := range resp.Calls() {
			if d := again.Calls()[i]; d.Name != c.Name || !sameJSON(d.Arguments, c.Arguments) {
				t.Errorf("call %d changed: %+v -> %+v", i, c, d)
			}
		}
	})
}

// sameJSON reports whether a and b hold the same JSON value, numbers
// compared by their spelling.
func sameJSON(a, b json.RawMessage) bool {
	var va, vb any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	return da.Decode(&va) == nil && db.Decode(&vb) == nil && cmp.Equal(va, vb)
}
