package serve

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/providers"
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

// TestDroppedStreamReadAsBroken serves a Bedrock stream whose connection
// chaos drops right after a toolUse block's contentBlockStop: the verdict
// holds the call incomplete, as a client reading the dropped connection
// does (B11: only the messageStop after it says whether the token limit
// cut the block), not complete as a clean end of the bytes would.
func TestDroppedStreamReadAsBroken(t *testing.T) {
	const name = "bedrock/response/D07-text-and-two-calls"
	chaos, err := ParseChaos("disconnect")
	if err != nil {
		t.Fatal(err)
	}
	s, ts := newServer(t, Options{Chaos: chaos})
	ep, _ := providers.HTTP("bedrock")
	req, err := http.NewRequest("POST", ep.URL(ts.URL, "m", true), strings.NewReader(`{"messages":[{"role":"user","content":[{"text":"hi"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(ScenarioHeader, name)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Errorf("the connection was not dropped")
	}
	resp.Body.Close()
	v, _ := s.Verdict(name)
	var calls, incomplete []string
	for _, c := range v.Calls {
		calls = append(calls, c.ID)
	}
	for _, c := range v.Incomplete {
		incomplete = append(incomplete, c.ID)
	}
	if diff := cmp.Diff([]string{"call_r1"}, incomplete); diff != "" || len(calls) != 0 {
		t.Errorf("calls %v; incomplete (-want +got):\n%s", calls, diff)
	}
}
