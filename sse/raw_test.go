package sse

import (
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// decodeRaw decodes with NextRaw, copying each event's data before the
// next call, as a caller that keeps events must.
func decodeRaw(r io.Reader, opts ...Option) ([]Event, error) {
	d := NewDecoder(r, opts...)
	var evs []Event
	for {
		ev, err := d.NextRaw()
		if err == io.EOF {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, Event{Type: ev.Type, Data: string(ev.Data), ID: ev.ID, Retry: ev.Retry})
	}
}

// TestNextRawMatchesNext: NextRaw yields the events, and the error, that
// Next yields, on every generated stream split at random, with and without
// FlushAtEOF and with a small size limit.
func TestNextRawMatchesNext(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := genText(t, false)
		split := genSplit(t, text)
		var opts []Option
		if rapid.Bool().Draw(t, "flush") {
			opts = append(opts, FlushAtEOF())
		}
		if rapid.Bool().Draw(t, "small") {
			opts = append(opts, MaxEventSize(rapid.IntRange(1, 64).Draw(t, "max")))
		}
		want, werr := decodeAll(&pieces{p: append([]string(nil), split...)}, opts...)
		got, gerr := decodeRaw(&pieces{p: split}, opts...)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("decode %q: NextRaw differs from Next (-Next +NextRaw):\n%s", text, diff)
		}
		var we, ge *Error
		if (werr == nil) != (gerr == nil) || errors.As(werr, &we) != errors.As(gerr, &ge) || (we != nil && (we.Offset != ge.Offset || we.Error() != ge.Error())) {
			t.Fatalf("decode %q: Next error %v, NextRaw error %v", text, werr, gerr)
		}
	})
}

// TestNextRawView: the data of a raw event stays intact until the next
// call, and the view cannot be appended into the decoder's buffer.
func TestNextRawView(t *testing.T) {
	d := NewDecoder(stringsReader("data: first\n\ndata: second\n\n"))
	ev, err := d.NextRaw()
	if err != nil {
		t.Fatal(err)
	}
	if string(ev.Data) != "first" {
		t.Fatalf("first event data %q, want %q", ev.Data, "first")
	}
	if cap(ev.Data) != len(ev.Data) {
		t.Errorf("data view has capacity %d beyond its length %d", cap(ev.Data), len(ev.Data))
	}
	ev2, err := d.NextRaw()
	if err != nil || string(ev2.Data) != "second" {
		t.Fatalf("second event %q, %v; want %q", ev2.Data, err, "second")
	}
}

func stringsReader(s string) io.Reader { return &pieces{p: []string{s}} }

// TestRelease: a decoder released after the events it wanted returns
// io.EOF from then on, and the next decoder, which may reuse its buffers,
// decodes its own stream intact.
func TestRelease(t *testing.T) {
	d := NewDecoder(stringsReader("data: first\n\ndata: second\n\n"))
	if ev, err := d.NextRaw(); err != nil || string(ev.Data) != "first" {
		t.Fatalf("first event %q, %v", ev.Data, err)
	}
	d.Release()
	if _, err := d.NextRaw(); err != io.EOF {
		t.Fatalf("after Release: %v, want io.EOF", err)
	}
	d.Release()
	for range 3 {
		evs, err := decodeAll(stringsReader("data: a\n\ndata: b\ndata: c\n\n"))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]Event{{Data: "a"}, {Data: "b\nc"}}, evs); diff != "" {
			t.Fatalf("decoder after a release (-want +got):\n%s", diff)
		}
	}
}
