package wire

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// readAll reads every event of in with next (Next or NextRaw of a reader
// over in, served in reads of size bytes), copying each event's data
// before the next call, and returns the events and the error that ended
// the stream.
func readAll(in string, size, max int, raw bool) ([]SSEEvent, error) {
	r := NewSSEReader(iotest.OneByteReader(strings.NewReader(in)), max, "p", errTooLarge)
	if size > 1 {
		r = NewSSEReader(&chunkReader{s: in, n: size}, max, "p", errTooLarge)
	}
	next := r.Next
	if raw {
		next = r.NextRaw
	}
	var got []SSEEvent
	for {
		ev, err := next()
		if err != nil {
			return got, err
		}
		ev.Data = append([]byte{}, ev.Data...)
		got = append(got, ev)
	}
}

// chunkReader serves s in reads of at most n bytes.
type chunkReader struct {
	s string
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.s)
	c.s = c.s[k:]
	return k, nil
}

func TestSSEReaderNextRaw(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []SSEEvent
		err  string // empty for io.EOF
	}{
		{"typed", "event: a\ndata: 1\n\n: comment\nevent: b\ndata: 2\ndata: 3\n\n", []SSEEvent{{Name: "a", Data: []byte("1"), Offset: 0}, {Name: "b", Data: []byte("2\n3"), Offset: 18}}, ""},
		{"unterminated last event", "data: x\n\ndata: y", []SSEEvent{{Data: []byte("x")}, {Data: []byte("y"), Offset: 9}}, ""},
		{"empty data", "data:\n\n", []SSEEvent{{Data: []byte{}}}, ""},
		{"too large", "data: small\n\ndata: " + strings.Repeat("x", 100) + "\n\n", []SSEEvent{{Data: []byte("small")}}, "too large"},
	}
	for _, tt := range tests {
		for _, raw := range []bool{false, true} {
			got, err := readAll(tt.in, 7, 50, raw)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s (raw %v): events (-want +got):\n%s", tt.name, raw, diff)
			}
			switch {
			case tt.err == "" && err != io.EOF:
				t.Errorf("%s (raw %v): err = %v, want io.EOF", tt.name, raw, err)
			case tt.err != "" && (!errors.Is(err, errTooLarge) || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("%s (raw %v): err = %v, want one wrapping the too-large sentinel", tt.name, raw, err)
			}
		}
	}
}

// TestSSEReaderNextKeeps checks that the data Next returns is the
// caller's own: reading on does not change it, as it changes NextRaw's.
func TestSSEReaderNextKeeps(t *testing.T) {
	in := "data: first\n\ndata: other\n\n"
	r := NewSSEReader(strings.NewReader(in), 1<<10, "p", errTooLarge)
	a, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if string(a.Data) != "first" {
		t.Errorf("first event's data became %q after the next call", a.Data)
	}
}

// TestSSEReaderNextRawSameAsNext checks on generated streams, read in
// reads of any size, that NextRaw yields the events and the error Next
// yields.
func TestSSEReaderNextRawSameAsNext(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lines := rapid.SliceOf(rapid.SampledFrom([]string{
			"data: a", "data: {\"x\":1}", "data:", "event: e", ": c", "", "", "id: 7", "data: " + strings.Repeat("y", 40), "retry: 5",
		})).Draw(t, "lines")
		sep := rapid.SampledFrom([]string{"\n", "\r\n", "\r"}).Draw(t, "sep")
		in := strings.Join(lines, sep)
		size := rapid.IntRange(1, 64).Draw(t, "size")
		max := rapid.IntRange(8, 256).Draw(t, "max")
		want, werr := readAll(in, size, max, false)
		got, gerr := readAll(in, size, max, true)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("NextRaw events (-Next +NextRaw):\n%s", diff)
		}
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("NextRaw error %v, Next error %v", gerr, werr)
		}
	})
}

// BenchmarkSSEReaderNextRaw reads one event per op, which costs no
// allocation once the decoder's buffers have grown (allocs/op).
func BenchmarkSSEReaderNextRaw(b *testing.B) {
	const event = "event: response.output_text.delta\ndata: {\"delta\":\"abc\"}\n\n"
	r := NewSSEReader(&repeatReader{s: event}, 1<<10, "p", errTooLarge)
	for range 10 {
		if _, err := r.NextRaw(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.NextRaw(); err != nil {
			b.Fatal(err)
		}
	}
}

// repeatReader serves s over and over.
type repeatReader struct {
	s string
	i int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], r.s[r.i:])
		n += k
		r.i = (r.i + k) % len(r.s)
	}
	return n, nil
}
