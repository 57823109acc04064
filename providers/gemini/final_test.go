package gemini

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
)

// TestPartialArgsFinalMustAgree: a call streamed as partialArgs pieces and
// then sent whole (functionCall.args) keeps its pieces only when the whole
// agrees with them, compacted; any other whole is a conflict naming both,
// and the call is incomplete, never the whole silently (issue 28).
func TestPartialArgsFinalMustAgree(t *testing.T) {
	pieces := []string{
		`{"candidates":[{"content":{"parts":[{"functionCall":{"id":"c1","name":"sh","willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.cmd","stringValue":"rm -rf /tmp","willContinue":true}],"willContinue":true}}]}}]}`,
		`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.cmd","stringValue":"/build"}],"willContinue":true}}]}}]}`,
	}
	for _, tt := range []struct {
		name, final string
		complete    bool
	}{
		{"the same", `{"cmd": "rm -rf /tmp/build"}`, true},
		{"another value", `{"cmd":"rm -rf /"}`, false},
		{"an empty object", `{}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := sseBody(append(append([]string(nil), pieces...),
				`{"candidates":[{"content":{"parts":[{"functionCall":{"args":`+tt.final+`}}]},"finishReason":"STOP"}]}`)...)
			resp, err := core.Collect(New().DecodeStream(strings.NewReader(body)))
			calls := resp.Calls()
			if tt.complete {
				if err != nil || len(calls) != 1 || string(calls[0].Arguments) != `{"cmd":"rm -rf /tmp/build"}` {
					t.Fatalf("Collect = %+v, %v; want the call with its pieces' arguments", calls, err)
				}
				return
			}
			if len(calls) != 0 || len(resp.Incomplete) != 1 || !errors.Is(err, core.ErrConflict) ||
				!strings.Contains(err.Error(), `differ from the partialArgs pieces before them, "{\"cmd\":\"rm -rf /tmp/build\"}"`) {
				t.Fatalf("Collect = %+v, incomplete %+v, %v; want the call incomplete and a conflict naming both", calls, resp.Incomplete, err)
			}
		})
	}
}
