package streamenc

import (
	"errors"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/wire"
)

func TestCheckKinds(t *testing.T) {
	known := []core.Event{{Kind: core.EventText}, {Kind: core.EventThinking}, {Kind: core.EventCallStart}, {Kind: core.EventCallDelta},
		{Kind: core.EventCallEnd}, {Kind: core.EventUsage}, {Kind: core.EventError}, {Kind: core.EventFinish}}
	plan := append(known[:1:1], core.Event{Kind: core.EventPlan, Text: "p"})
	tests := []struct {
		name   string
		events []core.Event
		plans  bool
		want   error // nil, core.ErrUnsupported or core.ErrMalformed
		text   string
	}{
		{"every known kind", known, false, nil, ""},
		{"a plan where the protocol has a place", plan, true, nil, ""},
		{"a plan where it has none", plan, false, core.ErrUnsupported, "p: encode stream: at events[1].kind: not supported by the protocol: the protocol has no place for a plan"},
		{"an unknown kind", []core.Event{{Kind: "bogus"}}, true, core.ErrMalformed, `p: encode stream: at events[0].kind: malformed: unknown event kind "bogus"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckKinds("p: encode stream", tt.events, tt.plans)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("CheckKinds: %v, want nil", err)
				}
				return
			}
			var de *wire.DecodeError
			if !errors.Is(err, tt.want) || !errors.As(err, &de) || err.Error() != tt.text {
				t.Errorf("CheckKinds:\n got %v\nwant %s (a *wire.DecodeError wrapping %v)", err, tt.text, tt.want)
			}
		})
	}
}
