package wire

import (
	"fmt"
	"slices"

	"github.com/toolconform/conform/core"
)

// PartKinds lists, for each role, the kinds of part a protocol's messages
// of that role carry: what an encoder writes and its decoder reads back as
// the same kind. A part of any other kind has no place on the wire and is
// refused, never dropped or sent as another kind. The content of a tool
// result is text in every protocol.
type PartKinds map[core.Role][]core.PartKind

// Check refuses the first part of msgs whose kind k has no place for in its
// message's role, with UnsupportedPart, and the first tool result content
// part that is not text, with a *DecodeError at
// messages[i].parts[j].result.content[n].kind wrapping core.ErrUnsupported.
// A message of a role k does not list is left to the encoder, which refuses
// an unknown role in its own words.
func (k PartKinds) Check(op string, msgs []core.Message) error {
	for i, m := range msgs {
		kinds, ok := k[m.Role]
		if !ok {
			continue
		}
		for j, p := range m.Parts {
			if !slices.Contains(kinds, p.Kind) {
				return UnsupportedPart(op, i, j, m.Role, p.Kind)
			}
			if p.Kind != core.PartToolResult || p.Result == nil {
				continue
			}
			for n, c := range p.Result.Content {
				if c.Kind != core.PartText {
					return Placed(op, -1, fmt.Sprintf("messages[%d].parts[%d].result.content[%d].kind", i, j, n), fmt.Errorf("%w: %s part in a tool result, which carries text", core.ErrUnsupported, c.Kind))
				}
			}
		}
	}
	return nil
}

// CheckResponse refuses the first part of a response's message whose kind
// k has no place for in an assistant message, with UnsupportedPart naming
// message.parts[j].
func (k PartKinds) CheckResponse(op string, parts []core.Part) error {
	for j, p := range parts {
		if !slices.Contains(k[core.RoleAssistant], p.Kind) {
			return UnsupportedPart(op, -1, j, core.RoleAssistant, p.Kind)
		}
	}
	return nil
}

// UnsupportedPart is the error of an encoder of op (an operation named with
// its protocol, "gemini: encode request") that has no place for part j, of
// kind kind, in message i, of role role: a *DecodeError at
// messages[i].parts[j].kind wrapping core.ErrUnsupported. i < 0 names the
// message of a response, message.parts[j].kind.
func UnsupportedPart(op string, i, j int, role core.Role, kind core.PartKind) *DecodeError {
	path := fmt.Sprintf("messages[%d].parts[%d].kind", i, j)
	if i < 0 {
		path = fmt.Sprintf("message.parts[%d].kind", j)
	}
	what := fmt.Sprintf("%s part in %s message", kind, role)
	switch kind {
	case core.PartText, core.PartThinking, core.PartPlan, core.PartToolCall, core.PartToolResult:
	default:
		what = fmt.Sprintf("unknown part kind %q in %s message", kind, role)
	}
	return Placed(op, -1, path, fmt.Errorf("%w: %s", core.ErrUnsupported, what))
}
