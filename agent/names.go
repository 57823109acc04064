package agent

import (
	"slices"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/tools"
	"github.com/toolconform/conform/tools/names"
)

// wireNames maps the registry's tool names to names the adapter's
// provider accepts (tools/names, against the rules the adapter declares),
// or returns nil when every name already passes, the adapter declares no
// rules, or the names cannot be mapped. The registry's names pass the
// common rule ^[a-zA-Z0-9_-]{1,64}$; a provider with a narrower one
// (Cohere: no dash, no leading digit; Gemini: no leading digit) sees them
// renamed, and its calls are read back under the registry's names.
func wireNames(a core.Adapter, reg *tools.Registry) *names.Mapping {
	rules, ok := names.For(a)
	if !ok || reg == nil {
		return nil
	}
	m, err := names.Map(rules, reg.Names())
	if err != nil || len(m.Renamed()) == 0 {
		return nil
	}
	return m
}

// toWire returns a copy of req whose tool names, named tool choice, and
// the names in its calls and results are the wire names of m. Names m
// does not know (the step tool of ModeStructured) are kept.
func toWire(req *core.Request, m *names.Mapping) *core.Request {
	if m == nil {
		return req
	}
	rename := func(n string) string {
		if w, ok := m.Name(n); ok {
			return w
		}
		return n
	}
	out := *req
	out.Tools = slices.Clone(req.Tools)
	for i := range out.Tools {
		out.Tools[i].Name = rename(out.Tools[i].Name)
	}
	if req.ToolChoice != nil {
		tc := *req.ToolChoice
		tc.Name = rename(tc.Name)
		out.ToolChoice = &tc
	}
	out.Messages = make([]core.Message, len(req.Messages))
	for i, msg := range req.Messages {
		msg.Parts = slices.Clone(msg.Parts)
		for j, p := range msg.Parts {
			switch {
			case p.Kind == core.PartToolCall && p.Call != nil:
				c := *p.Call
				c.Name = rename(c.Name)
				msg.Parts[j].Call = &c
			case p.Kind == core.PartToolResult && p.Result != nil:
				r := *p.Result
				r.Name = rename(r.Name)
				msg.Parts[j].Result = &r
			}
		}
		out.Messages[i] = msg
	}
	return &out
}

// fromWire gives the calls of resp, complete and incomplete, the
// registry's names back. A name m did not give out is kept, so that an
// unknown tool is reported under the name the model used.
func fromWire(resp *core.Response, m *names.Mapping) {
	if m == nil || resp == nil {
		return
	}
	for j, p := range resp.Message.Parts {
		if p.Kind == core.PartToolCall && p.Call != nil {
			if o, ok := m.Original(p.Call.Name); ok {
				c := *p.Call
				c.Name = o
				resp.Message.Parts[j].Call = &c
			}
		}
	}
	for i, c := range resp.Incomplete {
		if o, ok := m.Original(c.Name); ok {
			resp.Incomplete[i].Name = o
		}
	}
}
