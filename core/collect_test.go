package core

import (
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// failingStream yields its events, then err.
type failingStream struct {
	EventStream
	err error
}

func (f failingStream) Next() (Event, error) {
	ev, err := f.EventStream.Next()
	if err == io.EOF {
		return Event{}, f.err
	}
	return ev, err
}

func callEv(kind EventKind, c Chunk) Event { return Event{Kind: kind, Chunk: &c} }

func TestCollect(t *testing.T) {
	errBoom := errors.New("connection reset")
	weather := Call{ID: "call_1", Name: "weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}
	tests := []struct {
		name   string
		events []Event
		err    error // stream error after the events
		opts   []BufferOption
		want   *Response
		errs   []error // sentinels the returned error must wrap
		text   string  // the returned error's text, when set
	}{
		{
			name: "text thinking and a call",
			events: []Event{
				{Kind: EventThinking, Text: "Let me ", ID: "msg_1", Model: "m"},
				{Kind: EventThinking, Text: "think."},
				{Kind: EventThinking, Signature: "sig1"},
				{Kind: EventThinking, Text: "More."},
				{Kind: EventText, Text: "Hello", ID: "other"},
				{Kind: EventText, Text: ", world"},
				{Kind: EventText},
				{Kind: EventUsage, Usage: &Usage{InputTokens: 10}},
				callEv(EventCallStart, Chunk{HasIndex: true, Index: 1, ID: "call_1", Name: "weather"}),
				callEv(EventCallDelta, Chunk{HasIndex: true, Index: 1, ArgsDelta: `{"city":`}),
				callEv(EventCallDelta, Chunk{HasIndex: true, Index: 1, ArgsDelta: `"Paris"}`}),
				callEv(EventCallEnd, Chunk{HasIndex: true, Index: 1}),
				{Kind: EventPlan, Text: "next"},
				{Kind: EventPlan, Text: " step"},
				{Kind: EventUsage, Usage: &Usage{OutputTokens: 7}},
				{Kind: EventFinish, Finish: FinishToolCalls, ProviderFinish: "tool_use"},
			},
			want: &Response{
				ID: "msg_1", Model: "m",
				Message: Message{Role: RoleAssistant, Parts: []Part{
					{Kind: PartThinking, Text: "Let me think.", Signature: "sig1"},
					{Kind: PartThinking, Text: "More."},
					{Kind: PartText, Text: "Hello, world"},
					CallPart(weather),
					{Kind: PartPlan, Text: "next step"},
				}},
				Finish: FinishToolCalls, ProviderFinish: "tool_use",
				Usage: &Usage{InputTokens: 10, OutputTokens: 7},
			},
		},
		{
			name: "A19 calls keep the order they opened in, whatever order they end",
			events: []Event{
				{Kind: EventText, Text: "Two calls."},
				callEv(EventCallStart, Chunk{HasIndex: true, Index: 1, ID: "a", Name: "f", Args: sp(`{"n":1}`)}),
				callEv(EventCallStart, Chunk{HasIndex: true, Index: 2, ID: "b", Name: "g", Args: sp(`{"n":2}`)}),
				callEv(EventCallStart, Chunk{HasIndex: true, Index: 3, ID: "c", Name: "h", Args: sp(`{"n":3}`)}),
				callEv(EventCallEnd, Chunk{HasIndex: true, Index: 3}),
				callEv(EventCallEnd, Chunk{HasIndex: true, Index: 2}),
				{Kind: EventText, Text: "Between."},
				callEv(EventCallEnd, Chunk{HasIndex: true, Index: 1}),
				{Kind: EventFinish, Finish: FinishToolCalls, ProviderFinish: "tool_use"},
			},
			want: &Response{
				Message: Message{Role: RoleAssistant, Parts: []Part{
					TextPart("Two calls."),
					CallPart(Call{ID: "a", Name: "f", Arguments: json.RawMessage(`{"n":1}`)}),
					CallPart(Call{ID: "b", Name: "g", Arguments: json.RawMessage(`{"n":2}`)}),
					TextPart("Between."),
					CallPart(Call{ID: "c", Name: "h", Arguments: json.RawMessage(`{"n":3}`)}),
				}},
				Finish: FinishToolCalls, ProviderFinish: "tool_use",
			},
		},
		{
			name: "redacted thinking stands alone and item ids split parts",
			events: []Event{
				{Kind: EventThinking, Text: "a", ItemID: "rs_1"},
				{Kind: EventThinking, Text: "b", ItemID: "rs_1"},
				{Kind: EventThinking, Text: "c", ItemID: "rs_2"},
				{Kind: EventThinking, Data: "opaque-1"},
				{Kind: EventThinking, Data: "opaque-2"},
				{Kind: EventThinking, Text: "d"},
				{Kind: EventThinking, Text: "e"},
				{Kind: EventFinish, Finish: FinishStop, ProviderFinish: "completed"},
			},
			want: &Response{
				Message: Message{Role: RoleAssistant, Parts: []Part{
					{Kind: PartThinking, Text: "ab", ItemID: "rs_1"},
					{Kind: PartThinking, Text: "c", ItemID: "rs_2"},
					{Kind: PartThinking, Data: "opaque-1"},
					{Kind: PartThinking, Data: "opaque-2"},
					{Kind: PartThinking, Text: "de"},
				}},
				Finish: FinishStop, ProviderFinish: "completed",
			},
		},
		{
			name: "F01 stop finish ends and keeps the calls",
			events: []Event{
				callEv(EventCallDelta, Chunk{HasIndex: true, ID: "call_1", Name: "weather", ArgsDelta: `{"city":"Paris"}`}),
				{Kind: EventFinish, Finish: FinishStop, ProviderFinish: "stop"},
			},
			want: &Response{
				Message: Message{Role: RoleAssistant, Parts: []Part{CallPart(weather)}},
				Finish:  FinishStop, ProviderFinish: "stop",
			},
		},
		{
			name: "B11 length finish leaves calls incomplete",
			events: []Event{
				{Kind: EventText, Text: "x"},
				callEv(EventCallDelta, Chunk{HasIndex: true, ID: "call_1", Name: "weather", ArgsDelta: `{"city":"Pa`}),
				{Kind: EventFinish, Finish: FinishLength, ProviderFinish: "max_tokens"},
			},
			want: &Response{
				Message: Message{Role: RoleAssistant, Parts: []Part{TextPart("x")}},
				Finish:  FinishLength, ProviderFinish: "max_tokens",
				Incomplete: []Call{{ID: "call_1", Name: "weather", Original: `{"city":"Pa`}},
			},
			errs: []error{ErrIncomplete},
			text: `collect: event 4: buffer finish: 1 tool call incomplete: "call_1" (weather) after 11 bytes of arguments`,
		},
		{
			name: "B10 truncated arguments at a tool_calls finish",
			events: []Event{
				callEv(EventCallDelta, Chunk{HasIndex: true, ID: "call_1", Name: "weather", ArgsDelta: `{"city":"Pa`}),
				{Kind: EventFinish, Finish: FinishToolCalls},
			},
			want: &Response{
				Message:    Message{Role: RoleAssistant},
				Finish:     FinishToolCalls,
				Incomplete: []Call{{ID: "call_1", Name: "weather", Original: `{"city":"Pa`}},
			},
			errs: []error{repairErrTruncated()},
		},
		{
			name: "stream error keeps completed and open calls",
			events: []Event{
				callEv(EventCallEnd, Chunk{ID: "call_1", Name: "weather", Args: sp(`{"city":"Paris"}`)}),
				callEv(EventCallStart, Chunk{ID: "call_2", Name: "weather"}),
				callEv(EventCallDelta, Chunk{ID: "call_2", ArgsDelta: `{"ci`}),
			},
			err: errBoom,
			want: &Response{
				Message:    Message{Role: RoleAssistant, Parts: []Part{CallPart(weather)}},
				Incomplete: []Call{{ID: "call_2", Name: "weather", Original: `{"ci`}},
			},
			errs: []error{errBoom, ErrIncomplete},
			text: "collect: event 4: connection reset\n" +
				`collect: event 4: buffer finish: 1 tool call incomplete: "call_2" (weather) after 4 bytes of arguments`,
		},
		{
			name: "error event ends the stream",
			events: []Event{
				{Kind: EventText, Text: "a"},
				{Kind: EventError, Error: &ProviderError{Type: "overloaded_error", Message: "Overloaded"}},
				{Kind: EventText, Text: "never"},
			},
			want: &Response{
				Message: Message{Role: RoleAssistant, Parts: []Part{TextPart("a")}},
				Finish:  FinishError,
				Error:   &ProviderError{Type: "overloaded_error", Message: "Overloaded"},
			},
			text: "collect: event 2: provider error overloaded_error: Overloaded",
		},
		{
			name:   "error event without details",
			events: []Event{{Kind: EventError}},
			want: &Response{
				Message: Message{Role: RoleAssistant},
				Finish:  FinishError,
				Error:   &ProviderError{Message: "error event without details"},
			},
			text: "collect: event 1: provider error: error event without details",
		},
		{
			name: "a failed stream keeps the calls it completed and a finish that came first",
			events: []Event{
				callEv(EventCallEnd, Chunk{ID: "call_1", Name: "weather", Args: sp(`{"city":"Paris"}`)}),
				callEv(EventCallStart, Chunk{ID: "call_2", Name: "weather"}),
				callEv(EventCallDelta, Chunk{ID: "call_2", ArgsDelta: `{"ci`}),
				{Kind: EventFinish, Finish: FinishError, ProviderFinish: "failed"},
				{Kind: EventError, Error: &ProviderError{Code: "server_error", Message: "boom"}},
			},
			want: &Response{
				Message:        Message{Role: RoleAssistant, Parts: []Part{CallPart(weather)}},
				Finish:         FinishError,
				ProviderFinish: "failed",
				Error:          &ProviderError{Code: "server_error", Message: "boom"},
				Incomplete:     []Call{{ID: "call_2", Name: "weather", Original: `{"ci`}},
			},
			errs: []error{ErrIncomplete},
		},
		{
			name: "an error after a stop finish keeps the stop",
			events: []Event{
				{Kind: EventText, Text: "done"},
				{Kind: EventFinish, Finish: FinishStop, ProviderFinish: "stop"},
				{Kind: EventError, Error: &ProviderError{Message: "late"}},
			},
			want: &Response{
				Message:        Message{Role: RoleAssistant, Parts: []Part{TextPart("done")}},
				Finish:         FinishStop,
				ProviderFinish: "stop",
				Error:          &ProviderError{Message: "late"},
			},
			text: "collect: event 3: provider error: late",
		},
		{
			name: "an error mid-call gives an error finish and keeps the completed call",
			events: []Event{
				callEv(EventCallEnd, Chunk{ID: "call_1", Name: "weather", Args: sp(`{"city":"Paris"}`)}),
				{Kind: EventError, Error: &ProviderError{Type: "overloaded_error", Message: "Overloaded"}},
			},
			want: &Response{
				Message: Message{Role: RoleAssistant, Parts: []Part{CallPart(weather)}},
				Finish:  FinishError,
				Error:   &ProviderError{Type: "overloaded_error", Message: "Overloaded"},
			},
			text: "collect: event 2: provider error overloaded_error: Overloaded",
		},
		{
			name: "malformed events are reported and skipped",
			events: []Event{
				{Kind: EventCallDelta},
				{Kind: EventUsage},
				{Kind: "bogus"},
				{Kind: EventText, Text: "ok"},
			},
			want: &Response{Message: Message{Role: RoleAssistant, Parts: []Part{TextPart("ok")}}},
			errs: []error{ErrMalformed},
			text: "collect: event 1: malformed event: call_delta event without a chunk\n" +
				"collect: event 2: malformed event: usage event without usage\n" +
				`collect: event 3: malformed event: unknown kind "bogus"` + "\n" +
				"collect: event 5: stream ended early: no finish event",
		},
		{
			name: "rejected chunk is reported, the rest goes on",
			events: []Event{
				callEv(EventCallDelta, Chunk{HasIndex: true, Index: -2, Name: "weather"}),
				callEv(EventCallEnd, Chunk{ID: "call_1", Name: "weather", Args: sp(`{"city":"Paris"}`)}),
			},
			want: &Response{Message: Message{Role: RoleAssistant, Parts: []Part{CallPart(weather)}}},
			errs: []error{ErrIndexOutOfRange},
		},
		{
			name: "text limit",
			opts: []BufferOption{WithLimits(Limits{MaxTextBytes: 4})},
			events: []Event{
				{Kind: EventText, Text: "abc"},
				{Kind: EventText, Text: "de"},
			},
			want: &Response{Message: Message{Role: RoleAssistant, Parts: []Part{TextPart("abc")}}},
			errs: []error{ErrTooLarge},
			text: "collect: event 2: too large: text, thinking and plan deltas over 4 bytes",
		},
		{
			name: "empty deltas make no parts",
			events: []Event{
				{Kind: EventThinking},
				{Kind: EventPlan, Text: "p"},
				{Kind: EventThinking, Signature: "s"},
				{Kind: EventThinking, Text: "t"},
			},
			want: &Response{Message: Message{Role: RoleAssistant, Parts: []Part{
				{Kind: PartPlan, Text: "p"},
				{Kind: PartThinking, Signature: "s"},
				{Kind: PartThinking, Text: "t"},
			}}},
			errs: []error{ErrTruncated},
		},
		{
			name:   "empty stream",
			events: nil,
			want:   &Response{Message: Message{Role: RoleAssistant}},
			errs:   []error{ErrTruncated},
			text:   "collect: event 1: stream ended early: no finish event",
		},
		{
			name: "a stream cut before its finish keeps what it carried",
			events: []Event{
				{Kind: EventText, Text: "The weather in Par"},
				callEv(EventCallStart, Chunk{ID: "call_1", Name: "weather", Args: sp(`{"city":"Paris"}`)}),
				callEv(EventCallEnd, Chunk{ID: "call_1"}),
			},
			want: &Response{Message: Message{Role: RoleAssistant, Parts: []Part{TextPart("The weather in Par"), CallPart(weather)}}},
			errs: []error{ErrTruncated},
			text: "collect: event 4: stream ended early: no finish event",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s EventStream = SliceStream(tt.events)
			if tt.err != nil {
				s = failingStream{s, tt.err}
			}
			got, err := Collect(s, tt.opts...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Collect (-want +got):\n%s", diff)
			}
			if (err == nil) != (len(tt.errs) == 0 && tt.text == "") {
				t.Fatalf("Collect error = %v, want %v %q", err, tt.errs, tt.text)
			}
			for _, want := range tt.errs {
				if !errors.Is(err, want) {
					t.Errorf("Collect error %v does not wrap %v", err, want)
				}
			}
			if tt.text != "" && err.Error() != tt.text {
				t.Errorf("Collect error text (-want +got):\n%s", cmp.Diff(tt.text, err.Error()))
			}
			if err != nil {
				var se *StreamError
				if !errors.As(err, &se) || se.Event < 1 {
					t.Errorf("Collect error %v carries no event position", err)
				}
			}
		})
	}
}

func TestSliceStream(t *testing.T) {
	s := SliceStream([]Event{{Kind: EventText, Text: "a"}, {Kind: EventText, Text: "b"}})
	var got []string
	for {
		ev, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev.Text)
	}
	if diff := cmp.Diff([]string{"a", "b"}, got); diff != "" {
		t.Errorf("SliceStream (-want +got):\n%s", diff)
	}
	if _, err := s.Next(); err != io.EOF {
		t.Errorf("Next after the end = %v, want io.EOF", err)
	}
}

