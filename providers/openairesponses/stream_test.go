package openairesponses

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

func sseOf(payloads ...string) string {
	var b strings.Builder
	for _, p := range payloads {
		b.WriteString("data: ")
		b.WriteString(p)
		b.WriteString("\n\n")
	}
	return b.String()
}

const (
	created   = `{"type":"response.created","response":{"id":"resp_1","model":"gpt","status":"in_progress","output":[]}}`
	completed = `{"type":"response.completed","response":{"id":"resp_1","status":"completed","usage":{"input_tokens":5,"output_tokens":6}}}`
)

func added(idx, itemID, callID string) string {
	return `{"type":"response.output_item.added","output_index":` + idx + `,"item":{"id":"` + itemID + `","type":"function_call","status":"in_progress","arguments":"","call_id":"` + callID + `","name":"f"}}`
}

func argDelta(idx, itemID, delta string) string {
	return `{"type":"response.function_call_arguments.delta","item_id":"` + itemID + `","output_index":` + idx + `,"delta":` + delta + `,"obfuscation":"xYz"}`
}

func argDone(idx, itemID, args string) string {
	return `{"type":"response.function_call_arguments.done","item_id":"` + itemID + `","output_index":` + idx + `,"arguments":` + args + `}`
}

func itemDone(idx, itemID, callID, args string) string {
	return `{"type":"response.output_item.done","output_index":` + idx + `,"item":{"id":"` + itemID + `","type":"function_call","status":"completed","arguments":` + args + `,"call_id":"` + callID + `","name":"f"}}`
}

func cstart(i int, item, id string) core.Event {
	return core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{Index: i, HasIndex: true, ItemID: item, ID: id, Name: "f", Start: true}}
}

func cdelta(i int, item, d string) core.Event {
	return core.Event{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: i, HasIndex: true, ItemID: item, ArgsDelta: d}}
}

func cend(i int, item, args string) core.Event {
	return core.Event{Kind: core.EventCallEnd, Chunk: &core.Chunk{Index: i, HasIndex: true, ItemID: item, Args: &args, Done: true}}
}

func first(e core.Event) core.Event { e.ID, e.Model = "resp_1", "gpt"; return e }

var (
	usage56   = core.Event{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: 5, OutputTokens: 6}}
	finCalls  = core.Event{Kind: core.EventFinish, Finish: core.FinishToolCalls, ProviderFinish: "completed"}
	finLength = core.Event{Kind: core.EventFinish, Finish: core.FinishLength, ProviderFinish: "max_output_tokens"}
)

