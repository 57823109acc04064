package wire

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"pgregory.net/rapid"
)

var errMalformed = errors.New("malformed")
var errTooLarge = errors.New("too large")

func TestUnquoteRaw(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{in: `""`, want: ""},
		{in: `"a\"b\\c\/d"`, want: `a"b\c/d`},
		{in: `"\b\f\n\r\t"`, want: "\b\f\n\r\t"},
		{in: `"\u00e9"`, want: "é"},
		{in: `"\ud83d\ude00"`, want: "😀"},
		{in: "\"\xe2\x82\"", want: "\xe2\x82"}, // half a UTF-8 character stays as bytes (B05)
		{in: `"\ud83d"`, want: "\uFFFD"},       // a lone surrogate becomes U+FFFD as in encoding/json
		{in: `abc`, err: "not a JSON string"},
		{in: `"`, err: "not a JSON string"},
		{in: `"\"`, err: "bad escape at end of string"},
		{in: `"\x"`, err: `bad escape \x`},
		{in: `"\u12"`, err: "short \\u escape"},
		{in: `"\uzzzz"`, err: "bad \\u escape"},
	}
	for _, tt := range tests {
		got, err := UnquoteRaw([]byte(tt.in))
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if gotErr != tt.err || got != tt.want {
			t.Errorf("UnquoteRaw(%q) = %q, %q; want %q, %q", tt.in, got, gotErr, tt.want, tt.err)
		}
	}
}

