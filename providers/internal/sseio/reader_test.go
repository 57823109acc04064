package sseio

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/streamdec"
	"github.com/toolconform/conform/providers/internal/wire"
	"pgregory.net/rapid"
)

// readAll reads every event of in with next (Next or NextRaw of a reader
// over in, served in reads of size bytes), copying each event's data
// before the next call, and returns the events and the error that ended
// the stream.
func readAll(in string, size, max int, raw bool) ([]Event, error) {
	r := NewReader(iotest.OneByteReader(strings.NewReader(in)), max, "p")
	if size > 1 {
		r = NewReader(&chunkReader{s: in, n: size}, max, "p")
	}
	next := r.Next
	if raw {
		next = r.NextRaw
	}
	var got []Event
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

func TestReaderNextRaw(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Event
		err  string // empty for io.EOF
	}{
		{"typed", "event: a\ndata: 1\n\n: comment\nevent: b\ndata: 2\ndata: 3\n\n", []Event{{Name: "a", Data: []byte("1"), Offset: 0}, {Name: "b", Data: []byte("2\n3"), Offset: 18}}, ""},
		{"unterminated last event", "data: x\n\ndata: y", []Event{{Data: []byte("x")}, {Data: []byte("y"), Offset: 9}}, ""},
		{"empty data", "data:\n\n", []Event{{Data: []byte{}}}, ""},
		{"too large", "data: small\n\ndata: " + strings.Repeat("x", 100) + "\n\n", []Event{{Data: []byte("small")}}, "too large"},
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
			case tt.err != "" && (!errors.Is(err, core.ErrTooLarge) || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("%s (raw %v): err = %v, want one wrapping the too-large sentinel", tt.name, raw, err)
			}
		}
	}
}

// TestReaderNextKeeps checks that the data Next returns is the
// caller's own: reading on does not change it, as it changes NextRaw's.
func TestReaderNextKeeps(t *testing.T) {
	in := "data: first\n\ndata: other\n\n"
	r := NewReader(strings.NewReader(in), 1<<10, "p")
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

// TestReaderNextRawSameAsNext checks on generated streams, read in
// reads of any size, that NextRaw yields the events and the error Next
// yields.
func TestReaderNextRawSameAsNext(t *testing.T) {
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

// BenchmarkReaderNextRaw reads one event per op, which costs no
// allocation once the decoder's buffers have grown (allocs/op).
func BenchmarkReaderNextRaw(b *testing.B) {
	const event = "event: response.output_text.delta\ndata: {\"delta\":\"abc\"}\n\n"
	r := NewReader(&repeatReader{s: event}, 1<<10, "p")
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

func TestReader(t *testing.T) {
	in := "event: a\ndata: 1\n\n: comment\nevent: b\ndata: 2\ndata: 3\n\n"
	r := NewReader(strings.NewReader(in), 1<<10, "p")
	var got []Event
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
	want := []Event{{Name: "a", Data: []byte("1"), Offset: 0}, {Name: "b", Data: []byte("2\n3"), Offset: 18}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if r.Offset() != int64(len(in)) {
		t.Errorf("Offset() = %d, want %d", r.Offset(), len(in))
	}
}

func TestReaderTooLarge(t *testing.T) {
	in := "data: small\n\ndata: " + strings.Repeat("x", 100) + "\n\n"
	r := NewReader(strings.NewReader(in), 50, "p")
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, err := r.Next()
	var de *wire.DecodeError
	if !errors.As(err, &de) || !errors.Is(err, core.ErrTooLarge) {
		t.Fatalf("err = %v, want a wire.DecodeError wrapping the too-large sentinel", err)
	}
	if de.Protocol != "p" || de.Offset < 13 {
		t.Errorf("protocol, offset = %q, %d; want p and an offset in the second event (13 or later)", de.Protocol, de.Offset)
	}
}

// TestPull drives streamdec.Pull as an SSE stream decoder's Next does.
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
			var q streamdec.Queue
			var err error
			r := NewReader(strings.NewReader(tt.in), 1<<10, "p")
			handle := func(ev Event) error {
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
				e, e2 := streamdec.Pull(&q, &err, pull)
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
			if _, again := streamdec.Pull(&q, &err, pull); again != last {
				t.Errorf("second call after the end = %v, want %v again", again, last)
			}
		})
	}
}

var errMalformed = errors.New("malformed")
