package openairesponses

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

// TestStreamFinalAgreesWithDeltas: the arguments of function_call_arguments.done
// and output_item.done are a final that must agree with the deltas. An end
// event without arguments is no final, never {} (issue 28: a streamed
// {"cmd":"rm -rf /tmp/build"} came out {}, complete); a final that differs
// is a conflict naming both, and the call is incomplete, never the final
// silently (it came out {"cmd":"rm -rf /"}).
func TestStreamFinalAgreesWithDeltas(t *testing.T) {
	const args = `{"cmd":"rm -rf /tmp/build"}`
	deltas := []string{created, added("0", "fc_1", "call_1"), argDelta("0", "fc_1", strconv.Quote(args[:9])), argDelta("0", "fc_1", strconv.Quote(args[9:]))}
	doneNoArgs := `{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":0}`
	itemNoArgs := `{"type":"response.output_item.done","output_index":0,"item":{"id":"fc_1","type":"function_call","status":"completed","call_id":"call_1","name":"f"}}`
	tests := []struct {
		name     string
		ends     []string
		complete string // the arguments of the complete call, "" for none
		errText  string // what the error must say
	}{
		{name: "done without arguments", ends: []string{doneNoArgs, itemNoArgs}, complete: args},
		{name: "done with null arguments", ends: []string{argDone("0", "fc_1", "null")}, complete: args},
		{name: "item done without arguments", ends: []string{itemNoArgs}, complete: args},
		{name: "done that agrees", ends: []string{argDone("0", "fc_1", strconv.Quote(args)), itemDone("0", "fc_1", "call_1", strconv.Quote(args))}, complete: args},
		{
			name:    "done that differs",
			ends:    []string{argDone("0", "fc_1", strconv.Quote(`{"cmd":"rm -rf /"}`)), itemDone("0", "fc_1", "call_1", strconv.Quote(`{"cmd":"rm -rf /"}`))},
			errText: `final arguments differ from the streamed deltas: final "{\"cmd\":\"rm -rf /\"}", streamed "{\"cmd\":\"rm -rf /tmp/build\"}"`,
		},
		{
			name:    "item done that differs",
			ends:    []string{itemDone("0", "fc_1", "call_1", strconv.Quote(`{}`))},
			errText: `final arguments differ from the streamed deltas: final "{}", streamed "{\"cmd\":\"rm -rf /tmp/build\"}"`,
		},
		{
			name:    "done with empty arguments",
			ends:    []string{argDone("0", "fc_1", `""`)},
			errText: `final arguments differ from the streamed deltas: final "", streamed "{\"cmd\":\"rm -rf /tmp/build\"}"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := sseOf(append(append(append([]string(nil), deltas...), tt.ends...), completed)...)
			resp, err := core.Collect(New().DecodeStream(strings.NewReader(body)))
			calls := resp.Calls()
			if tt.complete != "" {
				if err != nil || len(calls) != 1 || string(calls[0].Arguments) != tt.complete || calls[0].Repaired {
					t.Fatalf("Collect = %v, %v; want one complete call with %s", calls, err, tt.complete)
				}
				return
			}
			if len(calls) != 0 || !errors.Is(err, core.ErrConflict) || !strings.Contains(err.Error(), tt.errText) {
				t.Fatalf("Collect = %v, %v; want no complete call and a conflict saying %s", calls, err, tt.errText)
			}
			want := []core.Call{{ID: "call_1", ItemID: "fc_1", Name: "f", Original: args}}
			if diff := cmp.Diff(want, resp.Incomplete); diff != "" {
				t.Errorf("incomplete (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStreamFinalManyDeltas: 100,000 one-byte deltas and an end event
// without arguments keep every byte (issue 28: with a million, 1,000,009
// bytes vanished).
func TestStreamFinalManyDeltas(t *testing.T) {
	var b strings.Builder
	b.WriteString(sseOf(created, added("0", "fc_1", "call_1"), argDelta("0", "fc_1", `"{\"s\":\""`)))
	const n = 100_000
	for range n {
		b.WriteString(sseOf(argDelta("0", "fc_1", `"x"`)))
	}
	b.WriteString(sseOf(argDelta("0", "fc_1", `"\"}"`), `{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":0}`, completed))
	resp, err := core.Collect(New().DecodeStream(strings.NewReader(b.String())))
	if calls := resp.Calls(); err != nil || len(calls) != 1 || len(calls[0].Arguments) != n+len(`{"s":""}`) {
		t.Fatalf("Collect = %d calls, %v; want one with %d bytes of arguments", len(calls), err, n+len(`{"s":""}`))
	}
}