// TestAppendUnescaped checks the shared unescaper directly: it appends to
// the buffer it is given, and it reports lone surrogates, which the Chat
// Completions fast path leaves to encoding/json.
func TestAppendUnescaped(t *testing.T) {
	tests := []struct {
		in, want string
		lone     bool
		err      string
	}{
		{in: ``, want: "pre"},
		{in: `plain`, want: "preplain"},
		{in: `a\"b\u00E9\/`, want: `prea"bé/`},
		{in: `\ud83d\ude00`, want: "pre😀"},
		{in: `\ud83d`, want: "pre\uFFFD", lone: true},
		{in: `\ude00x`, want: "pre\uFFFDx", lone: true},
		{in: `\ud83d\u0041`, want: "pre\uFFFDA", lone: true},
		{in: `\ud83d\ud83d\ude00`, want: "pre\uFFFD😀", lone: true},
		{in: "\xff\xe2\x82", want: "pre\xff\xe2\x82"},
		{in: `ab\q`, want: "preab", err: `bad escape \q`},
		{in: `ab\`, want: "preab", err: "bad escape at end of string"},
		{in: `\ud83d\u12`, want: "pre\uFFFD", lone: true, err: "short \\u escape"},
		{in: `\u00g0`, want: "pre", err: "bad \\u escape"},
	}
	for _, tt := range tests {
		got, lone, err := AppendUnescaped([]byte("pre"), []byte(tt.in))
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if string(got) != tt.want || lone != tt.lone || gotErr != tt.err {
			t.Errorf("AppendUnescaped(%q) = %q, %v, %q; want %q, %v, %q", tt.in, got, lone, gotErr, tt.want, tt.lone, tt.err)
		}
	}
}

func TestQuoteRaw(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", `""`},
		{`a"b\c`, `"a\"b\\c"`},
		{"\n\r\t\x01\x1f", `"\n\r\t\u0001\u001f"`},
		{"\xff", "\"\xff\""},
		{"é/", `"é/"`},
	}
	for _, tt := range tests {
		if got := string(QuoteRaw(tt.in)); got != tt.want {
			t.Errorf("QuoteRaw(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestQuoteRawRoundTrip checks that UnquoteRaw inverts QuoteRaw for any
// bytes, and that for valid UTF-8 encoding/json reads QuoteRaw's output as
// the same string.
func TestQuoteRawRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := string(rapid.SliceOf(rapid.Byte()).Draw(t, "bytes"))
		q := QuoteRaw(s)
		got, err := UnquoteRaw(q)
		if err != nil {
			t.Fatalf("UnquoteRaw(%s): %v", q, err)
		}
		if got != s {
			t.Fatalf("round trip of %q gave %q", s, got)
		}
		if !json.Valid(q) {
			return // invalid UTF-8 passes through, which encoding/json rejects
		}
		var std string
		if err := json.Unmarshal(q, &std); err != nil || (std != s && !strings.ContainsRune(std, '\uFFFD')) {
			t.Fatalf("encoding/json reads %s as %q, %v; want %q", q, std, err, s)
		}
	})
}

func FuzzUnquoteRaw(f *testing.F) {
	for _, s := range []string{`""`, `"a\u00e9\ud83d\ude00"`, `"\`, `"\u12"`, "\"\xe2\x82\"", `"\ud83d\u0041"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, lit []byte) {
		s, err := UnquoteRaw(lit)
		if err != nil {
			return
		}
		// Whatever decodes must encode to a literal that decodes the same.
		again, err := UnquoteRaw(QuoteRaw(s))
		if err != nil || again != s {
			t.Fatalf("re-quote of %q gave %q, %v", s, again, err)
		}
		// Where the input is valid UTF-8 without surrogate escapes,
		// encoding/json agrees.
		var std string
		if utf8.Valid(lit) && json.Unmarshal(lit, &std) == nil && !strings.Contains(string(lit), `\ud`) && !strings.Contains(string(lit), `\uD`) && std != s {
			t.Fatalf("UnquoteRaw(%s) = %q, encoding/json %q", lit, s, std)
		}
	})
}

func TestJSONError(t *testing.T) {
	var v struct {
		A struct {
			B int `json:"b"`
		} `json:"a"`
	}
	synErr := json.Unmarshal([]byte(`{"a": }`), &v)
	typeErr := json.Unmarshal([]byte(`{"a": {"b": "x"}}`), &v)
	tests := []struct {
		name string
		err  error
		want string
		off  int64
		path string
	}{
		{"syntax", synErr, "p: decode: at byte 16: at messages[0]: malformed: invalid character '}' looking for beginning of value", 16, "messages[0]"},
		{"type", typeErr, "p: decode: at byte 25: at messages[0].a.b: malformed: json: cannot unmarshal string into Go struct field .a.b of type int", 25, "messages[0].a.b"},
		{"other", errors.New("boom"), "p: decode: at messages[0]: malformed: boom", -1, "messages[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			de := JSONError("p", "decode", 10, "messages[0]", tt.err)
			if !errors.Is(de, core.ErrMalformed) {
				t.Errorf("%v does not wrap the malformed sentinel", de)
			}
			if de.Offset != tt.off || de.Path != tt.path {
				t.Errorf("offset, path = %d, %q; want %d, %q", de.Offset, de.Path, tt.off, tt.path)
			}
			if tt.name != "type" && de.Error() != tt.want { // the type error's text is encoding/json's own
				t.Errorf("error = %q, want %q", de.Error(), tt.want)
			}
		})
	}
	// A sub-value whose place in the body is unknown (base -1) gives no
	// offset rather than one counted from the wrong start.
	for _, err := range []error{synErr, typeErr} {
		if de := JSONError("p", "decode", -1, "x", err); de.Offset != -1 {
			t.Errorf("JSONError(base -1, %v).Offset = %d, want -1", err, de.Offset)
		}
	}
}

func TestSSEReader(t *testing.T) {
	in := "event: a\ndata: 1\n\n: comment\nevent: b\ndata: 2\ndata: 3\n\n"
	r := NewSSEReader(strings.NewReader(in), 1<<10, "p", errTooLarge)
	var got []SSEEvent
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
	}
	want := []SSEEvent{{Name: "a", Data: []byte("1"), Offset: 0}, {Name: "b", Data: []byte("2\n3"), Offset: 18}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if r.Offset() != int64(len(in)) {
		t.Errorf("Offset() = %d, want %d", r.Offset(), len(in))
	}
}

func TestSSEReaderTooLarge(t *testing.T) {
	in := "data: small\n\ndata: " + strings.Repeat("x", 100) + "\n\n"
	r := NewSSEReader(strings.NewReader(in), 50, "p", errTooLarge)
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, err := r.Next()
	var de *DecodeError
	if !errors.As(err, &de) || !errors.Is(err, errTooLarge) {
		t.Fatalf("err = %v, want a DecodeError wrapping the too-large sentinel", err)
	}
	if de.Protocol != "p" || de.Offset < 13 {
		t.Errorf("protocol, offset = %q, %d; want p and an offset in the second event (13 or later)", de.Protocol, de.Offset)
	}
}

func TestDecodeErrorText(t *testing.T) {
	tests := []struct {
		err  *DecodeError
		want string
	}{
		{&DecodeError{Protocol: "gemini", Op: "decode stream", Offset: 12, Err: errMalformed}, "gemini: decode stream: at byte 12: malformed"},
		{&DecodeError{Protocol: "ollama", Op: "decode request", Offset: -1, Path: "messages[1].tool_calls[0]", Err: errMalformed}, "ollama: decode request: at messages[1].tool_calls[0]: malformed"},
		{&DecodeError{Protocol: "bedrock", Op: "decode stream", Offset: 0, Event: "contentBlockDelta", Err: errMalformed}, "bedrock: decode stream: at byte 0 (contentBlockDelta): malformed"},
		{&DecodeError{Protocol: "cohere", Op: "decode response", Offset: 82, Path: "usage.tokens", Err: errMalformed}, "cohere: decode response: at byte 82: at usage.tokens: malformed"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
		if !errors.Is(tt.err, errMalformed) {
			t.Errorf("%v does not unwrap to its cause", tt.err)
		}
	}
}

func TestQueue(t *testing.T) {
	var q Queue
	q.Push(core.Event{Kind: core.EventText, Text: "a"})
	q.ID, q.Model = "r1", "m"
	q.Push(core.Event{Kind: core.EventText, Text: "b"})
	q.Push(core.Event{Kind: core.EventText, Text: "c"})
	var got []core.Event
	for {
		e, ok := q.Pop()
		if !ok {
			break
		}
		got = append(got, e)
	}
	want := []core.Event{{Kind: core.EventText, Text: "a"}, {Kind: core.EventText, Text: "b", ID: "r1", Model: "m"}, {Kind: core.EventText, Text: "c"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if q.Len() != 0 {
		t.Errorf("Len() = %d after draining", q.Len())
	}
	if !q.Stamped() {
		t.Error("Stamped() = false after the id went out")
	}
	// Drained storage is reused: a long stream of one-event batches keeps
	// the queue at one slot.
	for i := 0; i < 1000; i++ {
		q.Push(core.Event{Kind: core.EventText})
		if _, ok := q.Pop(); !ok {
			t.Fatal("pushed event not popped")
		}
	}
	if cap(q.events) > 4 {
		t.Errorf("queue capacity grew to %d over one-event batches", cap(q.events))
	}
}

// TestPull drives Pull as an SSE stream decoder's Next does.
func TestPull(t *testing.T) {
	errCut := errors.New("cut")
	tests := []struct {
		name    string
		in      string
		atEOF   error
		want    []string
		wantErr error
	}{
		{"clean end", "data: a\n\ndata: b\n\n", nil, []string{"a", "b"}, io.EOF},
		{"cut short", "data: a\n\n", errCut, []string{"a"}, errCut},
		{"handler error keeps earlier events", "data: a\n\ndata: bad\n\ndata: c\n\n", nil, []string{"a"}, errMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var q Queue
			var err error
			r := NewSSEReader(strings.NewReader(tt.in), 1<<10, "p", errTooLarge)
			handle := func(ev SSEEvent) error {
				if string(ev.Data) == "bad" {
					return errMalformed
				}
				q.Push(core.Event{Kind: core.EventText, Text: string(ev.Data)})
				return nil
			}
			pull := func() error {
				ev, err := r.NextRaw()
				switch {
				case err == io.EOF && tt.atEOF != nil:
					return tt.atEOF
				case err != nil:
					return err
				}
				return handle(ev)
			}
			var got []string
			var last error
			for i := 0; i < 10; i++ {
				e, e2 := Pull(&q, &err, pull)
				if e2 != nil {
					last = e2
					break
				}
				got = append(got, e.Text)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if !errors.Is(last, tt.wantErr) {
				t.Errorf("end = %v, want %v", last, tt.wantErr)
			}
			if _, again := Pull(&q, &err, pull); again != last {
				t.Errorf("second call after the end = %v, want %v again", again, last)
			}
		})
	}
}

func TestResponseMeta(t *testing.T) {
	evs := []core.Event{{Kind: core.EventText}, {Kind: core.EventText, Model: "m"}, {Kind: core.EventText, ID: "r2", Model: "m2"}}
	if id, model := ResponseMeta(evs); id != "" || model != "m" {
		t.Errorf("ResponseMeta = %q, %q; want \"\", m (the first event naming either)", id, model)
	}
	if id, model := ResponseMeta(nil); id != "" || model != "" {
		t.Errorf("ResponseMeta(nil) = %q, %q", id, model)
	}
}

func TestIndexes(t *testing.T) {
	var x Indexes
	var got []int
	got = append(got, x.Alloc())
	if !x.Take(2) || x.Take(2) || x.Take(-1) {
		t.Error("Take: 2 must be free once, and -1 never")
	}
	got = append(got, x.Alloc(), x.Alloc(), x.Alloc())
	if diff := cmp.Diff([]int{0, 1, 3, 4}, got); diff != "" {
		t.Errorf("allocated (-want +got):\n%s", diff)
	}
	if x.Take(3) {
		t.Error("Take(3) after Alloc gave 3")
	}
}

// BenchmarkUnquoteRaw decodes a string literal of escaped tool-call
// arguments.
func BenchmarkUnquoteRaw(b *testing.B) {
	lit := []byte(`"{\"city\": \"Par\u00eds\", \"note\": \"line one\nline two \ud83d\ude00\", \"tags\": [\"a\", \"b\"]}"`)
	b.SetBytes(int64(len(lit)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := UnquoteRaw(lit); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStrictUnmarshal: the place and error of every way a body can fail,
// and the messages WrapJSONError makes of them.
func TestStrictUnmarshal(t *testing.T) {
	type body struct {
		A struct {
			B int `json:"b"`
		} `json:"a"`
	}
	tests := []struct {
		in      string
		offset  int64
		field   string
		err     string
		wrapped string
	}{
		{in: `{"a":{"b":1}}`},
		{in: " {\"a\":{\"b\":1}} \n"},
		{in: `{"a":{"b":}}`, offset: 10, err: "malformed: invalid character '}' looking for beginning of value", wrapped: "malformed data at byte 10: invalid character '}' looking for beginning of value"},
		{in: `{"a":{"b":"x"}}`, offset: 13, field: "a.b", err: "malformed: json: cannot unmarshal string into Go struct field .a.b of type int", wrapped: "malformed data field a.b at byte 13: json: cannot unmarshal string into Go struct field .a.b of type int"},
		{in: `{"a":`, err: "malformed: unexpected end of JSON input: unexpected EOF"},
		{in: ``, err: "malformed: unexpected end of JSON input: unexpected EOF"},
		{in: "{} \n {}", offset: 5, err: "malformed: unexpected data after the JSON value"},
		{in: `x`, offset: 0, err: "malformed: invalid character 'x' looking for beginning of value", wrapped: "malformed data at byte 0: invalid character 'x' looking for beginning of value"},
	}
	for _, tt := range tests {
		var v body
		off, field, err := StrictUnmarshal([]byte(tt.in), &v)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if off != tt.offset || field != tt.field || gotErr != tt.err || (err != nil) != errors.Is(err, core.ErrMalformed) {
			t.Errorf("StrictUnmarshal(%q) = %d, %q, %q; want %d, %q, %q", tt.in, off, field, gotErr, tt.offset, tt.field, tt.err)
		}
		if tt.wrapped == "" {
			continue
		}
		raw := json.Unmarshal([]byte(tt.in), &v)
		w := WrapJSONError("data", raw)
		if w.Error() != tt.wrapped || !errors.Is(w, raw) || !errors.Is(w, core.ErrMalformed) {
			t.Errorf("WrapJSONError(%q) = %q, want %q wrapping %v", tt.in, w, tt.wrapped, raw)
		}
	}
	if got, want := WrapJSONError("payload", io.EOF).Error(), "malformed payload: EOF"; got != want {
		t.Errorf("WrapJSONError(io.EOF) = %q, want %q", got, want)
	}
	if !errors.Is(mustErr(StrictUnmarshal([]byte(`{"a":`), new(body))), io.ErrUnexpectedEOF) {
		t.Error("a truncated body's error does not wrap io.ErrUnexpectedEOF")
	}
}

func mustErr(_ int64, _ string, err error) error { return err }

// TestAppendCallArgs: the argument texts of call chunks, in the order a
// stream encoder writes them, with the decoder's {} for a call without
// arguments left out.
func TestAppendCallArgs(t *testing.T) {
	s := func(v string) *string { return &v }
	tests := []struct {
		name  string
		kind  core.EventKind
		chunk core.Chunk
		wrote bool
		want  []string
	}{
		{"delta: whole then delta", core.EventCallDelta, core.Chunk{Args: s(`{"a"`), ArgsDelta: `:1}`}, false, []string{`{"a"`, `:1}`}},
		{"delta: empty texts left out", core.EventCallDelta, core.Chunk{Args: s(""), ArgsDelta: ""}, true, nil},
		{"delta: {} is written", core.EventCallDelta, core.Chunk{Args: s("{}")}, false, []string{"{}"}},
		{"end: delta then whole", core.EventCallEnd, core.Chunk{Args: s(`{"b":2}`), ArgsDelta: `x`}, false, []string{"x", `{"b":2}`}},
		{"end: {} of a call without arguments left out", core.EventCallEnd, core.Chunk{Args: s("{}")}, false, nil},
		{"end: {} after argument text kept", core.EventCallEnd, core.Chunk{Args: s("{}")}, true, []string{"{}"}},
		{"end: {} after its own delta kept", core.EventCallEnd, core.Chunk{Args: s("{}"), ArgsDelta: " "}, false, []string{" ", "{}"}},
		{"end: nothing", core.EventCallEnd, core.Chunk{}, true, nil},
		{"start: not this function's", core.EventCallStart, core.Chunk{Args: s("{}"), ArgsDelta: "x"}, false, nil},
	}
	for _, tt := range tests {
		got := AppendCallArgs(nil, tt.kind, &tt.chunk, tt.wrote)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	if got := AppendCallArgs([]string{"kept"}, core.EventCallDelta, &core.Chunk{ArgsDelta: "d"}, false); !cmp.Equal(got, []string{"kept", "d"}) {
		t.Errorf("AppendCallArgs does not append to dst: %q", got)
	}
}

// BenchmarkAppendUnescaped unescapes into a reused buffer, as the Chat
// Completions fast path does: argument deltas dense with escapes, and a
// long text with one escape at its end. It should allocate nothing.
func BenchmarkAppendUnescaped(b *testing.B) {
	for _, bc := range []struct{ name, s string }{
		{"dense", `{\"city\": \"Par\u00eds\", \"note\": \"line one\nline two \ud83d\ude00\", \"tags\": [\"a\", \"b\"]}`},
		{"runs", strings.Repeat("plain text of a long delta without escapes ", 8) + `\n`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := []byte(bc.s)
			buf := make([]byte, 0, 2*len(s))
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				out, _, err := AppendUnescaped(buf[:0], s)
				if err != nil {
					b.Fatal(err)
				}
				buf = out
			}
		})
	}
}
