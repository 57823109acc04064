package gemini

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// vouchBodies are streams whose calls have arguments sent whole (compact,
// spaced, with escapes and non-ASCII text), none, in partialArgs pieces
// (vouched for: what argTree writes is always JSON), and invalid UTF-8 in
// arguments (refused before any vouch), in the SSE and JSON array forms.
var vouchBodies = []string{
	"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":{\"a\": [1, 2], \"s\":\"\\u00e9t\\u00e9 \\\"q\\\"\"}}},{\"functionCall\":{\"name\":\"g\"}}]},\"finishReason\":\"STOP\"}],\"responseId\":\"r1\"}\r\n\r\n",
	`[{"candidates":[{"content":{"parts":[{"functionCall":{"id":"c1","name":"f","args":{"k":"été"}}}]},"finishReason":"STOP"}]}]`,
	"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"partialArgs\":[{\"jsonPath\":\"$.a\",\"stringValue\":\"x\"}],\"willContinue\":true}}]}}]}\n\n" +
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.b\",\"numberValue\":2}]}}]},\"finishReason\":\"STOP\"}]}\n\n",
	"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":{\"k\":\"\xff\"}}}]},\"finishReason\":\"STOP\"}]}\n\n",
}

// TestCollectVouched: core.Collect gives the same Response and error
// whether or not it uses the stream's VouchArgs, over every recorded
// stream and the streams above; every vouch is for one JSON value in
// UTF-8 and for the checked string only, and the streams with whole
// arguments are vouched for.
func TestCollectVouched(t *testing.T) {
	bodies := [][]byte{typicalStream(20), callsStream(5)}
	for _, b := range corpusBodies(t) {
		if isStream(b) {
			bodies = append(bodies, b)
		}
	}
	for _, b := range vouchBodies {
		bodies = append(bodies, []byte(b))
	}
	a := New()
	if n := adaptertest.CheckCollectVouched(t, bodies, a.DecodeStream); n < 10 {
		t.Errorf("%d arguments vouched for, want at least the 10 of the streams with whole arguments", n)
	}
	for i, want := range []int{2, 1, 1, 0} {
		n, _ := adaptertest.CheckVouches(t, a.DecodeStream(bytes.NewReader([]byte(vouchBodies[i]))), 100)
		if n != want {
			t.Errorf("vouchBodies[%d]: %d arguments vouched for, want %d", i, n, want)
		}
	}
}

// reuseBodies are streams whose events' storage a decoder that reuses it
// too early would give Collect wrong: two calls sent whole in one chunk,
// one with spaced arguments (compacted into the chunk's buffer) and one
// compact (a view of the chunk); a call whose arguments come whole and
// end in a later chunk; partialArgs pieces over three chunks followed by
// a chunk of two calls; two calls of partialArgs pieces in one chunk;
// text and a call in one chunk.
var reuseBodies = []string{
	"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"id\":\"a\",\"name\":\"f\",\"args\":{\"x\": 1, \"y\": [1, 2]}}},{\"functionCall\":{\"id\":\"b\",\"name\":\"g\",\"args\":{\"z\":\"zz\"}}},{\"functionCall\":{\"id\":\"c\",\"name\":\"h\",\"args\":{ \"w\" : true }}}]}}]}\n\n" +
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"id\":\"d\",\"name\":\"f\",\"args\":{\"q\":2}}}]},\"finishReason\":\"STOP\"}]}\n\n",
	"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"id\":\"a\",\"name\":\"f\",\"args\":{\"x\":1},\"willContinue\":true}}]}}]}\n\n" +
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"willContinue\":false}},{\"functionCall\":{\"id\":\"b\",\"name\":\"g\",\"args\":{\"k\":[true]}}}]},\"finishReason\":\"STOP\"}]}\n\n",
	"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"id\":\"p\",\"name\":\"f\",\"partialArgs\":[{\"jsonPath\":\"$.a\",\"stringValue\":\"x\"}],\"willContinue\":true}}]}}]}\n\n" +
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.b\",\"numberValue\":2}],\"willContinue\":true}}]}}]}\n\n" +
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.c\",\"boolValue\":true}]}},{\"functionCall\":{\"name\":\"g\",\"args\":{\"n\":1}}},{\"functionCall\":{\"name\":\"h\",\"args\":{\"n\": 2}}}]},\"finishReason\":\"STOP\"}],\"responseId\":\"r9\"}\n\n",
	"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"id\":\"a\",\"name\":\"f\",\"partialArgs\":[{\"jsonPath\":\"$.x\",\"stringValue\":\"the first call's\"}]}},{\"functionCall\":{\"id\":\"b\",\"name\":\"g\",\"partialArgs\":[{\"jsonPath\":\"$.y\",\"numberValue\":2}]}}]},\"finishReason\":\"STOP\"}]}\n\n",
	"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"I will call f. \"},{\"functionCall\":{\"name\":\"f\",\"args\":{\"t\":\"\\u00e9\"}}},{\"text\":\"Done.\"}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":3}}\n\n",
	"data: {\"candidates\":[{\"content\":{\"parts\":[{\"thought\":true,\"text\":\"h\\u00e9 \\\"q\\\"\"},{\"text\":\"A\\u00e8\\n\"},{\"text\":\"B\\t\"}]}}]}\n\n" +
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"C\\u00e0\"}]},\"finishReason\":\"STOP\"}]}\n\n",
}

