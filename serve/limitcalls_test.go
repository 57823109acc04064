package serve

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLimitCallsMayRun serves A12, a complete call on index 1,000,000,000
// that conform's decoder cuts at its own limit: a client that keys calls
// by a map and runs it passes, with its arguments graded as a served
// call's; one that refuses it passes as well (by failing, so beside a
// control); a crash fails.
func TestLimitCallsMayRun(t *testing.T) {
	const name = "openai-chat/streaming/A12-huge-index"
	first := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"ping","parameters":{"type":"object"}}}]}`
	followUp := func(args string) string {
		return `{"model":"m","messages":[{"role":"user","content":"hi"},` +
			`{"role":"assistant","content":null,"tool_calls":[{"id":"call_big","type":"function","function":{"name":"ping","arguments":` + args + `}}]},` +
			`{"role":"tool","tool_call_id":"call_big","content":"{}"}]}`
	}
	for _, tt := range []struct {
		args string
		want []string
	}{
		{`"{}"`, nil},
		{`"{\"x\":1}"`, []string{"G09", EchoRule}},
	} {
		s, ts := newServer(t, Options{Echo: true})
		p := poster{t: t, ts: ts, name: name, protocol: "openai-chat"}
		if status, data := p.post(first, true); status != 200 {
			t.Fatalf("first: %d %s", status, data)
		}
		if status, data := p.post(followUp(tt.args), false); status != 200 {
			t.Fatalf("follow-up: %d %s", status, data)
		}
		if diff := cmp.Diff(tt.want, verdictRules(t, s, name)); diff != "" {
			t.Errorf("arguments %s (-want +got):\n%s", tt.args, diff)
		}
		v, _ := s.Verdict(name)
		if len(v.Incomplete) != 0 || len(v.Optional) != 1 || v.Optional[0].ID != "call_big" {
			t.Errorf("incomplete %v, optional %v; want call_big optional", v.Incomplete, v.Optional)
		}
		if tt.want == nil {
			sc, _ := s.Scenario(name)
			run := ClientRun{Exit: 0, Stdout: DefaultAnswer, Verdict: v}
			GradeClient(&run, sc, Chaos{})
			if run.Status != "pass" || run.ByFailing {
				t.Errorf("client that ran the call: status %s by failing %v, reasons %q", run.Status, run.ByFailing, run.Reasons)
			}
		}
	}
	s, _ := newServer(t, Options{})
	sc, _ := s.Scenario(name)
	for _, tt := range []struct {
		name string
		run  ClientRun
		want string
	}{
		{"refused", ClientRun{Exit: 1, Stderr: "index 1000000000 too large\n", Verdict: Verdict{Served: 1}}, "pass"},
		{"out of memory", ClientRun{Exit: 2, Stderr: "fatal error: runtime: out of memory\n", Verdict: Verdict{Served: 1}}, "fail"},
	} {
		GradeClient(&tt.run, sc, Chaos{})
		if tt.run.Status != tt.want {
			t.Errorf("%s: status %s, want %s (%q)", tt.name, tt.run.Status, tt.want, tt.run.Reasons)
		}
	}
}
