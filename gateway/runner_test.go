package gateway_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolconform/conform/gateway"
	"github.com/toolconform/conform/serve"
)

// startFaulty builds testdata/faultygw and starts it, as the spec file
// describes it, with args in place of its fault flags.
func startFaulty(t *testing.T, up *gateway.Upstream, args ...string) *gateway.Process {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "faultygw")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/faultygw").CombinedOutput(); err != nil {
		t.Fatalf("build faultygw: %v\n%s", err, out)
	}
	spec, err := gateway.LoadSpec("testdata/faulty-early-stop.json")
	if err != nil {
		t.Fatal(err)
	}
	spec.Command = append([]string{bin, "--addr", "127.0.0.1:{{port}}", "--upstream-url", "{{upstream_url}}"}, args...)
	p, err := spec.Start(context.Background(), "anthropic", listen(t, up))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop() })
	return p
}

// TestRunnerGatewayDied grades a gateway that exits at its fourth request:
// the case running then says so, with the exit status and the last line
// the gateway wrote, and no later case is run or counted.
func TestRunnerGatewayDied(t *testing.T) {
	up, err := gateway.NewUpstream(builtin(t), serve.Chaos{})
	if err != nil {
		t.Fatal(err)
	}
	p := startFaulty(t, up, "--fault", "none", "--die-after", "3")
	names := []string{"anthropic/streaming/B12-one-byte-fragments", "anthropic/response/D07-text-and-two-calls", "anthropic/streaming/A19-interleaved-content-blocks", "anthropic/streaming/A21-content-block-indices-start-at-1"}
	var progress []int
	rn := gateway.Runner{Upstream: up, Target: p.Target, Exited: p.Exited, Progress: func(done, total int, _ gateway.Result) {
		progress = append(progress, done)
		if total != 2*len(names) {
			t.Errorf("progress: total %d, want %d", total, 2*len(names))
		}
	}}
	results := rn.Run(context.Background(), names)
	if len(results) == 0 || len(results) >= 2*len(names) {
		t.Fatalf("%d results of %d cases: want the run to stop where the gateway died", len(results), 2*len(names))
	}
	last := results[len(results)-1]
	var died string
	for _, pr := range last.Problems {
		if pr.Rule == gateway.RuleDied {
			died = pr.Message
		}
	}
	for _, want := range []string{"exit status 3", "faultygw: panic: dying at request 4", "later case(s) not run"} {
		if !strings.Contains(died, want) {
			t.Errorf("the last case (%s) does not say %q of the gateway's death: %q", last.Name, want, died)
		}
	}
	if last.Status != gateway.StatusFail {
		t.Errorf("the case the gateway died in has status %q", last.Status)
	}
	for _, r := range results[:len(results)-1] {
		for _, pr := range r.Problems {
			if pr.Rule == gateway.RuleDied {
				t.Errorf("%s, before the death, says the gateway died", r.Name)
			}
		}
	}
	if len(progress) != len(results) || progress[len(progress)-1] != len(results) {
		t.Errorf("progress calls %v for %d results", progress, len(results))
	}
}

// TestRunnerCaseTimeout grades a gateway that never answers: each case
// ends at the Runner's case timeout and says so.
func TestRunnerCaseTimeout(t *testing.T) {
	up, err := gateway.NewUpstream(builtin(t), serve.Chaos{})
	if err != nil {
		t.Fatal(err)
	}
	p := startFaulty(t, up, "--fault", "hang")
	rn := gateway.Runner{Upstream: up, Target: p.Target, Exited: p.Exited, CaseTimeout: 300 * time.Millisecond}
	results := rn.Run(context.Background(), []string{"anthropic/response/D07-text-and-two-calls"})
	if len(results) != 2 {
		t.Fatalf("%d results, want 2", len(results))
	}
	for _, r := range results {
		found := false
		for _, pr := range r.Problems {
			if pr.Rule == gateway.RuleCaseTimeout && strings.Contains(pr.Message, "300ms") {
				found = true
			}
		}
		if r.Status != gateway.StatusFail || !found {
			t.Errorf("%s: status %s, problems %+v: want a case-timeout problem naming 300ms", r.Name, r.Status, r.Problems)
		}
	}
}

// TestErrorFlagDropped grades a gateway that drops every tool result's
// error flag: the cases whose follow-up sends error results fail with
// I07, and only those.
func TestErrorFlagDropped(t *testing.T) {
	up, err := gateway.NewUpstream(builtin(t), serve.Chaos{})
	if err != nil {
		t.Fatal(err)
	}
	p := startFaulty(t, up, "--fault", "drop-error-flag")
	names := []string{"anthropic/streaming/B12-one-byte-fragments", "anthropic/response/D07-text-and-two-calls", "anthropic/response/C05-nested-parameter-as-json-string", "anthropic/response/C06-null-arguments"}
	sentAsError, flagged := 0, 0
	for _, r := range gateway.Run(context.Background(), up, p.Target, names) {
		asError := false
		for _, h := range r.Held {
			asError = asError || strings.Contains(h, "sent as error")
		}
		var i07 []string
		for _, pr := range r.Problems {
			if pr.Rule == "I07" {
				i07 = append(i07, pr.Message)
			} else {
				t.Errorf("%s: %s", r.Name, pr)
			}
		}
		if len(i07) > 0 {
			flagged++
			if !strings.Contains(i07[0], "was sent as an error and went upstream as a normal result") {
				t.Errorf("%s: I07 says %q", r.Name, i07[0])
			}
			continue
		}
		if asError {
			sentAsError++
			t.Errorf("%s passed with its error results' flag dropped (held %v)", r.Name, r.Held)
		}
	}
	if flagged == 0 || flagged == 2*len(names) {
		t.Errorf("%d of %d cases failed on the dropped flag: want the cases sent with error results, and not the others", flagged, 2*len(names))
	}
}
