package streamenc

import (
	"fmt"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/wire"
)

// CheckKinds refuses the first of events that an encoder of op (an
// operation named with its protocol, "anthropic: encode stream") cannot
// write: a plan when the protocol has no place for one (plans false; sent
// as text it would become answer text, G16), wrapping core.ErrUnsupported,
// or an event of no known kind, wrapping core.ErrMalformed; each a
// *wire.DecodeError at events[i].kind.
func CheckKinds(op string, events []core.Event, plans bool) error {
	for i, e := range events {
		if err := CheckKind(op, i, e, plans); err != nil {
			return err
		}
	}
	return nil
}

// CheckKind is CheckKinds for the one event e at index i, as a live
// encoder checks each event before it writes it.
func CheckKind(op string, i int, e core.Event, plans bool) error {
	switch e.Kind {
	case core.EventText, core.EventThinking, core.EventCallStart, core.EventCallDelta, core.EventCallEnd,
		core.EventUsage, core.EventFinish, core.EventError:
	case core.EventPlan:
		if !plans {
			return wire.Placed(op, -1, fmt.Sprintf("events[%d].kind", i), fmt.Errorf("%w: the protocol has no place for a plan", core.ErrUnsupported))
		}
	default:
		return wire.Placed(op, -1, fmt.Sprintf("events[%d].kind", i), fmt.Errorf("%w: unknown event kind %q", core.ErrMalformed, e.Kind))
	}
	return nil
}
