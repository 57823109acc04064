package anthropic

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// sseOf frames each payload as one SSE event.
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
	msgStart      = `{"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":10,"output_tokens":1}}}`
	msgStartNoUse = `{"type":"message_start","message":{"id":"msg_1","model":"m"}}`
	msgStop       = `{"type":"message_stop"}`
)

func toolStart(i int, id, input string) string {
	return `{"type":"content_block_start","index":` + itoa(i) + `,"content_block":{"type":"tool_use","id":"` + id + `","name":"f","input":` + input + `}}`
}

func jsonDelta(i int, partial string) string {
	return `{"type":"content_block_delta","index":` + itoa(i) + `,"delta":{"type":"input_json_delta","partial_json":` + partial + `}}`
}

func blockStop(i int) string {
	return `{"type":"content_block_stop","index":` + itoa(i) + `}`
}

func msgDelta(stop string) string {
	return `{"type":"message_delta","delta":{"stop_reason":"` + stop + `"},"usage":{"output_tokens":7}}`
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}

func ptr(s string) *string { return &s }

func start(i int, id string) core.Event {
	return core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{Index: i, HasIndex: true, ID: id, Name: "f", Start: true}}
}

func delta(i int, s string) core.Event {
	return core.Event{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: i, HasIndex: true, ArgsDelta: s}}
}

func end(i int, args *string) core.Event {
	return core.Event{Kind: core.EventCallEnd, Chunk: &core.Chunk{Index: i, HasIndex: true, Done: true, Args: args}}
}

func withID(e core.Event) core.Event { e.ID, e.Model = "msg_1", "m"; return e }

var (
	usage7  = core.Event{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: 10, OutputTokens: 7}}
	finTool = core.Event{Kind: core.EventFinish, Finish: core.FinishToolCalls, ProviderFinish: "tool_use"}
)

