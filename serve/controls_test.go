package serve

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/scenarios"
)

// TestGradeClientCrash checks that a crash is never a pass, on a broken
// stream where stopping is what the case asks for: a Go panic or fatal
// error, out of memory (in stderr or in the client's own JSON result on
// stdout), a signal, or the shell's 128+N status. A script's uncaught
// exception is how it reports the broken stream, and passes.
func TestGradeClientCrash(t *testing.T) {
	call := core.Call{ID: "call_1", Name: "f", Arguments: json.RawMessage(`{}`)}
	broken := &scenarios.Scenario{Want: scenarios.Want{Error: regexp.MustCompile("cut")}}
	base := ClientRun{Exit: 1, Verdict: Verdict{Served: 1, Incomplete: []core.Call{call}}}
	tests := []struct {
		name      string
		edit      func(r *ClientRun)
		wantCrash string
	}{
		{"go panic", func(r *ClientRun) {
			r.Exit, r.Stderr = 2, "panic: runtime error: index out of range [1000000000] with length 0\n\ngoroutine 1 [running]:\nmain.main()\n"
		}, "output: panic: runtime error: index out of range [1000000000] with length 0"},
		{"go fatal error", func(r *ClientRun) {
			r.Exit, r.Stderr = 2, "fatal error: runtime: out of memory\n\nruntime stack:\n"
		}, "output: fatal error: runtime: out of memory"},
		{"out of memory in the JSON result", func(r *ClientRun) {
			r.Stdout = `{"ok":false,"error":"fatal error: runtime: out of memory"}`
		}, `output: {"ok":false,"error":"fatal error: runtime: out of memory"}`},
		{"node heap", func(r *ClientRun) {
			r.Exit, r.Stderr = 134, "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n"
		}, "output: FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory"},
		{"killed by a signal", func(r *ClientRun) { r.Exit, r.Signal = -1, "signal: killed" }, "killed by a signal (signal: killed)"},
		{"shell status of a signal", func(r *ClientRun) { r.Exit = 137 }, "exit status 137: killed by signal 9"},
		{"a panic word inside a message is no crash", func(r *ClientRun) { r.Stderr = "error: do not panic: stream cut\n" }, ""},
		{"python exception reports the stream", func(r *ClientRun) {
			r.Stderr = "Traceback (most recent call last):\n  File \"c.py\", line 3\nopenai.APIError: stream ended early\n"
		}, ""},
		{"node error reports the stream", func(r *ClientRun) {
			r.Stderr = "Error: stream ended without a finish\n    at main (c.js:3:9)\n"
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := base
			tt.edit(&run)
			GradeClient(&run, broken, Chaos{})
			if run.Crash != tt.wantCrash {
				t.Errorf("crash %q, want %q", run.Crash, tt.wantCrash)
			}
			wantStatus := "pass"
			if tt.wantCrash != "" {
				wantStatus = "fail"
			}
			if run.Status != wantStatus {
				t.Errorf("status %q, want %q (reasons %q)", run.Status, wantStatus, run.Reasons)
			}
			if run.ByFailing != (wantStatus == "pass") {
				t.Errorf("by failing %v on status %s", run.ByFailing, run.Status)
			}
		})
	}
}

// TestApplyControls checks that a pass by failing counts only beside a
// passing control of the same client: the same scenario without chaos,
// else an unbroken case of the same protocol and kind passed on a graded
// follow-up.
func TestApplyControls(t *testing.T) {
	call := core.Call{ID: "c", Name: "f", Arguments: json.RawMessage(`{}`)}
	solid := func(name string) ClientRun {
		return ClientRun{Name: name, Scenario: name, Protocol: "anthropic", Kind: scenarios.KindStream, Chaos: "none", Status: "pass",
			Verdict: Verdict{Graded: true, Calls: []core.Call{call}}}
	}
	byFailing := func(name, scenario, chaos string) ClientRun {
		return ClientRun{Name: name, Scenario: scenario, Protocol: "anthropic", Kind: scenarios.KindStream, Chaos: chaos, Status: "pass", ByFailing: true, Exit: 1}
	}
	failed := func(r ClientRun) ClientRun { r.Status, r.Verdict.Graded = "fail", false; return r }
	tests := []struct {
		name string
		runs []ClientRun
		want []string // status and control of each run, "status control"
		n    int
	}{
		{"chaos twin passes", []ClientRun{solid("a/A05"), byFailing("a/A05[disconnect]", "a/A05", "disconnect")},
			[]string{"pass ", "pass a/A05"}, 0},
		{"chaos twin fails", []ClientRun{failed(solid("a/A05")), byFailing("a/A05[disconnect]", "a/A05", "disconnect"), solid("a/A19")},
			[]string{"fail ", "not-counted a/A05", "pass "}, 1},
		{"broken case beside an unbroken pass of its protocol", []ClientRun{byFailing("a/B09", "a/B09", "none"), solid("a/A19")},
			[]string{"pass a/A19", "pass "}, 0},
		{"a client that reads no stream: every broken pass discounted", []ClientRun{
			byFailing("a/B09", "a/B09", "none"), byFailing("a/B09[error]", "a/B09", "error"), failed(solid("a/A19"))},
			[]string{"not-counted ", "not-counted ", "fail "}, 2},
		{"the control is of the same protocol", []ClientRun{byFailing("a/B09", "a/B09", "none"), func() ClientRun { r := solid("g/A19"); r.Protocol = "gemini"; return r }()},
			[]string{"not-counted ", "pass "}, 1},
		{"the control is of the same kind", []ClientRun{byFailing("a/B09", "a/B09", "none"), func() ClientRun { r := solid("a/F01"); r.Kind = scenarios.KindResponse; return r }()},
			[]string{"not-counted ", "pass "}, 1},
		{"a pass without a follow-up is no control", []ClientRun{byFailing("a/B09", "a/B09", "none"), func() ClientRun { r := solid("a/F03"); r.Verdict = Verdict{}; return r }()},
			[]string{"not-counted ", "pass "}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := ApplyControls(tt.runs)
			var got []string
			for _, r := range tt.runs {
				got = append(got, r.Status+" "+r.Control)
				if r.Status == StatusNotCounted && (len(r.Reasons) == 0 || !regexp.MustCompile(`^not counted: the client fails the control: `).MatchString(r.Reasons[len(r.Reasons)-1])) {
					t.Errorf("%s: reasons %q do not say why it is not counted", r.Name, r.Reasons)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if n != tt.n {
				t.Errorf("discounted %d, want %d", n, tt.n)
			}
		})
	}
}
