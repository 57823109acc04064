package serve

import (
	"context"

	"github.com/toolconform/conform/reduce"
	"github.com/toolconform/conform/scenarios"
)

// ReduceClient reduces a failed client run to its cause (package reduce):
// it re-runs the client on simpler variants of the scenario, at most
// budget times (0 means reduce.DefaultBudget), and returns what it found,
// or nil when the run did not fail on what was served (it passed, timed
// out, or never sent its first request) or its scenario cannot be
// simplified (not a stream, or a stream broken on purpose).
func ReduceClient(ctx context.Context, spec ClientSpec, failed ClientRun, budget int) *reduce.Result {
	if failed.Status != "fail" || failed.TimedOut || failed.Verdict.Served == 0 {
		// A client that never read the stream did not fail on its
		// features.
		return nil
	}
	srv, err := New(Options{Scenarios: spec.Scenarios, Scenario: spec.Scenario})
	if err != nil {
		return nil
	}
	sc, _ := srv.Scenario(spec.Scenario)
	protocol, _ := srv.Protocol(spec.Scenario)
	if !reduce.Reducible(sc) {
		return nil
	}
	chaos := ""
	if spec.Chaos != (Chaos{}) {
		chaos = spec.Chaos.String()
	}
	return reduce.Reduce(sc, protocol, chaos, budget, func(v reduce.Variant) bool {
		run := spec
		run.Scenarios = []*scenarios.Scenario{v.Scenario}
		if !v.Chaos {
			run.Chaos = Chaos{}
		}
		// Only a pass names a cause; a variant the client fails, or one
		// that cannot be judged, keeps the reduction going.
		return RunClient(ctx, run).Status != "pass"
	})
}