func TestDecodeStreamFailureModes(t *testing.T) {
	tests := []struct {
		name    string
		stream  string
		want    []core.Event
		wantErr error
	}{
		{
			name:   "C02 zero-delta tool_use gets {} at its end",
			stream: sseOf(msgStart, toolStart(0, "t1", "{}"), jsonDelta(0, `""`), blockStop(0), msgDelta("tool_use"), msgStop),
			want:   []core.Event{withID(start(0, "t1")), end(0, ptr("{}")), usage7, finTool},
		},
		{
			name:   "A18 populated start input superseded by deltas",
			stream: sseOf(msgStart, toolStart(0, "t1", `{"a":1}`), jsonDelta(0, `"{\"a\":"`), jsonDelta(0, `"1}"`), blockStop(0), msgDelta("tool_use"), msgStop),
			want:   []core.Event{withID(start(0, "t1")), delta(0, `{"a":`), delta(0, `1}`), end(0, nil), usage7, finTool},
		},
		{
			name:   "I01 input only in the start",
			stream: sseOf(msgStart, toolStart(0, "t1", `{"a": 1}`), blockStop(0), msgDelta("tool_use"), msgStop),
			want:   []core.Event{withID(start(0, "t1")), end(0, ptr(`{"a": 1}`)), usage7, finTool},
		},
		{
			name:   "I01 tool_use start without input",
			stream: sseOf(msgStart, `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"f"}}`, blockStop(0), msgDelta("tool_use"), msgStop),
			want:   []core.Event{withID(start(0, "t1")), end(0, ptr("{}")), usage7, finTool},
		},
		{
			name: "A19 interleaved block indexes",
			stream: sseOf(msgStart, toolStart(1, "t1", "{}"), toolStart(2, "t2", "{}"), jsonDelta(2, `"{\"b\":2}"`), jsonDelta(1, `"{\"a\":1}"`),
				blockStop(1), blockStop(2), msgDelta("tool_use"), msgStop),
			want: []core.Event{withID(start(1, "t1")), start(2, "t2"), delta(2, `{"b":2}`), delta(1, `{"a":1}`), end(1, nil), end(2, nil), usage7, finTool},
		},
		{
			name:   "B14 message_start without usage",
			stream: sseOf(msgStartNoUse, `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}`, msgStop),
			want: []core.Event{
				{Kind: core.EventUsage, Usage: &core.Usage{OutputTokens: 3}, ID: "msg_1", Model: "m"},
				{Kind: core.EventFinish, Finish: core.FinishStop, ProviderFinish: "end_turn"},
			},
		},
		{
			name:   "B11 max_tokens after a stopped tool_use leaves it open",
			stream: sseOf(msgStart, toolStart(0, "t1", "{}"), jsonDelta(0, `"{\"a\":"`), blockStop(0), msgDelta("max_tokens"), msgStop),
			want: []core.Event{withID(start(0, "t1")), delta(0, `{"a":`), usage7,
				{Kind: core.EventFinish, Finish: core.FinishLength, ProviderFinish: "max_tokens"}},
		},
		{
			name: "B11 max_tokens keeps the earlier complete call",
			stream: sseOf(msgStart, toolStart(0, "t1", "{}"), jsonDelta(0, `"{}"`), blockStop(0), toolStart(1, "t2", "{}"), jsonDelta(1, `"{\"q\""`),
				blockStop(1), msgDelta("max_tokens"), msgStop),
			want: []core.Event{withID(start(0, "t1")), delta(0, `{}`), end(0, nil), start(1, "t2"), delta(1, `{"q"`), usage7,
				{Kind: core.EventFinish, Finish: core.FinishLength, ProviderFinish: "max_tokens"}},
		},
		{
			name:   "error event mid-stream keeps the complete call",
			stream: sseOf(msgStart, toolStart(0, "t1", "{}"), jsonDelta(0, `"{}"`), blockStop(0), toolStart(1, "t2", "{}"), `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
			want: []core.Event{withID(start(0, "t1")), delta(0, `{}`), end(0, nil), start(1, "t2"),
				{Kind: core.EventError, Error: &core.ProviderError{Type: "overloaded_error", Message: "Overloaded"}}},
		},
		{
			name: "ping, unknown events and unknown fields are ignored",
			stream: sseOf(msgStartNoUse, `{"type":"ping"}`, `{"type":"future_event","x":1}`,
				`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"","extra":true},"more":1}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi","obfuscation":"x"}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{}}}`, blockStop(0), msgStop),
			want: []core.Event{{Kind: core.EventText, Text: "hi", ID: "msg_1", Model: "m"}},
		},
		{
			name: "provider-run server_tool_use is not a call",
			stream: sseOf(msgStartNoUse, `{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}`,
				jsonDelta(0, `"{\"query\":\"x\"}"`), blockStop(0),
				`{"type":"content_block_start","index":1,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]}}`, blockStop(1), msgStop),
			want: nil,
		},
		{
			name: "thinking with signature",
			stream: sseOf(msgStartNoUse, `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig=="}}`, blockStop(0), msgStop),
			want: []core.Event{{Kind: core.EventThinking, Text: "hmm", ID: "msg_1", Model: "m"}, {Kind: core.EventThinking, Signature: "sig=="}},
		},
		{
			name:    "malformed JSON names the offset",
			stream:  sseOf(msgStartNoUse, `{"type":"content_block_start",`),
			wantErr: core.ErrMalformed,
		},
		{
			name:    "delta for a block never started",
			stream:  sseOf(msgStartNoUse, jsonDelta(3, `"{}"`)),
			wantErr: core.ErrMalformed,
		},
		{
			name:    "stream cut before message_stop leaves the call open",
			stream:  sseOf(msgStart, toolStart(0, "t1", "{}"), jsonDelta(0, `"{}"`), blockStop(0)),
			want:    []core.Event{withID(start(0, "t1")), delta(0, "{}")},
			wantErr: core.ErrTruncated,
		},
		{
			name:    "D06 duplicate tool_use id",
			stream:  sseOf(msgStart, toolStart(0, "t1", "{}"), blockStop(0), toolStart(1, "t1", "{}")),
			want:    []core.Event{withID(start(0, "t1")), end(0, ptr("{}"))},
			wantErr: core.ErrDuplicateCallID,
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
	first := sseOf(msgStartNoUse)
	stream := first + "data: {\"type\":\"content_block_start\",\n\n"
	_, err := adaptertest.Drain(New().DecodeStream(strings.NewReader(stream)))
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("error %v is not a *DecodeError", err)
	}
	if de.Offset != int64(len(first)) {
		t.Errorf("offset = %d, want %d (start of the bad event)", de.Offset, len(first))
	}
	if !strings.Contains(err.Error(), "at byte") {
		t.Errorf("error %q does not name the byte", err)
	}
}

