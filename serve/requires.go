package serve

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/toolconform/conform/core"
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
// serve, or "". Only a stream that the reference decoder reads whole, to a
// finish, with no error and no call left incomplete, has one: asked for a
// whole response, the API sends every call complete and a finish, and a
// body collected from a cut or broken stream would hold what no API sends
// (an empty content with a tool_use stop, a finish outside the protocol).
func noWholeForm(e entry) string {
	sc := e.sc
	if sc.Kind != scenarios.KindStream {
		return ""
	}
	a, err := providers.Lookup(e.protocol)
	if err != nil {
		return ""
	}
	evs, err := eventsOf(a, sc)
	if err != nil {
		return ""
	}
	resp, err := core.Collect(core.SliceStream(evs))
	switch {
	case len(sc.Body) > 0 && streamBroken(a, sc.Body):
		return "the reference decoder reports an error in its stream (unreadable before its end), and no API answers a request for a whole response with what such a stream held: there is no faithful whole form of it"
	case err != nil || resp.Error != nil:
		return "its stream ends in an error, and no API answers a request for a whole response with what such a stream held: there is no faithful whole form of it"
	case len(resp.Incomplete) > 0:
		return "its stream leaves a call incomplete, and a whole response holds every call complete: there is no faithful whole form of it"
	case resp.Finish == "":
		return "the reference decoder reads no finish in its stream (cut, or unreadable before its end), and every whole response has one: there is no faithful whole form of it"
	case resp.Finish == core.FinishOther && resp.ProviderFinish == "":
		return "its stream ends without a finish reason (only its end says it ended), and a whole response carries one of the protocol's: any value serve chose would be invented"
	}
	return ""
}

// streamBroken reports whether the adapter's decoder stops on an error
// before the end of a recorded stream.
func streamBroken(a core.Adapter, body []byte) bool {
	s := a.DecodeStream(bytes.NewReader(body))
	for {
		_, err := s.Next()
		if err != nil {
			return !errors.Is(err, io.EOF)
		}
	}
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
