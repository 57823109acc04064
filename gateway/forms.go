package gateway

import (
	"crypto/sha256"
	"sync"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
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
	// rewrite, when set, turns the encoded follow-up into the form (the
	// protocol's ResultForms).
	rewrite func(body []byte) ([]byte, error)
}

// formsOf are the forms a follow-up in protocol a may take: results as
// its encoder writes them, marked as errors where it carries the flag,
// and the other content forms its descriptor names.
func formsOf(a core.Adapter) []resultForm {
	forms := []resultForm{{name: "text"}}
	if carriesErrorFlag(a) {
		forms = append(forms, resultForm{name: "error", isError: true})
	}
	d, _ := providers.Describe(a.Name())
	for _, f := range d.Grading.ResultForms {
		forms = append(forms, resultForm{name: f.Name, rewrite: f.Rewrite})
	}
	return forms
}

// formFor picks the form of a case's follow-up by the hash of the case's
// name, the same on every run.
func formFor(caseName string, front core.Adapter) resultForm {
	forms := formsOf(front)
	h := sha256.Sum256([]byte(caseName))
	return forms[int(h[0])%len(forms)]
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