// TestCollectReused: core.Collect gives the same Response and error
// whether or not the stream may reuse its events' storage
// (ReuseEventText), over every recorded stream, the streams of the
// benchmarks' shape and those above, read whole and in pieces.
func TestCollectReused(t *testing.T) {
	bodies := [][]byte{typicalStream(20), callsStream(5), callsStream(40)}
	for _, b := range corpusBodies(t) {
		if isStream(b) {
			bodies = append(bodies, b)
		}
	}
	for _, b := range append(vouchBodies, reuseBodies...) {
		bodies = append(bodies, []byte(b))
	}
	adaptertest.CheckCollectReused(t, bodies, New().DecodeStream)
}

// interactionReuseBodies are Interactions streams whose events' storage a
// decoder that reuses it too early would give Collect wrong: calls held
// until their step.stop (no interaction id yet), each released as a start,
// a delta and an end from one SSE event, one with its arguments on
// step.start (vouched for) and one in deltas; six steps open at once, past
// the stream's table of four; three held calls abandoned at the end; a
// call whose arguments hold a byte that is not UTF-8 (not vouched for).
var interactionReuseBodies = []string{
	sseBody(
		`{"index":0,"step":{"type":"function_call","name":"f","arguments":{"a": [1, 2]}},"event_type":"step.start"}`,
		`{"index":1,"step":{"type":"function_call","name":"g"},"event_type":"step.start"}`,
		`{"index":1,"delta":{"type":"arguments_delta","arguments":"{\"b\":"},"event_type":"step.delta"}`,
		`{"index":1,"delta":{"type":"arguments_delta","arguments":"\"x\"}"},"event_type":"step.delta"}`,
		`{"index":0,"event_type":"step.stop"}`,
		`{"index":1,"event_type":"step.stop"}`,
		`{"interaction":{"id":"i1","status":"requires_action","usage":{"total_input_tokens":3,"total_output_tokens":4}},"event_type":"interaction.completed"}`),
	sseBody(
		`{"interaction":{"id":"i2","model":"gemini-x"},"event_type":"interaction.created"}`,
		`{"index":0,"step":{"type":"function_call","name":"f0","arguments":{"k":0}},"event_type":"step.start"}`,
		`{"index":1,"step":{"type":"function_call","id":"c1","name":"f1","arguments":{"k": 1}},"event_type":"step.start"}`,
		`{"index":2,"step":{"type":"thought","signature":"s"},"event_type":"step.start"}`,
		`{"index":3,"step":{"type":"function_call","name":"f3"},"event_type":"step.start"}`,
		`{"index":4,"step":{"type":"model_output"},"event_type":"step.start"}`,
		`{"index":5,"step":{"type":"function_call","name":"f5","arguments":{"k":5}},"event_type":"step.start"}`,
		`{"index":3,"delta":{"type":"arguments_delta","arguments":"{\"k\":3}"},"event_type":"step.delta"}`,
		`{"index":4,"delta":{"type":"text","text":"hi"},"event_type":"step.delta"}`,
		`{"index":5,"event_type":"step.stop"}`,
		`{"index":0,"event_type":"step.stop"}`,
		`{"index":3,"event_type":"step.stop"}`,
		`{"index":1,"event_type":"step.stop"}`,
		`{"index":2,"event_type":"step.stop"}`,
		`{"index":4,"event_type":"step.stop"}`,
		`{"interaction":{"id":"i2","status":"requires_action"},"event_type":"interaction.completed"}`),
	sseBody(
		`{"index":0,"step":{"type":"function_call","name":"f"},"event_type":"step.start"}`,
		`{"index":0,"delta":{"type":"arguments_delta","arguments":"{\"a\":1}"},"event_type":"step.delta"}`,
		`{"index":1,"step":{"type":"function_call","name":"g","arguments":{"b":2}},"event_type":"step.start"}`,
		`{"index":2,"step":{"type":"function_call","name":"h"},"event_type":"step.start"}`,
		`{"index":2,"delta":{"type":"arguments_delta","arguments":"{\"c\":"},"event_type":"step.delta"}`),
	sseBody(
		"{\"index\":0,\"step\":{\"type\":\"function_call\",\"id\":\"c\",\"name\":\"f\",\"arguments\":{\"a\":\"\xff\"}},\"event_type\":\"step.start\"}",
		`{"index":0,"event_type":"step.stop"}`,
		`{"interaction":{"id":"i3","status":"requires_action"},"event_type":"interaction.completed"}`),
}

