package providers

import "github.com/toolconform/conform/core"

// ResponseEvents returns the events of a stream that carries resp in the
// named protocol: its parts in order (each call as start, one delta with
// its whole arguments, end), then usage and finish. The response id and
// model ride on the first event. A call's index is its position among the
// content blocks where the protocol numbers blocks (Endpoint.BlockIndexes),
// else among the calls.
func ResponseEvents(protocol string, resp *core.Response) []core.Event {
	var evs []core.Event
	ep, _ := HTTP(protocol)
	byBlock := ep.BlockIndexes
	idx := 0
	for i, p := range resp.Message.Parts {
		if byBlock {
			idx = i
		}
		switch p.Kind {
		case core.PartText:
			evs = append(evs, core.Event{Kind: core.EventText, Text: p.Text})
		case core.PartThinking:
			evs = append(evs, core.Event{Kind: core.EventThinking, Text: p.Text, Signature: p.Signature})
		case core.PartPlan:
			evs = append(evs, core.Event{Kind: core.EventPlan, Text: p.Text})
		case core.PartToolCall:
			if p.Call == nil {
				continue
			}
			c := p.Call
			evs = append(evs,
				core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{Index: idx, HasIndex: true, ID: c.ID, ItemID: c.ItemID, Name: c.Name, Start: true, Signature: c.Signature}},
				core.Event{Kind: core.EventCallDelta, Chunk: &core.Chunk{Index: idx, HasIndex: true, ID: c.ID, ItemID: c.ItemID, ArgsDelta: string(c.Arguments)}},
				core.Event{Kind: core.EventCallEnd, Chunk: &core.Chunk{Index: idx, HasIndex: true, ID: c.ID, ItemID: c.ItemID, Done: true}},
			)
			idx++
		}
	}
	if resp.Usage != nil {
		u := *resp.Usage
		evs = append(evs, core.Event{Kind: core.EventUsage, Usage: &u})
	}
	evs = append(evs, core.Event{Kind: core.EventFinish, Finish: resp.Finish, ProviderFinish: resp.ProviderFinish})
	evs[0].ID, evs[0].Model = resp.ID, resp.Model
	return evs
}
