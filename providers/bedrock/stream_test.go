package bedrock

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// frames builds a ConverseStream body from (event type, payload) pairs.
func frames(t testing.TB, pairs ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := eventstream.NewEncoder()
	for i := 0; i+1 < len(pairs); i += 2 {
		if err := writeFrame(enc, &buf, eventHeaders(pairs[i]), []byte(pairs[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func ptr[T any](v T) *T { return &v }

func start(idx int, id, name string) core.Event {
	return core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{Index: idx, HasIndex: true, ID: id, Name: name, Start: true}}
}

func delta(idx int, s string) core.Event {
	return core.Event{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: idx, HasIndex: true, ArgsDelta: s}}
}

func end(idx int, args *string) core.Event {
	return core.Event{Kind: core.EventCallEnd, Chunk: &core.Chunk{Index: idx, HasIndex: true, Done: true, Args: args}}
}

func TestDecodeStreamFailureModes(t *testing.T) {
	manyFragments := []string{"contentBlockStart", `{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"t1","name":"f"}}}`}
	wantMany := []core.Event{start(0, "t1", "f")}
	args := `{"city":"Zürich","n":[1,2,3]}`
	for _, r := range args {
		frag := string(r)
		manyFragments = append(manyFragments, "contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":`+quote(frag)+`}},"p":"abcdefgh"}`)
		wantMany = append(wantMany, delta(0, frag))
	}
	manyFragments = append(manyFragments, "contentBlockStop", `{"contentBlockIndex":0}`, "messageStop", `{"stopReason":"tool_use"}`)
	wantMany = append(wantMany, end(0, nil), core.Event{Kind: core.EventFinish, Finish: core.FinishToolCalls, ProviderFinish: "tool_use"})

	tests := []struct {
		name string
		body []byte
		want []core.Event
	}{
		{
			name: "A11 negative contentBlockIndex is kept, not a crash",
			body: frames(t,
				"contentBlockStart", `{"contentBlockIndex":-1,"start":{"toolUse":{"toolUseId":"t1","name":"f"}}}`,
				"contentBlockDelta", `{"contentBlockIndex":-1,"delta":{"toolUse":{"input":"{\"a\":1}"}}}`,
				"contentBlockStop", `{"contentBlockIndex":-1}`),
			want: []core.Event{start(-1, "t1", "f"), delta(-1, `{"a":1}`), end(-1, nil)},
		},
		{
			name: "A20 one fragment per character, with p padding",
			body: frames(t, manyFragments...),
			want: wantMany,
		},
		{
			name: "C02 toolUse with no input deltas ends with {}",
			body: frames(t,
				"messageStart", `{"role":"assistant"}`,
				"contentBlockStart", `{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"t1","name":"now"}}}`,
				"contentBlockStop", `{"contentBlockIndex":0}`,
				"messageStop", `{"stopReason":"tool_use"}`),
			want: []core.Event{start(0, "t1", "now"), end(0, ptr("{}")), {Kind: core.EventFinish, Finish: core.FinishToolCalls, ProviderFinish: "tool_use"}},
		},
		{
			name: "C06 null input delta is no input, call ends with {}",
			body: frames(t,
				"contentBlockStart", `{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"t1","name":"now"}}}`,
				"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":null}}}`,
				"contentBlockStop", `{"contentBlockIndex":0}`),
			want: []core.Event{start(0, "t1", "now"), end(0, ptr("{}"))},
		},
		{
			name: "B07 raw control character in a fragment passes through unrepaired",
			body: frames(t,
				"contentBlockStart", `{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"t1","name":"f"}}}`,
				"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"s\":\"a\nb\\x\"}"}}}`,
				"contentBlockStop", `{"contentBlockIndex":0}`),
			want: []core.Event{start(0, "t1", "f"), delta(0, "{\"s\":\"a\nb\\x\"}"), end(0, nil)},
		},
		{
			name: "text, reasoning with signature, usage, unknown event ignored",
			body: frames(t,
				"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"hmm"}}}`,
				"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"reasoningContent":{"signature":"sig"}}}`,
				"contentBlockStop", `{"contentBlockIndex":0}`,
				"contentBlockDelta", `{"contentBlockIndex":1,"delta":{"text":"Hi"},"unknownField":true}`,
				"somethingNew", `{"x":1}`,
				"messageStop", `{"stopReason":"guardrail_intervened"}`,
				"metadata", `{"usage":{"inputTokens":3,"outputTokens":4,"totalTokens":7},"metrics":{"latencyMs":1}}`),
			want: []core.Event{
				{Kind: core.EventThinking, Text: "hmm"},
				{Kind: core.EventThinking, Signature: "sig"},
				{Kind: core.EventText, Text: "Hi"},
				{Kind: core.EventFinish, Finish: core.FinishContentFilter, ProviderFinish: "guardrail_intervened"},
				{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: 3, OutputTokens: 4}},
			},
		},
		{
			name: "exception frame becomes EventError with its type",
			body: func() []byte {
				var buf bytes.Buffer
				if err := writeFrame(eventstream.NewEncoder(), &buf, exceptionHeaders("throttlingException"), []byte(`{"message":"slow down"}`)); err != nil {
					t.Fatal(err)
				}
				return buf.Bytes()
			}(),
			want: []core.Event{{Kind: core.EventError, Error: &core.ProviderError{Type: "throttlingException", Message: "slow down"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := adaptertest.Drain(New().DecodeStream(bytes.NewReader(tt.body)))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

func TestDecodeStreamFrameErrors(t *testing.T) {
	good := frames(t,
		"messageStart", `{"role":"assistant"}`,
		"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Hi"}}`)
	second := int64(len(frames(t, "messageStart", `{"role":"assistant"}`)))

	badMsgCRC := bytes.Clone(good)
	badMsgCRC[len(badMsgCRC)-1] ^= 0xff
	badPayload := bytes.Clone(good)
	badPayload[len(badPayload)-8] ^= 0x01
	badPrelude := bytes.Clone(good)
	badPrelude[second+9] ^= 0xff
	huge := bytes.Clone(good[:second])
	huge = append(huge, prelude(1<<21, 0)...)
	tiny := append(bytes.Clone(good[:second]), prelude(8, 0)...)
	headersTooLong := append(bytes.Clone(good[:second]), prelude(32, 30)...)
	badJSON := frames(t, "messageStart", `{"role":"assistant"}`, "contentBlockDelta", `{"contentBlockIndex":"zero"}`)

	tests := []struct {
		name    string
		body    []byte
		wantErr error
		offset  int64
		events  int
	}{
		{"cut in the prelude", good[:second+5], core.ErrTruncated, second, 0},
		{"cut in the payload", good[:len(good)-3], core.ErrTruncated, second, 0},
		{"bad message crc", badMsgCRC, ErrChecksum, second, 0},
		{"flipped payload byte", badPayload, ErrChecksum, second, 0},
		{"bad prelude crc", badPrelude, ErrChecksum, second, 0},
		{"frame larger than the limit", huge, core.ErrTooLarge, second, 0},
		{"total length below the minimum", tiny, core.ErrMalformed, second, 0},
		{"headers longer than the frame", headersTooLong, core.ErrMalformed, second, 0},
		{"payload JSON of the wrong type", badJSON, nil, second, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := adaptertest.Drain(New().DecodeStream(bytes.NewReader(tt.body)))
			var fe *DecodeError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *DecodeError", err)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v does not wrap %v", err, tt.wantErr)
			}
			if fe.Offset != tt.offset {
				t.Errorf("offset %d, want %d (%v)", fe.Offset, tt.offset, err)
			}
			if !strings.Contains(err.Error(), "byte "+itoa(int(tt.offset))) {
				t.Errorf("message %q does not name byte %d", err, tt.offset)
			}
			if len(evs) != tt.events {
				t.Errorf("%d events before the error, want %d", len(evs), tt.events)
			}
		})
	}
}

// prelude returns a frame prelude with a correct CRC and nothing after it.
func prelude(total, headers uint32) []byte {
	var p [12]byte
	binary.BigEndian.PutUint32(p[0:], total)
	binary.BigEndian.PutUint32(p[4:], headers)
	binary.BigEndian.PutUint32(p[8:], crc32IEEE(p[:8]))
	return append(p[:], make([]byte, 4)...)
}

// TestCollectFailureModes runs failure-mode streams through core.Collect
// and checks the calls a client would run.
func TestCollectFailureModes(t *testing.T) {
	var frags []string
	for _, r := range `{"q":"Zürich","n":[1,2]}` {
		frags = append(frags, "contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":`+quote(string(r))+`}}}`)
	}
	tests := []struct {
		name    string
		body    []byte
		want    []core.Call
		wantErr error
	}{
		{
			name: "C02 no input deltas",
			body: frames(t, "contentBlockStart", `{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"t1","name":"now"}}}`, "contentBlockStop", `{"contentBlockIndex":0}`, "messageStop", `{"stopReason":"tool_use"}`),
			want: []core.Call{{ID: "t1", Name: "now", Arguments: json.RawMessage(`{}`)}},
		},
		{
			// The decoder passes index -1 on as sent. Index -1 is a lone call's index to core (A11);
			// two calls there are still two calls, told apart by their ids.
			name: "A11 index -1, two calls with ids",
			body: frames(t,
				"contentBlockStart", `{"contentBlockIndex":-1,"start":{"toolUse":{"toolUseId":"t1","name":"f"}}}`,
				"contentBlockDelta", `{"contentBlockIndex":-1,"delta":{"toolUse":{"input":"{\"a\":1}"}}}`,
				"contentBlockStop", `{"contentBlockIndex":-1}`,
				"contentBlockStart", `{"contentBlockIndex":-1,"start":{"toolUse":{"toolUseId":"t2","name":"g"}}}`,
				"contentBlockDelta", `{"contentBlockIndex":-1,"delta":{"toolUse":{"input":"{\"b\":2}"}}}`,
				"contentBlockStop", `{"contentBlockIndex":-1}`,
				"messageStop", `{"stopReason":"tool_use"}`),
			want: []core.Call{{ID: "t1", Name: "f", Arguments: json.RawMessage(`{"a":1}`)}, {ID: "t2", Name: "g", Arguments: json.RawMessage(`{"b":2}`)}},
		},
		{
			name: "A20 one fragment per character",
			body: frames(t, append(append([]string{"contentBlockStart", `{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"t1","name":"f"}}}`}, frags...), "contentBlockStop", `{"contentBlockIndex":0}`, "messageStop", `{"stopReason":"tool_use"}`)...),
			want: []core.Call{{ID: "t1", Name: "f", Arguments: json.RawMessage(`{"q":"Zürich","n":[1,2]}`)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := core.Collect(New().DecodeStream(bytes.NewReader(tt.body)))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, resp.Calls()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCollectB07 checks that argument text with a raw control character and
// a bad escape is never silently changed on its way to a client: it comes
// out repaired and marked so, with the original text kept, or incomplete
// with an error.
func TestCollectB07(t *testing.T) {
	raw := "{\"s\":\"a\nb\\x\"}"
	body := frames(t,
		"contentBlockStart", `{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"t1","name":"f"}}}`,
		"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"s\":\"a\nb\\x\"}"}}}`,
		"contentBlockStop", `{"contentBlockIndex":0}`)
	resp, err := core.Collect(New().DecodeStream(bytes.NewReader(body)))
	switch calls := resp.Calls(); {
	case len(calls) == 1:
		if !calls[0].Repaired || calls[0].Original != raw {
			t.Errorf("call %+v: changed arguments must be marked repaired with the original %q", calls[0], raw)
		}
	case len(calls) == 0:
		if err == nil || len(resp.Incomplete) != 1 {
			t.Errorf("no call, %d incomplete, error %v: a dropped call must be reported", len(resp.Incomplete), err)
		}
	default:
		t.Errorf("%d calls from one", len(calls))
	}
}

func TestDecodeStreamTooManyBlocks(t *testing.T) {
	var pairs []string
	for i := 0; i <= maxOpenBlocks; i++ {
		pairs = append(pairs, "contentBlockStart", fmt.Sprintf(`{"contentBlockIndex":%d,"start":{"toolUse":{"toolUseId":"t%d","name":"f"}}}`, i, i))
	}
	body := frames(t, pairs...)
	evs, err := adaptertest.Drain(New().DecodeStream(bytes.NewReader(body)))
	var fe *DecodeError
	if !errors.Is(err, core.ErrTooLarge) || !errors.As(err, &fe) {
		t.Fatalf("error %v, want a *DecodeError wrapping core.ErrTooLarge", err)
	}
	if len(evs) != maxOpenBlocks {
		t.Errorf("%d events before the limit, want %d", len(evs), maxOpenBlocks)
	}
	if want := int64(len(frames(t, pairs[:2*maxOpenBlocks]...))); fe.Offset != want {
		t.Errorf("offset %d, want %d, the start of the frame over the limit", fe.Offset, want)
	}
}

// TestInvokeStreamA18 checks an InvokeModel tool_use whose
// content_block_start already carries input followed by input_json_delta
// fragments (A18): the deltas are the input, never appended to the start's,
// when they repeat or extend it (compared as JSON); when they drop or
// change a member of the start's input the stream ends at the block's
// content_block_stop with a *DecodeError wrapping core.ErrMalformed and
// ErrInputConflict that names the block index and the call id, and the
// call is incomplete.
func TestInvokeStreamA18(t *testing.T) {
	head := []string{
		`{"type":"message_start","message":{"id":"m","model":"claude","usage":{"input_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}`,
		`{"type":"content_block_stop","index":0}`,
	}
	startIn := func(input string) string {
		return `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_7","name":"f","input":` + input + `}}`
	}
	deltaIn := func(frag string) string {
		return `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":` + quote(frag) + `}}`
	}
	stop := `{"type":"content_block_stop","index":1}`
	tail := []string{`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}`, `{"type":"message_stop"}`}
	tests := []struct {
		name   string
		start  string
		deltas []string
		// args of the complete call, or "" when the deltas contradict the
		// start and the stream ends with an error.
		args string
	}{
		{"deltas repeat the start input", `{"a":1}`, []string{`{"a":`, `1}`}, `{"a":1}`},
		{"deltas extend the start input", `{"a":1}`, []string{`{"a":1,`, `"b":[2]}`}, `{"a":1,"b":[2]}`},
		{"deltas extend a nested object", `{"o":{"x":1}}`, []string{`{"o":{"x":1,"y":2}}`}, `{"o":{"x":1,"y":2}}`},
		{"key order, white space and number spelling make no difference", `{"a":1,"b":"x"}`, []string{`{ "b" : "x", "a" : 1.0e0 }`}, `{ "b" : "x", "a" : 1.0e0 }`},
		{"deltas change a member", `{"a":1}`, []string{`{"a":2}`}, ""},
		{"deltas drop a member", `{"a":1,"b":2}`, []string{`{"a":1}`}, ""},
		{"deltas change a nested array", `{"o":{"l":[1,2]}}`, []string{`{"o":{"l":[1]}}`}, ""},
		{"deltas are not an object", `{"a":1}`, []string{`[1]`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pre := append(append([]string{}, head...), startIn(tt.start))
			for _, d := range tt.deltas {
				pre = append(pre, deltaIn(d))
			}
			body := chunkFrames(t, append(append(append([]string{}, pre...), stop), tail...)...)
			evs, err := adaptertest.Drain(New().DecodeStream(bytes.NewReader(body)))
			want := []core.Event{{Kind: core.EventText, Text: "ok", ID: "m", Model: "claude"}, start(1, "toolu_7", "f")}
			for _, d := range tt.deltas {
				want = append(want, delta(1, d))
			}
			if tt.args != "" {
				want = append(want, end(1, nil),
					core.Event{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: 1, OutputTokens: 5}},
					core.Event{Kind: core.EventFinish, Finish: core.FinishToolCalls, ProviderFinish: "tool_use"})
				if err != nil {
					t.Fatal(err)
				}
			} else {
				var fe *DecodeError
				if !errors.As(err, &fe) || !errors.Is(err, core.ErrMalformed) || !errors.Is(err, ErrInputConflict) {
					t.Fatalf("error %v, want a *DecodeError wrapping core.ErrMalformed and ErrInputConflict", err)
				}
				if off := int64(len(chunkFrames(t, pre...))); fe.Offset != off {
					t.Errorf("offset %d, want %d, the content_block_stop frame", fe.Offset, off)
				}
				for _, s := range []string{"block 1", `"toolu_7"`, tt.start} {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not name %s", err, s)
					}
				}
			}
			if diff := cmp.Diff(want, evs); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}

			resp, err := core.Collect(New().DecodeStream(bytes.NewReader(body)))
			if tt.args != "" {
				want := []core.Call{{ID: "toolu_7", Name: "f", Arguments: json.RawMessage(tt.args)}}
				if diff := cmp.Diff(want, resp.Calls()); diff != "" || err != nil {
					t.Errorf("collect: error %v, calls (-want +got):\n%s", err, diff)
				}
				return
			}
			want2 := []core.Call{{ID: "toolu_7", Name: "f", Original: strings.Join(tt.deltas, "")}}
			if diff := cmp.Diff(want2, resp.Incomplete); diff != "" || len(resp.Calls()) != 0 || !errors.Is(err, ErrInputConflict) {
				t.Errorf("collect: error %v, calls %+v, incomplete (-want +got):\n%s", err, resp.Calls(), diff)
			}
		})
	}
}

// TestInvokeStreamA18Limit checks that the delta text kept to compare with
// a populated start input is bounded: past core.DefaultMaxArgBytes the
// stream ends with an error wrapping core.ErrArgumentsTooLarge that names
// the block and the call.
func TestInvokeStreamA18Limit(t *testing.T) {
	events := []string{`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_8","name":"f","input":{"a":1}}}`}
	piece := strings.Repeat("x", 700<<10) // under the frame limit once base64-encoded
	for n := 0; n <= core.DefaultMaxArgBytes; n += len(piece) {
		events = append(events, `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"`+piece+`"}}`)
	}
	_, err := adaptertest.Drain(New().DecodeStream(bytes.NewReader(chunkFrames(t, events...))))
	var fe *DecodeError
	if !errors.As(err, &fe) || !errors.Is(err, core.ErrArgumentsTooLarge) {
		t.Fatalf("error %v, want a *DecodeError wrapping core.ErrArgumentsTooLarge", err)
	}
	if off := int64(len(chunkFrames(t, events[:len(events)-1]...))); fe.Offset != off {
		t.Errorf("offset %d, want %d, the frame over the limit", fe.Offset, off)
	}
	if !strings.Contains(err.Error(), `block 2 (id "toolu_8")`) {
		t.Errorf("error %q does not name the block and call", err)
	}
}

// TestStreamNotBedrock checks that frames none of which is a Converse or
// InvokeModel stream event are refused at the first of them, wrapping
// core.ErrNotStream, while a stream with an unknown frame among its own
// still decodes (AWS may add event types).
func TestStreamNotBedrock(t *testing.T) {
	foreign := frames(t, "somethingElse", `{}`, "anotherThing", `{}`)
	_, err := core.Collect(New().DecodeStream(bytes.NewReader(foreign)))
	var fe *DecodeError
	if !errors.Is(err, core.ErrNotStream) || !errors.As(err, &fe) || fe.Offset != 0 {
		t.Fatalf("error %v, want a *DecodeError at byte 0 wrapping core.ErrNotStream", err)
	}
	mixed := frames(t, "somethingElse", `{}`,
		"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"hi"}}`,
		"messageStop", `{"stopReason":"end_turn"}`)
	resp, err := core.Collect(New().DecodeStream(bytes.NewReader(mixed)))
	if err != nil || resp.Text() != "hi" {
		t.Fatalf("a stream with an unknown frame among its own: %v, text %q", err, resp.Text())
	}
}
