package serve

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/scenarios"
)

// TestGradeClient checks the verdict of a client run from what the server
// saw, the exit status and the output (docs/client-protocol.md, Grading).
func TestGradeClient(t *testing.T) {
	call := core.Call{ID: "call_1", Name: "f", Arguments: json.RawMessage(`{"a":1}`)}
	repaired := core.Call{ID: "call_b7", Name: "write_file", Arguments: json.RawMessage(`{"body":"a\nb"}`), Repaired: true, Original: "{\"body\":\"a\nb\"}"}
	answer := DefaultAnswer + "\n"
	plain := &scenarios.Scenario{}
	broken := &scenarios.Scenario{Want: scenarios.Want{Error: regexp.MustCompile("cut")}}
	tests := []struct {
		name        string
		sc          *scenarios.Scenario
		chaos       Chaos
		run         ClientRun
		wantReasons []string
	}{
		{"calls answered", plain, Chaos{},
			ClientRun{Exit: 0, Stdout: answer, Verdict: Verdict{Served: 1, Calls: []core.Call{call}, Graded: true}}, nil},
		{"calls never answered", plain, Chaos{},
			ClientRun{Protocol: "openai-chat", Exit: 1, Verdict: Verdict{Served: 1, Calls: []core.Call{call}}},
			[]string{"G03: served 1 call(s) but no follow-up with tool results arrived", "exit status 1, want 0", `stdout does not show the final answer "conform: the tool results were received"`}},
		{"a repaired call refused: the client stopped, as it must for unparsable arguments", plain, Chaos{},
			ClientRun{Exit: 1, Verdict: Verdict{Served: 1, Calls: []core.Call{call, repaired}}}, nil},
		{"a repaired call neither run nor reported (exit 0)", plain, Chaos{},
			ClientRun{Protocol: "mistral", Exit: 0, Verdict: Verdict{Served: 1, Calls: []core.Call{repaired}}},
			[]string{"G03: served 1 call(s) but no follow-up with tool results arrived", `stdout does not show the final answer "conform: the tool results were received"`}},
		{"a repaired call run with changed arguments", plain, Chaos{},
			ClientRun{Exit: 0, Stdout: answer, Verdict: Verdict{Served: 1, Calls: []core.Call{repaired}, Graded: true,
				Problems: []scenarios.Problem{{Rule: "G09", Message: "sent back as {}"}}}},
			[]string{"follow-up: G09: sent back as {}"}},
		{"no call served, none answered", plain, Chaos{},
			ClientRun{Exit: 0, Verdict: Verdict{Served: 1}}, nil},
		{"no call served but a follow-up sent", plain, Chaos{},
			ClientRun{Exit: 0, Verdict: Verdict{Served: 1, Graded: true}},
			[]string{"G02: sent a follow-up although no call was served"}},
		{"broken stream reported", broken, Chaos{},
			ClientRun{Exit: 1, Verdict: Verdict{Served: 1, Incomplete: []core.Call{call}}}, nil},
		{"broken stream answered as if whole", plain, Chaos{Disconnect: true},
			ClientRun{Exit: 0, Stdout: answer, Verdict: Verdict{Served: 1, Incomplete: []core.Call{call}, Graded: true}},
			[]string{"exit 0 after a broken stream with 1 incomplete call(s)"}},
		{"never asked", plain, Chaos{},
			ClientRun{Exit: 1, Verdict: Verdict{Errors: []string{"wrong path"}}},
			[]string{"the client never sent its first request (errors: wrong path)", "server refused a request: wrong path", "exit status 1, want 0"}},
		{"timed out", plain, Chaos{},
			ClientRun{Exit: -1, TimedOut: true, Verdict: Verdict{Served: 1}},
			[]string{"the client did not finish in time", "exit status -1, want 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := tt.run
			GradeClient(&run, tt.sc, tt.chaos)
			if diff := cmp.Diff(tt.wantReasons, run.Reasons); diff != "" {
				t.Errorf("reasons (-want +got):\n%s", diff)
			}
			wantStatus := "pass"
			if len(tt.wantReasons) > 0 {
				wantStatus = "fail"
			}
			if run.Status != wantStatus {
				t.Errorf("status %q, want %q", run.Status, wantStatus)
			}
		})
	}
}

// TestGradeClientNotApplicable checks that a run whose scenario was not
// served for a request option the client did not carry is neither passed
// nor failed, whatever the program did, and says why.
func TestGradeClientNotApplicable(t *testing.T) {
	for _, exit := range []int{0, 1} {
		run := ClientRun{Exit: exit, Verdict: Verdict{NotApplicable: "needs X"}}
		GradeClient(&run, &scenarios.Scenario{}, Chaos{})
		if diff := cmp.Diff([]string{StatusNotApplicable, "not applicable: needs X"}, append([]string{run.Status}, run.Reasons...)); diff != "" {
			t.Errorf("exit %d (-want +got):\n%s", exit, diff)
		}
	}
	run := ClientRun{Exit: 0, Stdout: DefaultAnswer, Verdict: Verdict{NotApplicable: "needs X", Served: 1}}
	GradeClient(&run, &scenarios.Scenario{}, Chaos{})
	if run.Status != "pass" {
		t.Errorf("served after all: status %q, reasons %q; want pass", run.Status, run.Reasons)
	}
}

// TestGradeClientNamesMode checks that a run without a follow-up names the
// failure mode of each protocol's missing results.
func TestGradeClientNamesMode(t *testing.T) {
	call := core.Call{ID: "c", Name: "f", Arguments: json.RawMessage(`{}`)}
	for protocol, rule := range map[string]string{"anthropic": "G01", "bedrock": "G01", "gemini": "G04", "openai-responses": "G07", "openai-chat": "G03", "cohere": "G03"} {
		run := ClientRun{Protocol: protocol, Verdict: Verdict{Served: 1, Calls: []core.Call{call}}}
		GradeClient(&run, &scenarios.Scenario{}, Chaos{})
		if want := rule + ": served 1 call(s) but no follow-up with tool results arrived"; len(run.Reasons) == 0 || run.Reasons[0] != want {
			t.Errorf("%s: reasons %q, want first %q", protocol, run.Reasons, want)
		}
	}
}
