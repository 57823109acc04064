package gemini

import (
	"bytes"
	"testing"

	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// vouchBodies are streams whose calls have arguments sent whole (compact,
// spaced, with escapes and non-ASCII text), none, in partialArgs pieces
// (never vouched for), and invalid UTF-8 in arguments (refused before any
// vouch), in the SSE and JSON array forms.
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
	for i, want := range []int{2, 1, 0, 0} {
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
// a chunk of two calls; text and a call in one chunk.
var reuseBodies = []string{
	"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"id\":\"a\",\"name\":\"f\",\"args\":{\"x\": 1, \"y\": [1, 2]}}},{\"functionCall\":{\"id\":\"b\",\"name\":\"g\",\"args\":{\"z\":\"zz\"}}},{\"functionCall\":{\"id\":\"c\",\"name\":\"h\",\"args\":{ \"w\" : true }}}]}}]}\n\n" +
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"id\":\"d\",\"name\":\"f\",\"args\":{\"q\":2}}}]},\"finishReason\":\"STOP\"}]}\n\n",
	"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"id\":\"a\",\"name\":\"f\",\"args\":{\"x\":1},\"willContinue\":true}}]}}]}\n\n" +
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"willContinue\":false}},{\"functionCall\":{\"id\":\"b\",\"name\":\"g\",\"args\":{\"k\":[true]}}}]},\"finishReason\":\"STOP\"}]}\n\n",
	"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"id\":\"p\",\"name\":\"f\",\"partialArgs\":[{\"jsonPath\":\"$.a\",\"stringValue\":\"x\"}],\"willContinue\":true}}]}}]}\n\n" +
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.b\",\"numberValue\":2}],\"willContinue\":true}}]}}]}\n\n" +
		"data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"partialArgs\":[{\"jsonPath\":\"$.c\",\"boolValue\":true}]}},{\"functionCall\":{\"name\":\"g\",\"args\":{\"n\":1}}},{\"functionCall\":{\"name\":\"h\",\"args\":{\"n\": 2}}}]},\"finishReason\":\"STOP\"}],\"responseId\":\"r9\"}\n\n",
	"data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"I will call f. \"},{\"functionCall\":{\"name\":\"f\",\"args\":{\"t\":\"\\u00e9\"}}},{\"text\":\"Done.\"}]},\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":3}}\n\n",
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
