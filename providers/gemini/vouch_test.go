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
