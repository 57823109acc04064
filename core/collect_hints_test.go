package core

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// reusingStream yields events whose Text, Chunk, ArgsDelta and Args live in
// storage it overwrites with 'X' at every Next once ReuseEventText was
// called, as the ReuseEventText contract of Collect allows; before that
// call (or without it) it is an ordinary stream.
type reusingStream struct {
	events []Event
	i      int
	reuse  int // calls of ReuseEventText
	// text holds the bytes of the last event's Text, ArgsDelta and Args,
	// chunk and args its Chunk and Args.
	text  []byte
	chunk Chunk
	args  string
}

func (s *reusingStream) ReuseEventText() { s.reuse++ }

func (s *reusingStream) Next() (Event, error) {
	if s.reuse == 0 {
		if s.i >= len(s.events) {
			return Event{}, io.EOF
		}
		s.i++
		return s.events[s.i-1], nil
	}
	for i := range s.text {
		s.text[i] = 'X'
	}
	s.chunk = Chunk{ID: "XXXX", Name: "XXXX", ArgsDelta: "XXXX"}
	if s.i >= len(s.events) {
		return Event{}, io.EOF
	}
	ev := s.events[s.i]
	s.i++
	s.text = s.text[:0]
	ev.Text = s.view(ev.Text)
	if ev.Chunk != nil {
		s.chunk = *ev.Chunk
		s.chunk.ArgsDelta = s.view(s.chunk.ArgsDelta)
		if s.chunk.Args != nil {
			s.args = s.view(*s.chunk.Args)
			s.chunk.Args = &s.args
		}
		ev.Chunk = &s.chunk
	}
	return ev, nil
}

// view copies v into s.text, which never grows past its first capacity
// (the test's strings fit), and returns a string over the copy.
func (s *reusingStream) view(v string) string {
	if v == "" {
		return ""
	}
	if cap(s.text) == 0 {
		s.text = make([]byte, 0, 1<<10)
	}
	start := len(s.text)
	s.text = append(s.text, v...)
	return unsafe.String(&s.text[start], len(v))
}

// TestCollectReuseEventText: Collect calls ReuseEventText once, before the
// first Next, and its Response is the same when the stream then overwrites
// every event's Text, Chunk, ArgsDelta and Args at the next Next: Collect
// keeps none of them.
func TestCollectReuseEventText(t *testing.T) {
	text := func(s string) Event { return Event{Kind: EventText, Text: s} }
	events := append([]Event{text("Hello, "), text("world")}, callEvents("r", 5)...)
	events = append(events[:len(events)-1], text(" and more"), events[len(events)-1])
	want, wantErr := Collect(SliceStream(events))
	s := &reusingStream{events: events}
	got, err := Collect(s)
	if s.reuse != 1 {
		t.Fatalf("Collect called ReuseEventText %d times, want once", s.reuse)
	}
	if diff := cmp.Diff(fmt.Sprint(wantErr), fmt.Sprint(err)); diff != "" {
		t.Errorf("error (-ordinary +reusing):\n%s", diff)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-ordinary +reusing):\n%s", diff)
	}
	if len(got.Calls()) != 5 || got.Message.Parts[0].Text != "Hello, world" {
		t.Fatalf("the stream was not collected whole: %+v", got.Message.Parts)
	}
}

// voucher is a stream that vouches for the Args strings in vouched, by
// identity, and records what it was asked.
type voucher struct {
	EventStream
	vouched []*string
	asked   []string
}

func (v *voucher) VouchArgs(args string) bool {
	v.asked = append(v.asked, args)
	for _, p := range v.vouched {
		if len(*p) == len(args) && unsafe.StringData(*p) == unsafe.StringData(args) {
			return true
		}
	}
	return false
}

