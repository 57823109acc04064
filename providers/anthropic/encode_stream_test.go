package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolconform/conform/core"
)

// usagesOf returns the usage object of every message_start (its message's)
// and message_delta event in an encoded stream, in order, keyed by event
// type; an event without usage gets a nil map.
func usagesOf(t *testing.T, wire string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.SplitSeq(wire, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type    string `json:"type"`
			Message *struct {
				Usage map[string]any `json:"usage"`
			} `json:"message"`
			Usage map[string]any `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event data %q: %v", data, err)
		}
		switch ev.Type {
		case "message_start":
			var u map[string]any
			if ev.Message != nil {
				u = ev.Message.Usage
			}
			out = append(out, map[string]any{"message_start": u})
		case "message_delta":
			out = append(out, map[string]any{"message_delta": ev.Usage})
		}
	}
	return out
}

// TestEncodeStreamUsage checks that usage is written where every recorded
// Anthropic stream has it (message_start.message.usage and
// message_delta.usage), with or without a usage event, and what decoding
// gives back.
func TestEncodeStreamUsage(t *testing.T) {
	text := core.Event{Kind: core.EventText, Text: "hi"}
	finish := core.Event{Kind: core.EventFinish, Finish: core.FinishStop, ProviderFinish: "end_turn"}
	usage := func(in, out int) core.Event {
		return core.Event{Kind: core.EventUsage, Usage: &core.Usage{InputTokens: in, OutputTokens: out}}
	}
	n := func(in, out int) map[string]any {
		return map[string]any{"input_tokens": float64(in), "output_tokens": float64(out)}
	}
	// message_start also carries the cache counts, as recorded.
	start := func(in int) map[string]any {
		m := n(in, 0)
		m["cache_creation_input_tokens"], m["cache_read_input_tokens"] = float64(0), float64(0)
		return m
	}
	tests := []struct {
		name       string
		events     []core.Event
		wantUsages []map[string]any
		wantBack   []core.Event
	}{
		{
			name:       "finish without usage gets zero counts",
			events:     []core.Event{text, finish},
			wantUsages: []map[string]any{{"message_start": start(0)}, {"message_delta": n(0, 0)}},
			wantBack:   []core.Event{text, usage(0, 0), finish},
		},
		{
			name:       "usage before finish",
			events:     []core.Event{text, usage(12, 34), finish},
			wantUsages: []map[string]any{{"message_start": start(12)}, {"message_delta": n(12, 34)}},
			wantBack:   []core.Event{text, usage(12, 34), finish},
		},
		{
			name:       "usage without finish is still written",
			events:     []core.Event{text, usage(5, 6)},
			wantUsages: []map[string]any{{"message_start": start(5)}, {"message_delta": n(5, 6)}},
			wantBack:   []core.Event{text, usage(5, 6)},
		},
		{
			name:       "error stream: message_start only",
			events:     []core.Event{text, {Kind: core.EventError, Error: &core.ProviderError{Type: "overloaded_error", Message: "busy"}}},
			wantUsages: []map[string]any{{"message_start": start(0)}},
		},
		{
			name:       "two finishes: the second has no usage event of its own",
			events:     []core.Event{usage(3, 4), finish, text, finish},
			wantUsages: []map[string]any{{"message_start": start(3)}, {"message_delta": n(3, 4)}, {"message_delta": n(3, 0)}},
			wantBack:   []core.Event{usage(3, 4), finish, text, usage(3, 0), finish},
		},
	}
	a := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := a.EncodeStream(&buf, tt.events); err != nil {
				t.Fatalf("EncodeStream: %v", err)
			}
			if diff := cmp.Diff(tt.wantUsages, usagesOf(t, buf.String())); diff != "" {
				t.Errorf("usage objects (-want +got):\n%s\nwire:\n%s", diff, buf.String())
			}
			if tt.wantBack == nil {
				return
			}
			var got []core.Event
			s := a.DecodeStream(bytes.NewReader(buf.Bytes()))
			for {
				ev, err := s.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("DecodeStream: %v\nwire:\n%s", err, buf.String())
				}
				got = append(got, ev)
			}
			if diff := cmp.Diff(tt.wantBack, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("decoded events (-want +got):\n%s\nwire:\n%s", diff, buf.String())
			}
		})
	}
}
