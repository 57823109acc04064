package adaptertest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"pgregory.net/rapid"
)

// MaxDrainEvents bounds the events Drain reads from one stream.
const MaxDrainEvents = 1 << 20

// ErrRunaway is returned by Drain and DrainN for a stream that yields more
// events than their bound.
var ErrRunaway = errors.New("stream yields more events than the bound")

// Drain reads a stream to io.EOF and returns its events and the error that
// ended it (nil at io.EOF). The events before an error are returned with it.
// A stream that yields more than MaxDrainEvents events is ErrRunaway.
func Drain(st core.EventStream) ([]core.Event, error) { return DrainN(st, MaxDrainEvents) }

// DrainN is Drain with a bound of max events.
func DrainN(st core.EventStream, max int) ([]core.Event, error) {
	var out []core.Event
	for {
		e, err := st.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if len(out) >= max {
			return out, fmt.Errorf("drain: %w (%d)", ErrRunaway, max)
		}
		out = append(out, e)
	}
}

// splitReader returns its data in pieces of the given sizes, starting the
// sizes over when they run out.
type splitReader struct {
	data  []byte
	sizes []int
	i     int
}

// SplitReader returns a reader of data whose reads return pieces of the
// given sizes in turn (starting over after the last; sizes below 1 count as
// 1), never more than the caller's buffer holds. Without sizes it returns
// one byte at a time.
func SplitReader(data []byte, sizes ...int) io.Reader {
	return &splitReader{data: data, sizes: sizes}
}

func (r *splitReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := 1
	if len(r.sizes) > 0 {
		n = max(r.sizes[r.i%len(r.sizes)], 1)
		r.i++
	}
	n = min(n, len(p), len(r.data))
	copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

// DrawSplitReader returns a SplitReader of data with piece sizes drawn
// from 1 to 64 bytes.
func DrawSplitReader(t *rapid.T, data []byte) io.Reader {
	return SplitReader(data, rapid.SliceOfN(rapid.IntRange(1, 64), 1, 200).Draw(t, "sizes")...)
}

// CheckSplitStreams states that decode gives the same events, and no
// error, whether a stream arrives whole or cut into random pieces. It fails
// if streams is empty or a stream does not decode whole.
func CheckSplitStreams(t *testing.T, streams [][]byte, decode func(io.Reader) core.EventStream) {
	t.Helper()
	if len(streams) == 0 {
		t.Fatal("no streams to split")
	}
	want := make([][]core.Event, len(streams))
	for i, s := range streams {
		ev, err := Drain(decode(bytes.NewReader(s)))
		if err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		want[i] = ev
	}
	rapid.Check(t, func(t *rapid.T) {
		i := rapid.IntRange(0, len(streams)-1).Draw(t, "stream")
		got, err := Drain(decode(DrawSplitReader(t, streams[i])))
		if err != nil {
			t.Fatalf("stream %d split: %v", i, err)
		}
		if diff := cmp.Diff(want[i], got); diff != "" {
			t.Fatalf("stream %d (-want +got):\n%s", i, diff)
		}
	})
}

// BenchDecodeLargestStream is the body of an adapter's stream decoding
// benchmark: it decodes the largest recorded stream of protocol (see
// LargestStream) to its end, b.N times, with b.SetBytes set to its length.
func BenchDecodeLargestStream(b *testing.B, protocol string, decode func(io.Reader) core.EventStream) {
	b.Helper()
	body := LargestStream(b, protocol)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := Drain(decode(bytes.NewReader(body))); err != nil {
			b.Fatal(err)
		}
	}
}

// SmallReads returns a reader of body for fuzz targets that compare a
// whole read with a cut one: one byte a read, or half a buffer a read for
// bodies over 4 KiB, where single bytes would slow fuzzing to a crawl.
func SmallReads(body []byte) io.Reader {
	if len(body) > 4096 {
		return iotest.HalfReader(bytes.NewReader(body))
	}
	return iotest.OneByteReader(bytes.NewReader(body))
}

// FastPathRun decodes body with a stream decoder's fast path on or off and
// returns the events, the facts of the error that ended the stream (zero
// at io.EOF) and the number of wire events the fast path decoded.
type FastPathRun func(body []byte, fast bool) (events []core.Event, err ErrorFacts, hits int)