// TestCollectInteractionsReused: core.Collect gives the same Response and
// error whether or not the Interactions stream may reuse its events'
// storage (ReuseEventText) and vouches for arguments (VouchArgs), over the
// recorded streams, the known bad ones and the streams above, read whole
// and in pieces; every vouch is for one JSON value in UTF-8 and for the
// checked string only.
func TestCollectInteractionsReused(t *testing.T) {
	var bodies [][]byte
	for _, e := range adaptertest.Recordings(t, "other") {
		if strings.HasSuffix(e.Name, ".chunks.txt") {
			bodies = append(bodies, e.Exchanges[0].Response)
		}
	}
	if len(bodies) != 2 {
		t.Fatalf("%d recorded Interactions streams, want 2", len(bodies))
	}
	for _, b := range append(knownBadInteractions, interactionReuseBodies...) {
		bodies = append(bodies, []byte(b))
	}
	a := New()
	if n := adaptertest.CheckCollectVouched(t, bodies, a.DecodeInteractionStream); n < 4 {
		t.Errorf("%d arguments vouched for, want at least the 4 sent on step.start in interactionReuseBodies", n)
	}
}

// TestCollectConcurrent: streams collected from several goroutines at
// once, their pooled decoders and Collect's pooled Buffers passing from
// one to another, each give what they give collected alone.
func TestCollectConcurrent(t *testing.T) {
	bodies := [][]byte{typicalStream(20), callsStream(5), callsStream(40)}
	for _, b := range corpusBodies(t) {
		if isStream(b) {
			bodies = append(bodies, b)
		}
	}
	for _, b := range reuseBodies {
		bodies = append(bodies, []byte(b))
	}
	adaptertest.CheckCollectConcurrent(t, bodies, New().DecodeStream)
}
