package openairesponses

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
	"github.com/toolconform/conform/providers/internal/jsonstr"
	"pgregory.net/rapid"
)

// doneItem is an output item read back from response.completed, its text
// fields unquoted byte for byte.
type doneItem struct {
	Type, ID, Status, CallID, Name, Args, Text, Encrypted string
}

type rawItem struct {
	Type             string          `json:"type"`
	ID               string          `json:"id"`
	Status           string          `json:"status"`
	Role             string          `json:"role"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Arguments        json.RawMessage `json:"arguments"`
	EncryptedContent json.RawMessage `json:"encrypted_content"`
	Content          []struct {
		Type string          `json:"type"`
		Text json.RawMessage `json:"text"`
	} `json:"content"`
	Summary []struct {
		Type string          `json:"type"`
		Text json.RawMessage `json:"text"`
	} `json:"summary"`
}

type completedResp struct {
	Status string    `json:"status"`
	Output []rawItem `json:"output"`
	Usage  *struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
}

// fataler is the part of testing.TB and *rapid.T the helpers use.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

func unquote(t fataler, raw json.RawMessage) string {
	t.Helper()
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	s, err := jsonstr.UnquoteRaw(raw)
	if err != nil {
		t.Fatalf("unquote %s: %v", raw, err)
	}
	return s
}

// terminalOf finds the one terminal event (response.completed, incomplete
// or failed) in an encoded stream and returns its response, flattened.
func terminalOf(t fataler, stream string) (completedResp, []doneItem) {
	t.Helper()
	var found []completedResp
	for _, line := range strings.Split(stream, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type     string         `json:"type"`
			Response *completedResp `json:"response"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		switch ev.Type {
		case "response.completed", "response.incomplete", "response.failed":
			found = append(found, *ev.Response)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d terminal events, want 1:\n%s", len(found), stream)
	}
	var items []doneItem
	for i, r := range found[0].Output {
		d := doneItem{Type: r.Type, ID: r.ID, Status: r.Status, CallID: r.CallID, Name: r.Name, Args: unquote(t, r.Arguments), Encrypted: unquote(t, r.EncryptedContent)}
		switch r.Type {
		case "message":
			if r.Role != "assistant" || len(r.Content) != 1 || r.Content[0].Type != "output_text" {
				t.Fatalf("output[%d]: message role %q content %+v; want one output_text from the assistant", i, r.Role, r.Content)
			}
			d.Text = unquote(t, r.Content[0].Text)
		case "reasoning":
			for _, s := range r.Summary {
				if s.Type != "summary_text" {
					t.Fatalf("output[%d]: summary type %q", i, s.Type)
				}
				d.Text += unquote(t, s.Text)
			}
		}
		items = append(items, d)
	}
	return found[0], items
}

// TestEncodeStreamCompletedOutput checks that the terminal event carries
// every output item built from the events, in output-index order, and the
// usage, as real streams do (SDKs read the final answer from it).
func TestEncodeStreamCompletedOutput(t *testing.T) {
	args := `{"city":"Paris"}`
	tests := []struct {
		name   string
		events []core.Event
		status string
		want   []doneItem
	}{
		{"text", []core.Event{
			{Kind: core.EventText, Text: "Hel", ID: "resp_1", Model: "gpt"},
			{Kind: core.EventText, Text: "lo <b>"},
			{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: 3, OutputTokens: 4}},
			{Kind: core.EventFinish, Finish: core.FinishStop, ProviderFinish: "completed"},
		}, "completed", []doneItem{{Type: "message", ID: "msg_0", Status: "completed", Text: "Hello <b>"}}},
		{"reasoning then call", []core.Event{
			{Kind: core.EventThinking, Text: "think", ItemID: "rs_a"},
			{Kind: core.EventThinking, Text: "ing", ItemID: "rs_a"},
			{Kind: core.EventThinking, Signature: "ENC", ItemID: "rs_a"},
			{Kind: core.EventCallStart, Chunk: &core.Chunk{ItemID: "fc_b", ID: "call_b", Name: "weather", ArgsDelta: `{"city":`}},
			{Kind: core.EventCallDelta, Chunk: &core.Chunk{ItemID: "fc_b", ArgsDelta: `"Paris"}`}},
			{Kind: core.EventCallEnd, Chunk: &core.Chunk{ItemID: "fc_b"}},
			{Kind: core.EventFinish, Finish: core.FinishToolCalls, ProviderFinish: "completed"},
		}, "completed", []doneItem{
			{Type: "reasoning", ID: "rs_a", Status: "completed", Text: "thinking", Encrypted: "ENC"},
			{Type: "function_call", ID: "fc_b", Status: "completed", CallID: "call_b", Name: "weather", Args: args},
		}},
		{"end args override deltas and index order", []core.Event{
			{Kind: core.EventCallStart, Chunk: &core.Chunk{HasIndex: true, Index: 2, ID: "call_2", Name: "g"}},
			{Kind: core.EventCallStart, Chunk: &core.Chunk{HasIndex: true, Index: 1, ID: "call_1", Name: "f", ArgsDelta: "{"}},
			{Kind: core.EventCallEnd, Chunk: &core.Chunk{ID: "call_1", Args: &args}},
			{Kind: core.EventCallEnd, Chunk: &core.Chunk{ID: "call_2"}},
			{Kind: core.EventText, Text: "done"},
			{Kind: core.EventFinish, Finish: core.FinishToolCalls, ProviderFinish: "completed"},
		}, "completed", []doneItem{
			{Type: "message", ID: "msg_0", Status: "completed", Text: "done"},
			{Type: "function_call", ID: "fc_1", Status: "completed", CallID: "call_1", Name: "f", Args: args},
			{Type: "function_call", ID: "fc_2", Status: "completed", CallID: "call_2", Name: "g"},
		}},
		{"call cut by the limit", []core.Event{
			{Kind: core.EventCallStart, Chunk: &core.Chunk{ID: "call_x", Name: "f", ArgsDelta: `{"q":`}},
			{Kind: core.EventFinish, Finish: core.FinishLength, ProviderFinish: "max_output_tokens"},
		}, "incomplete", []doneItem{{Type: "function_call", ID: "fc_0", Status: "incomplete", CallID: "call_x", Name: "f", Args: `{"q":`}}},
		{"nothing", []core.Event{
			{Kind: core.EventFinish, Finish: core.FinishStop, ProviderFinish: "completed"},
		}, "completed", nil},
	}
	a := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := a.EncodeStream(&buf, tt.events); err != nil {
				t.Fatalf("EncodeStream: %v", err)
			}
			r, got := terminalOf(t, buf.String())
			if r.Status != tt.status {
				t.Errorf("status %q, want %q", r.Status, tt.status)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("completed output (-want +got):\n%s\nstream:\n%s", diff, buf.String())
			}
			for _, e := range tt.events {
				if e.Kind == core.EventUsage {
					if r.Usage == nil || r.Usage.InputTokens != e.Usage.InputTokens || r.Usage.OutputTokens != e.Usage.OutputTokens ||
						r.Usage.TotalTokens != e.Usage.InputTokens+e.Usage.OutputTokens {
						t.Errorf("usage %+v, want %+v", r.Usage, e.Usage)
					}
				}
			}
		})
	}
}