// CheckFastPath fails when a decoder's fast path changes anything its
// stream yields (the events, their order, or the error that ends it: its
// type, text, place and sentinels), or decodes anything while turned off;
// unit names what the fast path decodes ("events", "lines", "chunks"). It
// returns the fast path's hits.
func CheckFastPath(t Fataler, name, unit string, body []byte, run FastPathRun) int {
	t.Helper()
	general, generalErr, hits := run(body, false)
	if hits != 0 {
		t.Fatalf("%s: fast path decoded %d %s while turned off", name, hits, unit)
	}
	fast, fastErr, hits := run(body, true)
	if diff := cmp.Diff(general, fast); diff != "" {
		t.Fatalf("%s: fast path changes the events (-general +fast):\n%s", name, diff)
	}
	if diff := cmp.Diff(generalErr, fastErr); diff != "" {
		t.Fatalf("%s: fast path changes the error (-general +fast):\n%s", name, diff)
	}
	return hits
}

// CheckSplitMatches checks that every stream, read through decode in
// random read sizes, yields want[i] and ends with an error of the facts
// wantErr[i] (zero for io.EOF): a fast path reading a stream cut anywhere
// against what the general path decoded from it whole.
func CheckSplitMatches(t *testing.T, streams [][]byte, want [][]core.Event, wantErr []ErrorFacts, decode func(io.Reader) core.EventStream) {
	t.Helper()
	rapid.Check(t, func(t *rapid.T) {
		i := rapid.IntRange(0, len(streams)-1).Draw(t, "stream")
		got, gotErr := DrainFacts(decode(DrawSplitReader(t, streams[i])))
		if diff := cmp.Diff(want[i], got); diff != "" {
			t.Fatalf("stream %d split, fast path (-general whole +fast split):\n%s", i, diff)
		}
		if diff := cmp.Diff(wantErr[i], gotErr); diff != "" {
			t.Fatalf("stream %d split: error (-general whole +fast split):\n%s", i, diff)
		}
	})
}

// CheckReusedDecoder checks a decoder that hands its storage to the next
// stream once its own has ended: streams decoded one after another through
// decode, in random read sizes, each drained before the next starts, yield
// want[i] and an error of the facts wantErr[i], checked only after all were
// decoded (so that anything an event points into and a later stream
// overwrote is found), and io.EOF again after their end.
func CheckReusedDecoder(t *testing.T, streams [][]byte, want [][]core.Event, wantErr []ErrorFacts, decode func(io.Reader) core.EventStream) {
	t.Helper()
	rapid.Check(t, func(t *rapid.T) {
		var got [][]core.Event
		var order []int
		for range 3 * len(streams) {
			i := rapid.IntRange(0, len(streams)-1).Draw(t, "stream")
			st := decode(DrawSplitReader(t, streams[i]))
			evs, gotErr := DrainFacts(st)
			if gotErr.Text == "" {
				if ev, err := st.Next(); err != io.EOF {
					t.Fatalf("stream %d: Next after io.EOF gives %+v, %v", i, ev, err)
				}
			}
			if diff := cmp.Diff(wantErr[i], gotErr); diff != "" {
				t.Fatalf("stream %d: error (-own decoder +reused):\n%s", i, diff)
			}
			got, order = append(got, evs), append(order, i)
		}
		for j, i := range order {
			if diff := cmp.Diff(want[i], got[j]); diff != "" {
				t.Fatalf("stream %d, decoded %dth: events after all were decoded (-own decoder +reused):\n%s", i, j, diff)
			}
		}
	})
}

// BenchFastPath measures a fast path (run with fast on) on stream(n),
// which it must decode in wantHits wire events and without an error; the
// numbers are per stream, except metric: the allocations of stream(1010)
// less those of stream(10), per one of the extra wire events that the
// larger stream holds, which removes the cost of the stream itself.
func BenchFastPath(b *testing.B, run FastPathRun, stream func(n int) []byte, n, wantHits, extra int, metric string) {
	b.Helper()
	decode := func(body []byte) int {
		_, errFacts, hits := run(body, true)
		if errFacts.Text != "" {
			b.Fatal(errFacts.Text)
		}
		return hits
	}
	allocs := func(body []byte) float64 {
		return testing.AllocsPerRun(10, func() { decode(body) })
	}
	perEvent := (allocs(stream(1010)) - allocs(stream(10))) / float64(extra)
	body := stream(n)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if hits := decode(body); hits != wantHits {
			b.Fatalf("fast path took %d wire events, want %d", hits, wantHits)
		}
	}
	b.ReportMetric(perEvent, metric)
}