func TestDecodeStreamFailureModes(t *testing.T) {
	tests := []struct {
		name    string
		stream  string
		want    []core.Event
		wantErr error
	}{
		{
			name: "A16 deltas routed by item_id and output_index, not call_id",
			stream: sseOf(created, added("0", "fc_a", "call_a"), added("1", "fc_b", "call_b"),
				argDelta("1", "fc_b", `"{\"b\":"`), argDelta("0", "fc_a", `"{\"a\":1}"`), argDelta("1", "fc_b", `"2}"`),
				argDone("0", "fc_a", `"{\"a\":1}"`), argDone("1", "fc_b", `"{\"b\":2}"`),
				itemDone("0", "fc_a", "call_a", `"{\"a\":1}"`), itemDone("1", "fc_b", "call_b", `"{\"b\":2}"`), completed),
			want: []core.Event{first(cstart(0, "fc_a", "call_a")), cstart(1, "fc_b", "call_b"),
				cdelta(1, "fc_b", `{"b":`), cdelta(0, "fc_a", `{"a":1}`), cdelta(1, "fc_b", `2}`),
				cend(0, "fc_a", `{"a":1}`), cend(1, "fc_b", `{"b":2}`), usage56, finCalls},
		},
		{
			name:   "A17 arguments only in function_call_arguments.done",
			stream: sseOf(created, added("0", "fc_a", "call_a"), argDone("0", "fc_a", `"{\"q\":\"x\"}"`), completed),
			want:   []core.Event{first(cstart(0, "fc_a", "call_a")), cend(0, "fc_a", `{"q":"x"}`), usage56, finCalls},
		},
		{
			name:   "A17 arguments only in output_item.done",
			stream: sseOf(created, added("0", "fc_a", "call_a"), itemDone("0", "fc_a", "call_a", `"{\"q\":1}"`), completed),
			want:   []core.Event{first(cstart(0, "fc_a", "call_a")), cend(0, "fc_a", `{"q":1}`), usage56, finCalls},
		},
		{
			name: "B11 response.incomplete with max_output_tokens leaves the call open",
			stream: sseOf(created, added("0", "fc_a", "call_a"), argDelta("0", "fc_a", `"{\"q\":"`),
				`{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":5,"output_tokens":6}}}`),
			want: []core.Event{first(cstart(0, "fc_a", "call_a")), cdelta(0, "fc_a", `{"q":`), usage56, finLength},
		},
		{
			name:    "D06 duplicate call_id in one response",
			stream:  sseOf(created, added("0", "fc_a", "call_x"), added("1", "fc_b", "call_x")),
			want:    []core.Event{first(cstart(0, "fc_a", "call_x"))},
			wantErr: core.ErrDuplicateCallID,
		},
		{
			name: "text, reasoning summary, encrypted content, unknown events",
			stream: sseOf(created, `{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"delta":"think"}`,
				`{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"ENC"}}`,
				`{"type":"response.future.event","x":1}`, `{"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"delta":"hi","obfuscation":"abc"}`,
				`{"type":"response.web_search_call.searching","item_id":"ws_1"}`,
				`{"type":"response.output_item.added","output_index":2,"item":{"id":"ws_1","type":"web_search_call","status":"in_progress"}}`,
				`{"type":"response.completed","response":{"status":"completed"}}`),
			want: []core.Event{{Kind: core.EventThinking, Text: "think", ItemID: "rs_1", ID: "resp_1", Model: "gpt"}, {Kind: core.EventThinking, Signature: "ENC", ItemID: "rs_1"},
				{Kind: core.EventText, Text: "hi"}, {Kind: core.EventFinish, Finish: core.FinishStop, ProviderFinish: "completed"}},
		},
		{
			name: "error event then response.failed reports the error once",
			stream: sseOf(created, `{"type":"error","code":"rate_limit_exceeded","message":"slow down","param":null}`,
				`{"type":"response.failed","response":{"status":"failed","error":{"code":"rate_limit_exceeded","message":"slow down"}}}`),
			want: []core.Event{{Kind: core.EventError, Error: &core.ProviderError{Code: "rate_limit_exceeded", Message: "slow down"}, ID: "resp_1", Model: "gpt"},
				{Kind: core.EventFinish, Finish: core.FinishError, ProviderFinish: "failed"}},
		},
		{
			name: "response.failed gives its finish before its error",
			stream: sseOf(created, added("0", "fc_a", "call_a"), argDone("0", "fc_a", `"{}"`),
				`{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"boom"}}}`),
			want: []core.Event{first(cstart(0, "fc_a", "call_a")), cend(0, "fc_a", `{}`),
				{Kind: core.EventFinish, Finish: core.FinishError, ProviderFinish: "failed"},
				{Kind: core.EventError, Error: &core.ProviderError{Code: "server_error", Message: "boom"}}},
		},
		{
			name:    "stream cut before the terminal event",
			stream:  sseOf(created, added("0", "fc_a", "call_a"), argDelta("0", "fc_a", `"{}"`)),
			want:    []core.Event{first(cstart(0, "fc_a", "call_a")), cdelta(0, "fc_a", "{}")},
			wantErr: core.ErrTruncated,
		},
		{
			name:    "malformed JSON",
			stream:  sseOf(created, `{"type":"response.output_text.delta","delta":`),
			wantErr: core.ErrMalformed,
		},
	}
	a := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := adaptertest.Drain(a.DecodeStream(strings.NewReader(tt.stream)))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr == nil || tt.want != nil {
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestDecodeStreamErrorOffset(t *testing.T) {
	head := sseOf(created)
	_, err := adaptertest.Drain(New().DecodeStream(strings.NewReader(head + "data: {\"type\":\"response.output_text.delta\",\"delta\":\n\n")))
	var de *DecodeError
	if !errors.As(err, &de) || de.Offset != int64(len(head)) {
		t.Fatalf("error = %v, want a *DecodeError at byte %d", err, len(head))
	}
}

// TestDecodeStreamSyntaxOffset checks that the offset a malformed event's
// error names inside its data is 0-based, the bad byte's own index, as
// every adapter counts it.
func TestDecodeStreamSyntaxOffset(t *testing.T) {
	_, err := adaptertest.Drain(New().DecodeStream(strings.NewReader(sseOf(`{"a": x}`))))
	if !errors.Is(err, core.ErrMalformed) || !strings.Contains(err.Error(), "event data at byte 6:") {
		t.Fatalf("error = %v, want core.ErrMalformed naming byte 6 of the event data", err)
	}
}

// TestFailedStreamParity checks that a failed response gives a client the
// same finish, raw status and error streamed (response.failed) as whole,
// and that the call it completed before failing is kept.
func TestFailedStreamParity(t *testing.T) {
	a := New()
	pe := `{"code":"server_error","message":"boom"}`
	whole, err := a.DecodeResponse([]byte(`{"id":"resp_1","status":"failed","output":[],"error":` + pe + `}`))
	if err != nil {
		t.Fatal(err)
	}
	stream := sseOf(created, added("0", "fc_a", "call_a"), argDone("0", "fc_a", `"{}"`),
		`{"type":"response.failed","response":{"id":"resp_1","status":"failed","error":`+pe+`}}`)
	streamed, err := core.Collect(a.DecodeStream(strings.NewReader(stream)))
	var got *core.ProviderError
	if !errors.As(err, &got) {
		t.Fatalf("collect error = %v, want the provider error", err)
	}
	type view struct {
		Finish         core.FinishReason
		ProviderFinish string
		Error          *core.ProviderError
	}
	w := view{whole.Finish, whole.ProviderFinish, whole.Error}
	g := view{streamed.Finish, streamed.ProviderFinish, streamed.Error}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("whole vs streamed (-whole +streamed):\n%s", diff)
	}
	if w.Finish != core.FinishError || w.ProviderFinish != "failed" {
		t.Errorf("whole finish %q/%q, want error/failed", w.Finish, w.ProviderFinish)
	}
	if calls := streamed.Calls(); len(calls) != 1 || calls[0].ID != "call_a" {
		t.Errorf("streamed calls %+v, want the completed call_a", calls)
	}
}

// TestDecodeStreamNotAStream checks that input with no Responses event is
// an error wrapping core.ErrNotStream that names the offset of the first
// event it could not use, or byte 0, while blank input is a clean (empty)
// stream.
func TestDecodeStreamNotAStream(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int64 // -1: no error
	}{
		{"plain text", "hello world", 0},
		{"unknown event", "event: foo\ndata: {}\n\n", 0},
		{"unknown event after blank lines and a comment", "  \n\n: ping\n\nevent: zz\ndata: {\"x\":1}\n\n", 12},
		{"an Anthropic stream", "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n", 0},
		{"empty", "", -1},
		{"blank", " \r\n\n", -1},
		{"only a keep-alive", "data: {\"type\":\"keepalive\"}\n\n", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := adaptertest.Drain(New().DecodeStream(strings.NewReader(tt.in)))
			if tt.want < 0 {
				if errors.Is(err, core.ErrNotStream) {
					t.Fatalf("error %v, want none of ErrNotStream", err)
				}
				return
			}
			var de *DecodeError
			if !errors.Is(err, core.ErrNotStream) || !errors.Is(err, core.ErrMalformed) || !errors.As(err, &de) {
				t.Fatalf("error %v, want a *DecodeError wrapping core.ErrMalformed and core.ErrNotStream", err)
			}
			if de.Offset != tt.want {
				t.Errorf("offset %d, want %d: %v", de.Offset, tt.want, err)
			}
		})
	}
}

