package oaichat

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// TestDecodeStreamNotAStream checks that input with no Chat Completions
// event is a *DecodeError wrapping core.ErrNotStream that names the offset of
// the first event the decoder could not use, or byte 0, while blank input
// and streams with an event of the protocol are not refused.
func TestDecodeStreamNotAStream(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int64 // -1: no ErrNotStream
	}{
		{"plain text", "hello world", 0},
		{"plain text after white space", "\n\n  hello", 0},
		{"an empty object", "data: {}\n\n", 0},
		{"unknown event type", "event: foo\ndata: {}\n\n", 0},
		{"unknown event after blank lines and a comment", "  \n\n: ping\n\nevent: zz\ndata: {\"x\":1}\n\n", 12},
		{"second unknown event is not the place", "data: {\"a\":1}\n\nevent: zz\ndata: {\"x\":1}\n\n", 0},
		{"an Anthropic stream", "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\"}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n", 0},
		{"a Cohere stream", "data: {\"id\":\"x\",\"type\":\"message-start\",\"delta\":{}}\n\n", 0},
		{"a comment only", ": keep-alive\n\n", 0},
		{"empty", "", -1},
		{"blank", " \r\n\n\t", -1},
		{"a no-break space is not blank", "\n\u00a0\n", 0},
		{"only done", "data: [DONE]\n\n", -1},
		{"empty data", "data:\n\n", 0},
		{"empty data, then an unknown event", "data:\n\nevent: zz\ndata: {}\n\n", 0},
		{"empty choices", "data: {\"choices\":[]}\n\n", -1},
		{"usage only", "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}}\n\n", -1},
		{"object only", "data: {\"object\":\"chat.completion.chunk\"}\n\n", -1},
		{"unknown event then a chunk", "event: zz\ndata: {}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n", -1},
		{"an error body", "data: {\"error\":{\"message\":\"boom\"}}\n\n", -1},
		{"a Mistral error object", "data: {\"object\":\"error\",\"message\":\"boom\"}\n\n", -1},
		{"an error event", "event: error\ndata: {\"message\":\"boom\"}\n\n", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := adaptertest.Drain(fastTestCodec().DecodeStream(strings.NewReader(tt.in)))
			if tt.want < 0 {
				if errors.Is(err, core.ErrNotStream) {
					t.Fatalf("error %v, want none of ErrNotStream", err)
				}
				return
			}
			var ce *DecodeError
			if !errors.Is(err, core.ErrNotStream) || !errors.As(err, &ce) {
				t.Fatalf("error %v, want a *DecodeError wrapping core.ErrNotStream", err)
			}
			if ce.Offset != tt.want {
				t.Errorf("offset %d, want %d: %v", ce.Offset, tt.want, err)
			}
			want := fmt.Sprintf("openai-chat: decode stream: at byte %d: no openai-chat event in %d bytes: %v", tt.want, len(tt.in), core.ErrNotStream)
			if diff := cmp.Diff(want, err.Error()); diff != "" {
				t.Errorf("error text (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeStreamNotAStreamOtherErrors checks that a body whose first
// data is not JSON keeps its syntax error (the more exact place) rather
// than becoming a not-a-stream error.
func TestDecodeStreamNotAStreamOtherErrors(t *testing.T) {
	in := "data: {\"a\":1}\n\ndata: {\"a\": x}\n\n"
	_, err := adaptertest.Drain(fastTestCodec().DecodeStream(strings.NewReader(in)))
	var ce *DecodeError
	if errors.Is(err, core.ErrNotStream) || !errors.Is(err, core.ErrMalformed) || !errors.As(err, &ce) {
		t.Fatalf("error %v, want a *DecodeError wrapping core.ErrMalformed only", err)
	}
	if want := int64(strings.Index(in, "x}")); ce.Offset != want {
		t.Errorf("offset %d, want %d: %v", ce.Offset, want, err)
	}
}

// TestDecodeStreamNotAStreamReads checks that the verdict does not depend
// on how the input is read: one byte at a time (white space in one read,
// text in a later one) gives the same error as one read.
func TestDecodeStreamNotAStreamReads(t *testing.T) {
	for _, in := range []string{"  \n\nhello", "\n\n\n", "event: zz\ndata: {}\n\n", "\u00a0\n", "\n\u2028"} {
		_, whole := adaptertest.Drain(fastTestCodec().DecodeStream(strings.NewReader(in)))
		_, bytewise := adaptertest.Drain(fastTestCodec().DecodeStream(iotest.OneByteReader(strings.NewReader(in))))
		if fmt.Sprint(whole) != fmt.Sprint(bytewise) {
			t.Errorf("%q: one read gives %v, one byte at a time %v", in, whole, bytewise)
		}
	}
}

// TestDecodeStreamNotAStreamProperty draws streams of objects with no key
// of a chunk, after blank lines and comments, cut at random places, and
// checks that the error names the first event's offset; the same stream
// with one chunk appended anywhere after is a clean stream.
func TestDecodeStreamNotAStreamProperty(t *testing.T) {
	keys := []string{"type", "x", "delta", "message", "candidates", "id", "model"}
	rapid.Check(t, func(t *rapid.T) {
		var b strings.Builder
		for range rapid.IntRange(0, 3).Draw(t, "lead") {
			b.WriteString(rapid.SampledFrom([]string{"\n", ": c\n", "  \r\n"}).Draw(t, "pad"))
		}
		b.WriteString("\n")
		first := int64(b.Len())
		var events []string
		for i := range rapid.IntRange(1, 4).Draw(t, "events") {
			k := rapid.SampledFrom(keys).Draw(t, fmt.Sprintf("key%d", i))
			events = append(events, fmt.Sprintf("data: {%q:\"v%d\"}\n\n", k, i))
		}
		b.WriteString(strings.Join(events, ""))
		body := b.String()
		_, err := adaptertest.Drain(fastTestCodec().DecodeStream(adaptertest.DrawSplitReader(t, []byte(body))))
		var ce *DecodeError
		if !errors.Is(err, core.ErrNotStream) || !errors.As(err, &ce) || ce.Offset != first {
			t.Fatalf("%q: error %v, want ErrNotStream at byte %d", body, err, first)
		}
		at := rapid.IntRange(0, len(events)).Draw(t, "chunk at")
		withChunk := strings.Join(events[:at], "") + "data: {\"choices\":[]}\n\n" + strings.Join(events[at:], "")
		if _, err := adaptertest.Drain(fastTestCodec().DecodeStream(strings.NewReader(withChunk))); err != nil {
			t.Fatalf("%q: error %v, want none", withChunk, err)
		}
	})
}

// TestTextDeltaUTF8 checks that a character split between two content
// deltas comes out whole (B05) and that a byte that is not UTF-8 is refused
// with core.ErrInvalidUTF8, not replaced by U+FFFD.
func TestTextDeltaUTF8(t *testing.T) {
	c := New(Config{Name: "openai-chat"})
	stream := func(deltas ...string) string {
		var b strings.Builder
		for _, d := range deltas {
			fmt.Fprintf(&b, "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%s\"}}]}\n\n", d)
		}
		b.WriteString("data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		return b.String()
	}
	resp, err := core.Collect(c.DecodeStream(strings.NewReader(stream("Z\xc3", "\xa4ri"))))
	if err != nil || resp.Text() != "Zäri" {
		t.Errorf("split character: text %q, error %v; want \"Zäri\"", resp.Text(), err)
	}
	_, err = core.Collect(c.DecodeStream(strings.NewReader(stream("a\xffb"))))
	if !errors.Is(err, core.ErrInvalidUTF8) {
		t.Errorf("invalid byte: error %v, want one wrapping core.ErrInvalidUTF8", err)
	}
}

// TestCopyTracker: a consolidated copy (B02) is recognised for the first
// call, kept in place, and for later ones, kept in the map; an index-only
// continuation counts toward the id last seen at its index; text that
// differs is no copy; past maxTracked nothing is.
func TestCopyTracker(t *testing.T) {
	type entry struct {
		id, name string
		index    int
		args     string
		want     bool
	}
	steps := []entry{
		{"a", "f", 0, `{"x":`, false},
		{"", "", 0, ` 1}`, false},
		{"b", "g", 1, `{"y"`, false},
		{"", "", 1, `:2}`, false},
		{"c", "h", 2, ``, false},
		{"", "", 2, `{}`, false},
		{"a", "f", 0, `{"x": 1}`, true},
		{"b", "g", 1, `{"y":2}`, true},
		{"b", "g", 1, `{"y":3}`, false},
		{"c", "h", 2, `{ }`, true},
		{"d", "k", 3, `{}`, false},
	}
	var tr copyTracker
	for i, s := range steps {
		c := core.Chunk{ID: s.id, Name: s.name, Index: s.index, HasIndex: true}
		if got := tr.observe(&c, s.args, true); got != s.want {
			t.Errorf("step %d %+v: copy %v, want %v", i, s, got, s.want)
		}
	}
	// More calls than the tracker finds in its short lists.
	tr = copyTracker{}
	const calls = 2*maxFew + 3
	for i := range calls {
		tr.observe(&core.Chunk{ID: fmt.Sprint("c", i), Name: "f", Index: i, HasIndex: true}, `{"n":`, true)
	}
	for i := range calls {
		tr.observe(&core.Chunk{Index: i, HasIndex: true}, fmt.Sprint(i, "}"), true)
	}
	for i := range calls {
		if !tr.observe(&core.Chunk{ID: fmt.Sprint("c", i), Name: "f", Index: i, HasIndex: true}, fmt.Sprint(`{"n":`, i, "}"), true) {
			t.Errorf("call %d of %d: its copy is not recognised", i, calls)
		}
		if tr.observe(&core.Chunk{ID: fmt.Sprint("c", i), Name: "f", Index: i, HasIndex: true}, fmt.Sprint(`{"n":`, i+1, "}"), true) {
			t.Errorf("call %d of %d: another call's text is taken for its copy", i, calls)
		}
	}
	big := strings.Repeat("x", maxTracked)
	tr = copyTracker{}
	tr.observe(&core.Chunk{ID: "a", Name: "f", Index: 0, HasIndex: true}, `{"x":"`, true)
	tr.observe(&core.Chunk{Index: 0, HasIndex: true}, big+`"}`, true)
	if tr.observe(&core.Chunk{ID: "a", Name: "f", Index: 0, HasIndex: true}, `{"x":"`+big+`"}`, true) {
		t.Error("a copy is recognised past maxTracked")
	}
}
