package serve

import (
	"encoding/json"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/scenarios"
)

// SplitLimitCalls takes out of r.Incomplete the calls that the scenario
// lists as complete on the wire but cut by conform's own decoder limit
// (want/limit-calls.json, A12), and returns them as they are on the wire.
// A client or gateway without that limit may run them (graded as served
// calls when it does) or refuse them; they are neither served calls that
// must be answered nor incomplete ones that must not be run.
func SplitLimitCalls(sc *scenarios.Scenario, r *core.Response) []core.Call {
	if len(sc.Want.LimitCalls) == 0 || r == nil {
		return nil
	}
	var optional, rest []core.Call
	for _, inc := range r.Incomplete {
		found := false
		for _, w := range sc.Want.LimitCalls {
			id, _ := w["id"].(string)
			name, _ := w["name"].(string)
			if (id != "" && id == inc.ID) || (id == "" && name == inc.Name) {
				args, _ := json.Marshal(w["arguments"])
				optional = append(optional, core.Call{ID: id, Name: name, Arguments: args})
				found = true
				break
			}
		}
		if !found {
			rest = append(rest, inc)
		}
	}
	r.Incomplete = rest
	return optional
}
