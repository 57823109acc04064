package gateway

import (
	"crypto/sha256"
	"sync"

	"github.com/toolconform/conform/core"
)

// resultForm is one form the follow-up gives its tool results: the
// forms a client may use, varied over the cases, so that a gateway that
// mishandles one form fails the cases sent in it (one finding) and
// passes the others, where its other faults show.
type resultForm struct {
	name string
	// isError marks every result as an error (Anthropic is_error, Bedrock
	// status "error"), where the front protocol carries the flag.
	isError bool
}

var resultForms = []resultForm{{name: "text"}, {name: "error", isError: true}}

// formFor picks the form of a case's follow-up by the hash of the case's
// name, the same on every run; a form the front protocol cannot carry
// falls back to the first.
func formFor(caseName string, front core.Adapter) resultForm {
	h := sha256.Sum256([]byte(caseName))
	f := resultForms[int(h[0])%len(resultForms)]
	if f.isError && !carriesErrorFlag(front) {
		return resultForms[0]
	}
	return f
}

var errorFlag sync.Map // protocol name -> bool

// carriesErrorFlag reports whether a protocol's requests carry a tool
// result's error flag: a result marked as an error, encoded and decoded
// again by the protocol's adapter, is still marked.
func carriesErrorFlag(a core.Adapter) bool {
	if v, ok := errorFlag.Load(a.Name()); ok {
		return v.(bool)
	}
	call := core.Call{ID: "call_1", Name: "echo", Arguments: []byte(`{}`)}
	req := &core.Request{
		Tools: []core.ToolSpec{{Name: "echo", InputSchema: []byte(`{"type":"object"}`)}},
		Messages: []core.Message{
			{Role: core.RoleUser, Parts: []core.Part{core.TextPart(UserPrompt)}},
			{Role: core.RoleAssistant, Parts: []core.Part{core.CallPart(call)}},
			{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: call.ID, Name: call.Name, Content: []core.Part{core.TextPart("{}")}, IsError: true})}},
		},
	}
	carried := false
	if back, err := roundTrip(a, req); err == nil {
		rs := lastResults(back)
		carried = len(rs) == 1 && rs[0].IsError
	}
	errorFlag.Store(a.Name(), carried)
	return carried
}

// lastResults returns the tool results a request carries after its last
// assistant message, in order.
func lastResults(req *core.Request) []core.Result {
	var out []core.Result
	for _, m := range req.Messages {
		if m.Role == core.RoleAssistant {
			out = nil
			continue
		}
		out = append(out, m.Results()...)
	}
	return out
}
