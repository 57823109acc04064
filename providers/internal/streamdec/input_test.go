package streamdec

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestInput checks the verdict of NotStream from the bytes read and
// the events reported, whatever the sizes of the reads.
func TestInput(t *testing.T) {
	type verdict struct {
		Offset, N int64
		OK        bool
	}
	tests := []struct {
		name    string
		body    string
		unknown []int64 // offsets reported with Unknown, in order
		known   bool    // Known reported after them
		want    verdict
	}{
		{name: "empty", body: "", want: verdict{0, 0, false}},
		{name: "blank", body: " \r\n\t\n", want: verdict{0, 5, false}},
		{name: "blank with unknown events", body: "\n\n", unknown: []int64{0, 1}, want: verdict{0, 2, false}},
		{name: "no event at all", body: ": comment\n\n", want: verdict{0, 11, true}},
		{name: "first unknown event named", body: "data: {}\n\ndata: []\n\n", unknown: []int64{10, 0}, want: verdict{10, 20, true}},
		{name: "a known event makes a stream", body: "data: {}\n\n", unknown: []int64{0}, known: true, want: verdict{0, 10, false}},
		{name: "non-ASCII space is not blank", body: "\u00a0", want: verdict{0, 2, true}},
	}
	readers := map[string]func(io.Reader) io.Reader{
		"whole":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
	}
	for _, tt := range tests {
		for rname, wrap := range readers {
			t.Run(tt.name+"/"+rname, func(t *testing.T) {
				in := NewInput(wrap(strings.NewReader(tt.body)))
				if _, err := io.Copy(io.Discard, in); err != nil {
					t.Fatal(err)
				}
				for _, off := range tt.unknown {
					in.Unknown(off)
				}
				if tt.known {
					in.Known()
				}
				if in.IsKnown() != tt.known {
					t.Errorf("IsKnown = %v, want %v", in.IsKnown(), tt.known)
				}
				var got verdict
				got.Offset, got.N, got.OK = in.NotStream()
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("NotStream (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestInputReadSizes checks that a body is blank for Input
// exactly when it is empty after trimming ASCII white space, however it is
// cut into reads.
func TestInputReadSizes(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		body := rapid.StringOf(rapid.SampledFrom([]rune(" \t\r\n\u00a0\u2028x"))).Draw(t, "body")
		cuts := rapid.SliceOf(rapid.IntRange(1, 4)).Draw(t, "cuts")
		in := NewInput(&cutReader{s: body, cuts: cuts})
		if _, err := io.Copy(io.Discard, in); err != nil {
			t.Fatal(err)
		}
		_, n, notStream := in.NotStream()
		if want := strings.Trim(body, " \t\r\n") != ""; notStream != want {
			t.Fatalf("NotStream = %v for %q, want %v", notStream, body, want)
		}
		if n != int64(len(body)) {
			t.Fatalf("n = %d, want %d", n, len(body))
		}
	})
}

// cutReader returns s in reads of the sizes in cuts, then of what is left.
type cutReader struct {
	s    string
	cuts []int
}

func (r *cutReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	k := len(r.s)
	if len(r.cuts) > 0 {
		k, r.cuts = min(r.cuts[0], k), r.cuts[1:]
	}
	n := copy(p, r.s[:k])
	r.s = r.s[n:]
	return n, nil
}