// TestPropCompletedMatchesEvents checks, on generated streams, that the
// terminal event's output agrees with what DecodeStream reads from the same
// bytes: the message text and reasoning summaries joined equal the text and
// thinking deltas joined, and every ended call is listed, completed, with
// its call id, name and final arguments.
func TestPropCompletedMatchesEvents(t *testing.T) {
	a := New()
	rapid.Check(t, func(t *rapid.T) {
		evs := genEvents(t)
		hasFinish := false
		for _, e := range evs {
			hasFinish = hasFinish || e.Kind == core.EventFinish
		}
		var buf bytes.Buffer
		if err := a.EncodeStream(&buf, evs); err != nil {
			t.Fatalf("EncodeStream: %v", err)
		}
		if !hasFinish {
			// An error ends the stream: no terminal response may claim an answer.
			for _, typ := range []string{"response.completed", "response.incomplete", "response.failed"} {
				if strings.Contains(buf.String(), `"type":"`+typ+`"`) {
					t.Fatalf("stream without a finish has %s:\n%s", typ, buf.String())
				}
			}
			return
		}
		got, err := adaptertest.Drain(a.DecodeStream(bytes.NewReader(buf.Bytes())))
		if err != nil {
			t.Fatalf("DecodeStream: %v", err)
		}
		_, items := terminalOf(t, buf.String())
		var text, thinking, outText, outThinking strings.Builder
		type call struct{ CallID, Name, Args string }
		want, have, ended := map[string]call{}, map[string]call{}, map[string]bool{}
		for _, e := range got {
			switch e.Kind {
			case core.EventText:
				text.WriteString(e.Text)
			case core.EventThinking:
				thinking.WriteString(e.Text)
			case core.EventCallStart:
				want[e.Chunk.ItemID] = call{CallID: e.Chunk.ID, Name: e.Chunk.Name}
			case core.EventCallEnd:
				c := want[e.Chunk.ItemID]
				c.Args = *e.Chunk.Args
				want[e.Chunk.ItemID] = c
				ended[e.Chunk.ItemID] = true
			}
		}
		for _, it := range items {
			switch it.Type {
			case "message":
				outText.WriteString(it.Text)
			case "reasoning":
				outThinking.WriteString(it.Text)
			case "function_call":
				if it.Status == "completed" {
					have[it.ID] = call{CallID: it.CallID, Name: it.Name, Args: it.Args}
				}
			}
		}
		if text.String() != outText.String() || thinking.String() != outThinking.String() {
			t.Errorf("text %q thinking %q; completed output has %q and %q", text.String(), thinking.String(), outText.String(), outThinking.String())
		}
		for id := range want {
			if !ended[id] {
				delete(want, id) // never ended: not a completed call
			}
		}
		if diff := cmp.Diff(want, have); diff != "" {
			t.Errorf("completed calls (-decoded +completed output):\n%s\nstream:\n%s", diff, buf.String())
		}
	})
}