func TestCollectManyDeltas(t *testing.T) {
	// Text built from many small deltas comes out whole.
	events := make([]Event, 10000, 10001)
	for i := range events {
		events[i] = Event{Kind: EventText, Text: "ab"}
	}
	events = append(events, Event{Kind: EventFinish, Finish: FinishStop})
	resp, err := Collect(SliceStream(events))
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Text(); got != strings.Repeat("ab", 10000) {
		t.Errorf("Text() has %d bytes, want 20000", len(got))
	}
}

// TestCollectTextAtLimitAllocates checks that text built up to the text
// limit costs about twice the limit in allocations, not the builder's
// usual overshoot: the buffer doubles but never grows past the limit.
func TestCollectTextAtLimitAllocates(t *testing.T) {
	const limit = 4 << 20
	delta := strings.Repeat("x", 1<<10)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s := &repeatStream{ev: Event{Kind: EventText, Text: delta}, n: limit / len(delta)}
	resp, err := Collect(s, WithLimits(Limits{MaxTextBytes: limit}))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(resp.Text()); got != limit {
		t.Fatalf("text of %d bytes, want %d", got, limit)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2*limit+limit/2 {
		t.Errorf("collecting %d bytes of text allocated %d bytes, want at most %d", limit, alloc, 2*limit+limit/2)
	}
}

// repeatStream yields one event n times, a stop finish, then io.EOF.
type repeatStream struct {
	ev Event
	n  int
}

func (s *repeatStream) Next() (Event, error) {
	switch {
	case s.n > 0:
		s.n--
		return s.ev, nil
	case s.n == 0:
		s.n--
		return Event{Kind: EventFinish, Finish: FinishStop}, nil
	}
	return Event{}, io.EOF
}