func TestDecodeStreamLimits(t *testing.T) {
	big := `{"type":"response.output_text.delta","delta":"` + strings.Repeat("x", 4000) + `"}`
	_, err := adaptertest.Drain(New(WithMaxEventSize(1024)).DecodeStream(strings.NewReader(sseOf(created, big))))
	if !errors.Is(err, core.ErrTooLarge) {
		t.Fatalf("big event: error = %v, want core.ErrTooLarge", err)
	}
	p := []string{created}
	for i := 0; i < 5; i++ {
		p = append(p, added(itoa(i), "fc_"+itoa(i), "call_"+itoa(i)))
	}
	_, err = adaptertest.Drain(New(WithMaxItems(3)).DecodeStream(strings.NewReader(sseOf(p...))))
	if !errors.Is(err, core.ErrTooLarge) {
		t.Fatalf("many calls: error = %v, want core.ErrTooLarge", err)
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

// TestReasoningItemID checks that the reasoning item id travels from a
// stream into Part.ItemID through core.Collect, equal to what the body of
// the same response gives, and is written back as the reasoning item's id
// on replay; it is never stored in Part.Data, which other adapters read as
// an opaque payload (Anthropic redacted thinking).
func TestReasoningItemID(t *testing.T) {
	a := New()
	stream := sseOf(created, `{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"delta":"th"}`,
		`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"delta":"ink"}`,
		`{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"think"}],"encrypted_content":"ENC"}}`,
		`{"type":"response.output_text.delta","item_id":"msg_1","output_index":1,"delta":"hi"}`,
		`{"type":"response.completed","response":{"status":"completed"}}`)
	resp, err := core.Collect(a.DecodeStream(strings.NewReader(stream)))
	if err != nil {
		t.Fatal(err)
	}
	want := []core.Part{{Kind: core.PartThinking, Text: "think", Signature: "ENC", ItemID: "rs_1"}, core.TextPart("hi")}
	if diff := cmp.Diff(want, resp.Message.Parts); diff != "" {
		t.Errorf("collected parts (-want +got):\n%s", diff)
	}
	body, err := a.DecodeResponse([]byte(`{"id":"resp_1","status":"completed","output":[{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"think"}],"encrypted_content":"ENC"},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hi"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, body.Message.Parts); diff != "" {
		t.Errorf("body parts (-want +got):\n%s", diff)
	}
	out, err := a.EncodeRequest(&core.Request{Model: "m", Messages: []core.Message{msg(core.RoleUser, core.TextPart("q")), resp.Message}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `{"encrypted_content":"ENC","id":"rs_1","summary":[{"text":"think","type":"summary_text"}],"type":"reasoning"}`) {
		t.Errorf("replayed request lacks the reasoning item rs_1:\n%s", out)
	}
}

// TestEncodeStreamReasoningIDs checks the normal form of thinking events:
// without an item id they get one made from the output index, and a change
// of id starts a new reasoning item.
func TestEncodeStreamReasoningIDs(t *testing.T) {
	a := New()
	in := []core.Event{
		{Kind: core.EventThinking, Text: "a"},
		{Kind: core.EventThinking, Text: "b", ItemID: "rs_x"},
		{Kind: core.EventThinking, Text: "c", ItemID: "rs_x"},
		{Kind: core.EventThinking, Signature: "S", ItemID: "rs_y"},
		{Kind: core.EventFinish, Finish: core.FinishStop, ProviderFinish: "completed"},
	}
	var buf bytes.Buffer
	if err := a.EncodeStream(&buf, in); err != nil {
		t.Fatal(err)
	}
	got, err := adaptertest.Drain(a.DecodeStream(&buf))
	if err != nil {
		t.Fatal(err)
	}
	want := []core.Event{
		{Kind: core.EventThinking, Text: "a", ItemID: "rs_0"},
		{Kind: core.EventThinking, Text: "b", ItemID: "rs_x"},
		{Kind: core.EventThinking, Text: "c", ItemID: "rs_x"},
		{Kind: core.EventThinking, Signature: "S", ItemID: "rs_y"},
		{Kind: core.EventUsage, Usage: &core.Usage{}},
		{Kind: core.EventFinish, Finish: core.FinishStop, ProviderFinish: "completed"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	resp, err := core.Collect(core.SliceStream(got))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range resp.Message.Parts {
		ids = append(ids, p.ItemID)
	}
	if diff := cmp.Diff([]string{"rs_0", "rs_x", "rs_y"}, ids); diff != "" {
		t.Errorf("part item ids (-want +got):\n%s", diff)
	}
}