// TestDecodeStreamNotAStream checks that input with no Anthropic event
// is an error wrapping core.ErrNotStream that names the offset of the
// first event it could not use, or byte 0, while blank input is a clean
// (empty) stream and a stream with a known event is not refused.
func TestDecodeStreamNotAStream(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int64 // -1: no error
	}{
		{"plain text", "hello world", 0},
		{"unknown event", "event: foo\ndata: {}\n\n", 0},
		{"unknown event after blank lines and a comment", "  \n\n: ping\n\nevent: zz\ndata: {\"x\":1}\n\n", 12},
		{"another protocol's stream", "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n", 0},
		{"empty", "", -1},
		{"blank", " \r\n\n", -1},
		{"only a ping", "event: ping\ndata: {\"type\":\"ping\"}\n\n", -1},
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

// TestDecodeStreamSyntaxOffset checks that the offset a malformed event's
// error names inside its data is 0-based, the bad byte's own index.
func TestDecodeStreamSyntaxOffset(t *testing.T) {
	_, err := adaptertest.Drain(New().DecodeStream(strings.NewReader(sseOf(`{"a": x}`))))
	if !errors.Is(err, core.ErrMalformed) || !strings.Contains(err.Error(), "event data at byte 6:") {
		t.Fatalf("error = %v, want core.ErrMalformed naming byte 6 of the event data", err)
	}
}

func TestDecodeStreamTooLarge(t *testing.T) {
	big := `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"` + strings.Repeat("x", 2000) + `"}}`
	a := New(WithMaxEventSize(1024))
	_, err := adaptertest.Drain(a.DecodeStream(strings.NewReader(sseOf(msgStartNoUse, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`, big))))
	if !errors.Is(err, core.ErrTooLarge) {
		t.Fatalf("error = %v, want core.ErrTooLarge", err)
	}
	blocks := []string{msgStartNoUse}
	for i := 0; i < 5; i++ {
		blocks = append(blocks, `{"type":"content_block_start","index":`+itoa(i)+`,"content_block":{"type":"text","text":""}}`)
	}
	_, err = adaptertest.Drain(New(WithMaxBlocks(3)).DecodeStream(strings.NewReader(sseOf(blocks...))))
	if !errors.Is(err, core.ErrTooLarge) {
		t.Fatalf("too many blocks: error = %v, want core.ErrTooLarge", err)
	}
}

// jsonEscape escapes s as the inside of a JSON string without touching
// bytes of invalid UTF-8, the way a server that splits bytes would send them.
func jsonEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}

// TestB05SplitUTF8 splits arguments holding ä and an emoji at every byte,
// and also one byte per fragment, and checks the reassembled arguments are
// the exact bytes sent.
func TestB05SplitUTF8(t *testing.T) {
	args := `{"city":"Zäri 😀 ch"}`
	a := New()
	run := func(t *testing.T, frags []string) {
		t.Helper()
		p := []string{msgStart, toolStart(0, "t1", "{}")}
		for _, f := range frags {
			p = append(p, jsonDelta(0, `"`+jsonEscape(f)+`"`))
		}
		p = append(p, blockStop(0), msgDelta("tool_use"), msgStop)
		events, err := adaptertest.Drain(a.DecodeStream(strings.NewReader(sseOf(p...))))
		if err != nil {
			t.Fatal(err)
		}
		s := adaptertest.SummarizeEvents(events)
		if len(s.Calls) != 1 || s.Calls[0].Args != args {
			t.Fatalf("calls = %+v, want args %q", s.Calls, args)
		}
		if !utf8.ValidString(s.Calls[0].Args) {
			t.Fatal("reassembled args are not valid UTF-8")
		}
	}
	for i := 1; i < len(args); i++ {
		run(t, []string{args[:i], args[i:]})
	}
	var bytesEach []string
	for i := 0; i < len(args); i++ {
		bytesEach = append(bytesEach, args[i:i+1])
	}
	run(t, bytesEach)
}

// TestB05EncodeSplitUTF8 checks the encoder writes split bytes back so that
// decoding gives the same deltas.
func TestB05EncodeSplitUTF8(t *testing.T) {
	a := New()
	s := "😀ä"
	for i := 1; i < len(s); i++ {
		events := []core.Event{withID(start(0, "t1")), delta(0, `{"x":"`+s[:i]), delta(0, s[i:]+`"}`), end(0, nil)}
		var buf bytes.Buffer
		if err := a.EncodeStream(&buf, events); err != nil {
			t.Fatal(err)
		}
		got, err := adaptertest.Drain(a.DecodeStream(&buf))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(events, got); diff != "" {
			t.Errorf("split at %d (-want +got):\n%s", i, diff)
		}
	}
}

// TestA20ManyFragments streams arguments one to three bytes at a time and
// checks the reference Buffer (core.Collect) gets the whole object, never {}.
func TestA20ManyFragments(t *testing.T) {
	args := `{"path":"/tmp/a b","lines":[1,2,3],"opts":{"x":true,"y":null}}`
	p := []string{msgStart, toolStart(0, "t1", "{}"), jsonDelta(0, `""`)}
	for i := 0; i < len(args); {
		n := 1 + i%3
		if i+n > len(args) {
			n = len(args) - i
		}
		p = append(p, jsonDelta(0, `"`+jsonEscape(args[i:i+n])+`"`))
		i += n
	}
	p = append(p, blockStop(0), msgDelta("tool_use"), msgStop)
	resp, err := core.Collect(New().DecodeStream(strings.NewReader(sseOf(p...))))
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Calls()
	if len(calls) != 1 || string(calls[0].Arguments) != args {
		t.Fatalf("calls = %+v, want one call with %s", calls, args)
	}
}

// TestRedactedThinkingStream checks that a redacted_thinking block in a
// stream reaches the collected message as a thinking part with its data
// (G12), apart from the thinking around it, that replaying the message
// writes it back as redacted_thinking, and that EncodeStream writes it as
// such a block.
func TestRedactedThinkingStream(t *testing.T) {
	a := New()
	stream := sseOf(
		`{"type":"message_start","message":{"id":"msg_1","model":"claude","usage":{"input_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"plan"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"SIG"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"OPAQUE"}}`,
		`{"type":"content_block_stop","index":1}`,
		`{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"hi"}}`,
		`{"type":"content_block_stop","index":2}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}`,
		`{"type":"message_stop"}`)
	events, err := adaptertest.Drain(a.DecodeStream(strings.NewReader(stream)))
	if err != nil {
		t.Fatal(err)
	}
	redacted := core.Event{Kind: core.EventThinking, Data: "OPAQUE"}
	if diff := cmp.Diff(redacted, events[2]); diff != "" {
		t.Errorf("event 2 (-want +got):\n%s", diff)
	}
	resp, err := core.Collect(core.SliceStream(events))
	if err != nil {
		t.Fatal(err)
	}
	want := []core.Part{
		{Kind: core.PartThinking, Text: "plan", Signature: "SIG"},
		{Kind: core.PartThinking, Data: "OPAQUE"},
		core.TextPart("hi"),
	}
	if diff := cmp.Diff(want, resp.Message.Parts); diff != "" {
		t.Errorf("collected parts (-want +got):\n%s", diff)
	}
	body, err := a.EncodeRequest(&core.Request{Model: "claude", MaxTokens: 10, Messages: []core.Message{
		{Role: core.RoleUser, Parts: []core.Part{core.TextPart("q")}}, resp.Message, {Role: core.RoleUser, Parts: []core.Part{core.TextPart("go on")}}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `{"data":"OPAQUE","type":"redacted_thinking"}`) {
		t.Errorf("replay lacks the redacted_thinking block:\n%s", body)
	}
	var buf bytes.Buffer
	if err := a.EncodeStream(&buf, events); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"content_block":{"data":"OPAQUE","type":"redacted_thinking"}`) {
		t.Errorf("EncodeStream wrote no redacted_thinking block:\n%s", buf.String())
	}
	again, err := adaptertest.Drain(a.DecodeStream(&buf))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(events, again); diff != "" {
		t.Errorf("stream round trip (-want +got):\n%s", diff)
	}
}

// TestThinkingItemIDIsNotRedacted checks that a thinking part carrying
// only another provider's item id (OpenAI Responses rs_…) is never written
// as redacted thinking: only Part.Data is an opaque payload.
func TestThinkingItemIDIsNotRedacted(t *testing.T) {
	body, err := New().EncodeRequest(&core.Request{Model: "claude", MaxTokens: 10, Messages: []core.Message{
		{Role: core.RoleUser, Parts: []core.Part{core.TextPart("q")}},
		{Role: core.RoleAssistant, Parts: []core.Part{{Kind: core.PartThinking, Text: "t", Signature: "S", ItemID: "rs_1"}, core.TextPart("a")}},
		{Role: core.RoleUser, Parts: []core.Part{core.TextPart("go on")}}}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(body), "redacted_thinking") || strings.Contains(string(body), "rs_1") {
		t.Errorf("item id written as redacted thinking:\n%s", body)
	}
}

// TestStreamA18StartInputAndDeltas checks the A18 decision (see
// checkStartInput): input_json_delta fragments after a populated start
// input are the call's input when they repeat or extend the start's input,
// compared as JSON; when they drop or change a member of it, the stream
// ends with an error naming the block and the call, and core.Collect
// reports the call incomplete while an earlier complete call stands.
func TestStreamA18StartInputAndDeltas(t *testing.T) {
	done := []string{toolStart(0, "t0", `{}`), jsonDelta(0, `"{\"ok\":true}"`), blockStop(0)}
	tests := []struct {
		name      string
		start     string
		deltas    []string // partial_json values, as JSON strings
		wantCalls []string // arguments of the calls, t0's first
		wantCut   string   // Original of the incomplete call, if any
		wantErr   string   // text the error must hold, if any
	}{
		{name: "same input", start: `{"a":1}`, deltas: []string{`"{\"a\":"`, `"1}"`}, wantCalls: []string{`{"ok":true}`, `{"a":1}`}},
		{name: "same input, other key order, spacing and number spelling", start: `{"a":1,"b":[1,{"c":"x"}]}`, deltas: []string{`"{ \"b\": [1.0, {\"c\": \"x\"}],"`, `" \"a\": 1e0 }"`}, wantCalls: []string{`{"ok":true}`, `{ "b": [1.0, {"c": "x"}], "a": 1e0 }`}},
		{name: "deltas extend the start", start: `{"a":1}`, deltas: []string{`"{\"a\":1,\"b\":2}"`}, wantCalls: []string{`{"ok":true}`, `{"a":1,"b":2}`}},
		{name: "deltas extend a nested object", start: `{"o":{"x":1}}`, deltas: []string{`"{\"o\":{\"x\":1,\"y\":2}}"`}, wantCalls: []string{`{"ok":true}`, `{"o":{"x":1,"y":2}}`}},
		{name: "deltas drop a member", start: `{"a":1}`, deltas: []string{`"{\"b\":2}"`}, wantCalls: []string{`{"ok":true}`}, wantCut: `{"b":2}`, wantErr: `tool_use block 1 (id "t1"): start input {"a":1}, streamed input {"b":2}`},
		{name: "deltas change a value", start: `{"a":1}`, deltas: []string{`"{\"a\":2}"`}, wantCalls: []string{`{"ok":true}`}, wantCut: `{"a":2}`, wantErr: `tool_use block 1 (id "t1")`},
		{name: "deltas change an array", start: `{"l":[1,2]}`, deltas: []string{`"{\"l\":[1]}"`}, wantCalls: []string{`{"ok":true}`}, wantCut: `{"l":[1]}`, wantErr: `tool_use block 1 (id "t1")`},
		{name: "deltas not an object", start: `{"a":1}`, deltas: []string{`"[1]"`}, wantCalls: []string{`{"ok":true}`}, wantCut: `[1]`, wantErr: `tool_use block 1 (id "t1")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs := append([]string{msgStart}, done...)
			evs = append(evs, toolStart(1, "t1", tt.start))
			for _, d := range tt.deltas {
				evs = append(evs, jsonDelta(1, d))
			}
			evs = append(evs, blockStop(1), msgDelta("tool_use"), msgStop)
			resp, err := core.Collect(New().DecodeStream(strings.NewReader(sseOf(evs...))))
			var gotCalls []string
			for _, c := range resp.Calls() {
				gotCalls = append(gotCalls, string(c.Arguments))
			}
			if diff := cmp.Diff(tt.wantCalls, gotCalls); diff != "" {
				t.Errorf("call arguments (-want +got):\n%s", diff)
			}
			if tt.wantErr == "" {
				if err != nil || len(resp.Incomplete) != 0 {
					t.Errorf("error %v, incomplete %+v, want neither", err, resp.Incomplete)
				}
				return
			}
			var de *DecodeError
			if !errors.Is(err, ErrInputConflict) || !errors.Is(err, core.ErrMalformed) || !errors.As(err, &de) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want a *DecodeError wrapping ErrInputConflict and core.ErrMalformed that holds %q", err, tt.wantErr)
			}
			if stop := strings.LastIndex(sseOf(evs...), "data: "+blockStop(1)); de.Offset != int64(stop) {
				t.Errorf("offset %d, want %d, the content_block_stop of the block", de.Offset, stop)
			}
			want := []core.Call{{ID: "t1", Name: "f", Original: tt.wantCut}}
			if diff := cmp.Diff(want, resp.Incomplete); diff != "" {
				t.Errorf("incomplete (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStreamA18Limits checks that delta text that is not JSON is left to
// the Buffer (never compared, never a conflict), and that the delta text
// kept for the A18 check is bounded by the maximum event size.
func TestStreamA18Limits(t *testing.T) {
	cut := sseOf(msgStart, toolStart(0, "t1", `{"a":1}`), jsonDelta(0, `"{\"b\":"`), blockStop(0), msgDelta("tool_use"), msgStop)
	resp, err := core.Collect(New().DecodeStream(strings.NewReader(cut)))
	if errors.Is(err, ErrInputConflict) || len(resp.Calls()) != 0 || len(resp.Incomplete) != 1 || resp.Incomplete[0].Original != `{"b":` {
		t.Errorf("cut deltas: calls %+v, incomplete %+v, error %v; want the call incomplete with its delta text, no conflict", resp.Calls(), resp.Incomplete, err)
	}

	var evs []string
	evs = append(evs, msgStart, toolStart(0, "t1", `{"a":1}`))
	frag := `"{\"a\":1,\"s\":\"` + strings.Repeat("x", 40) + `"`
	for range 20 {
		evs = append(evs, jsonDelta(0, frag))
		frag = `"` + strings.Repeat("x", 50) + `"`
	}
	_, err = adaptertest.Drain(New(WithMaxEventSize(512)).DecodeStream(strings.NewReader(sseOf(evs...))))
	if !errors.Is(err, core.ErrTooLarge) || !strings.Contains(err.Error(), `tool_use block 0 (id "t1")`) {
		t.Errorf("error %v, want core.ErrTooLarge naming block 0 and t1", err)
	}
}
