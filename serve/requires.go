package serve

import (
	"net/http"
	"strings"

	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
)

// requirement is a request option a scenario's recorded bytes depend on
// (protocol.Requirement): the provider sends those bytes only to a request
// that carries it. A request without it is not answered with them; the
// scenario is not applicable to that client (Verdict.NotApplicable).
type requirement = providers.Requirement

// requirementsOf reads what a protocol's recorded response depends on, as
// the protocol's descriptor reads it (Protocol.Requirements).
func requirementsOf(protocol string, sc *scenarios.Scenario) []requirement {
	p := descriptor(protocol)
	if len(sc.Body) == 0 || p.Requirements == nil {
		return nil
	}
	return p.Requirements(sc.Body)
}

// unmet returns why the scenario is not applicable to the request, or ""
// when the request carries everything it needs.
func unmet(reqs []requirement, r *http.Request, body []byte) string {
	var missing []string
	for _, q := range reqs {
		if q.Carried == nil || !q.Carried(r, body) {
			missing = append(missing, q.What)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return strings.Join(missing, "; ")
}

// noWholeForm returns why a stream scenario has no whole response to
// serve, or "". A stream that ends before its finish (cut, or unreadable
// past some byte) has none: every whole response of every protocol has a
// finish, and the body collected from such a stream would have none.
func noWholeForm(e entry) string {
	if e.sc.Kind != scenarios.KindStream {
		return ""
	}
	a, err := providers.Lookup(e.protocol)
	if err != nil {
		return ""
	}
	resp, err := responseOf(a, e.sc)
	if err != nil || resp.Finish != "" {
		return ""
	}
	return "the reference decoder reads no finish in its stream (cut, or unreadable before its end), and every whole response has one: there is no faithful whole form of it"
}

// StatusNotApplicable is the status of a client run whose scenario was
// not served, because its recorded bytes depend on a request option the
// client did not send: neither a pass nor a failure, counted apart.
const StatusNotApplicable = "not-applicable"

// notApplicable marks a run not applicable when no first request was
// served for that reason, with the reason; it reports whether it did.
func notApplicable(res *ClientRun) bool {
	v := res.Verdict
	if v.NotApplicable == "" || v.Served > 0 {
		return false
	}
	res.Status = StatusNotApplicable
	res.Reasons = []string{"not applicable: " + v.NotApplicable}
	return true
}