// TestCollectVouchArgs: Collect asks the stream about the Args of every
// call chunk that has them, and the Buffer does not check what the stream
// vouched for (which a stream that lies shows), checks what it did not,
// and checks again once a delta replaces vouched text (A18).
func TestCollectVouchArgs(t *testing.T) {
	valid, invalid, copyOfInvalid := `{"a":1}`, `{"a":`, string([]byte(`{"a":`))
	start := func(id string) Event {
		return Event{Kind: EventCallStart, Chunk: &Chunk{ID: id, Name: "f"}}
	}
	end := func(id string, args *string) Event {
		return Event{Kind: EventCallEnd, Chunk: &Chunk{ID: id, Args: args}}
	}
	delta := Event{Kind: EventCallDelta, Chunk: &Chunk{ID: "c4", ArgsDelta: `{"b":`}}
	events := []Event{
		start("c1"), end("c1", &valid),
		start("c2"), end("c2", &invalid), // vouched for, wrongly
		start("c3"), end("c3", &copyOfInvalid), // the same bytes, another string
		start("c4"), {Kind: EventCallDelta, Chunk: &Chunk{ID: "c4", Args: &invalid}}, delta, end("c4", nil),
		{Kind: EventFinish, Finish: FinishToolCalls},
	}
	v := &voucher{EventStream: SliceStream(events), vouched: []*string{&valid, &invalid}}
	resp, err := Collect(v)
	if diff := cmp.Diff([]string{valid, invalid, copyOfInvalid, invalid}, v.asked); diff != "" {
		t.Errorf("VouchArgs was asked (-want +got):\n%s", diff)
	}
	var got []string
	for _, c := range resp.Calls() {
		got = append(got, c.ID+" "+string(c.Arguments))
	}
	if diff := cmp.Diff([]string{"c1 " + valid, "c2 " + invalid}, got); diff != "" {
		t.Errorf("complete calls (-want +got):\n%s", diff)
	}
	var inc []string
	for _, c := range resp.Incomplete {
		inc = append(inc, c.ID+" "+c.Original)
	}
	if diff := cmp.Diff([]string{"c3 " + invalid, "c4 " + `{"b":`}, inc); diff != "" {
		t.Errorf("incomplete calls (-want +got):\n%s", diff)
	}
	var ce *CallError
	if !errors.As(err, &ce) || ce.Call.ID != "c3" || !strings.Contains(fmt.Sprint(err), `call "c4"`) {
		t.Errorf("error %v does not report the arguments of c3 and c4 as invalid", err)
	}
}

// memoryStream is a stream that gives Collect the ResponseMemory it
// embeds, or, when again is set, gives it every time (which a stream must
// not do).
type memoryStream struct {
	EventStream
	ResponseMemory
	again bool
}

func (s *memoryStream) giveResponseMemory() *ResponseMemory {
	if s.again {
		return &s.ResponseMemory
	}
	return s.ResponseMemory.giveResponseMemory()
}

// TestCollectResponseMemory: Collect returns its Response in the memory the
// stream gives, the same Response it returns without it, and allocates a
// Response of its own once the stream gives none.
func TestCollectResponseMemory(t *testing.T) {
	args := `{"city":"Paris"}`
	events := []Event{
		{Kind: EventText, Text: "Let me look.", ID: "resp_1", Model: "m"},
		{Kind: EventCallStart, Chunk: &Chunk{ID: "c1", Name: "weather"}},
		{Kind: EventCallEnd, Chunk: &Chunk{ID: "c1", Args: &args}},
		{Kind: EventCallStart, Chunk: &Chunk{ID: "c2", Name: "time"}},
		{Kind: EventCallDelta, Chunk: &Chunk{ID: "c2", ArgsDelta: `{"tz":`}},
		{Kind: EventCallDelta, Chunk: &Chunk{ID: "c2", ArgsDelta: `"UTC"}`}},
		{Kind: EventUsage, Usage: &Usage{InputTokens: 10, OutputTokens: 20}},
		{Kind: EventFinish, Finish: FinishToolCalls},
	}
	want, wantErr := Collect(SliceStream(events))
	if wantErr != nil {
		t.Fatal(wantErr)
	}
	s := &memoryStream{EventStream: SliceStream(events)}
	got, err := Collect(s)
	if err != nil {
		t.Fatal(err)
	}
	if got != &s.mem.resp {
		t.Error("Collect did not return its Response in the memory the stream gave")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Response in the stream's memory (-without +with):\n%s", diff)
	}
	// The stream is drained: a second Collect gets no memory, reports the
	// stream as cut off, and leaves the first Response as it was.
	again, err := Collect(s)
	if !errors.Is(err, ErrTruncated) {
		t.Errorf("a second Collect of a drained stream: error %v, want ErrTruncated", err)
	}
	if again == got {
		t.Error("the second Collect used the memory of the first Response")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the second Collect changed the first Response (-want +got):\n%s", diff)
	}
	// A stream that gives its memory twice breaks the contract: the
	// second Response overwrites the first, which is why it must not.
	bad := &memoryStream{EventStream: SliceStream(events), again: true}
	first, _ := Collect(bad)
	if _, err := Collect(bad); err == nil || first.Finish == FinishToolCalls {
		t.Errorf("a Response in memory given twice survived the second Collect: %+v", first)
	}
}
