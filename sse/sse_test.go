package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// refDecode is the reference model: a plain line-based reading of the
// WHATWG interpretation rules over the whole input, without limits.
func refDecode(in string, flush bool) []Event {
	in = strings.TrimPrefix(in, "\xEF\xBB\xBF")
	var lines []string
	rest := ""
	for {
		i := strings.IndexAny(in, "\r\n")
		if i < 0 {
			rest = in
			break
		}
		lines = append(lines, in[:i])
		if in[i] == '\r' && i+1 < len(in) && in[i+1] == '\n' {
			i++
		}
		in = in[i+1:]
	}
	var (
		evs    []Event
		data   strings.Builder
		hasAny bool
		typ    string
		lastID string
		retry  int64
	)
	dispatch := func() {
		if !hasAny {
			typ = ""
			return
		}
		d := data.String()
		evs = append(evs, Event{Type: typ, Data: d[:len(d)-1], ID: lastID, Retry: retry})
		data.Reset()
		hasAny = false
		typ = ""
	}
	process := func(l string) {
		if l == "" {
			dispatch()
			return
		}
		if l[0] == ':' {
			return
		}
		name, value, found := strings.Cut(l, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch name {
		case "data":
			data.WriteString(value + "\n")
			hasAny = true
		case "event":
			typ = value
		case "id":
			if !strings.Contains(value, "\x00") {
				lastID = value
			}
		case "retry":
			if n, ok := parseDigits([]byte(value)); ok {
				retry = n
			}
		}
	}
	for _, l := range lines {
		process(l)
	}
	if flush {
		if rest != "" {
			process(rest)
		}
		dispatch()
	}
	return evs
}

// decodeAll drains a decoder.
func decodeAll(r io.Reader, opts ...Option) ([]Event, error) {
	d := NewDecoder(r, opts...)
	var evs []Event
	for {
		ev, err := d.Next()
		if err == io.EOF {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

// pieces is a reader returning its pieces one per Read call.
type pieces struct{ p []string }

func (r *pieces) Read(b []byte) (int, error) {
	for len(r.p) > 0 && r.p[0] == "" {
		r.p = r.p[1:]
	}
	if len(r.p) == 0 {
		return 0, io.EOF
	}
	n := copy(b, r.p[0])
	r.p[0] = r.p[0][n:]
	return n, nil
}

func TestDecoder(t *testing.T) {
	tests := []struct {
		name  string
		in    []string // pieces, one per read
		flush bool
		want  []Event
	}{
		{"lf", []string{"data: a\n\ndata: b\n\n"}, false, []Event{{Data: "a"}, {Data: "b"}}},
		{"cr", []string{"data: a\r\rdata: b\r\r"}, false, []Event{{Data: "a"}, {Data: "b"}}},
		{"crlf", []string{"data: a\r\n\r\ndata: b\r\n\r\n"}, false, []Event{{Data: "a"}, {Data: "b"}}},
		{"crlf split across reads is one line end", []string{"data: a\r", "\n\r", "\ndata: b\r\n\r\n"}, false, []Event{{Data: "a"}, {Data: "b"}}},
		{"cr then cr is two line ends", []string{"data: a\r", "\r"}, false, []Event{{Data: "a"}}},
		{"bom stripped", []string{"\xEF\xBB\xBFdata: a\n\n"}, false, []Event{{Data: "a"}}},
		{"bom split across reads", []string{"\xEF", "\xBB", "\xBFdata: a\n\n"}, false, []Event{{Data: "a"}}},
		{"second bom kept", []string{"\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\n"}, false, nil},
		{"bom only at start", []string{"data: a\n\n\xEF\xBB\xBFdata: b\n\n"}, false, []Event{{Data: "a"}}},
		{"partial bom is text", []string{"\xEF\xBBdata: a\n\ndata: b\n\n"}, false, []Event{{Data: "b"}}},
		{"comments ignored", []string{": ping\n:\ndata: a\n: more\n\n"}, false, []Event{{Data: "a"}}},
		{"one optional space", []string{"data:a\n\ndata:  b\n\n"}, false, []Event{{Data: "a"}, {Data: " b"}}},
		{"multi-line data", []string{"data: a\ndata:\ndata: c\n\n"}, false, []Event{{Data: "a\n\nc"}}},
		{"event type and reset", []string{"event: x\ndata: a\n\ndata: b\n\n"}, false, []Event{{Type: "x", Data: "a"}, {Data: "b"}}},
		{"id persists", []string{"id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n"}, false, []Event{{ID: "1", Data: "a"}, {ID: "1", Data: "b"}, {Data: "c"}}},
		{"id with nul ignored", []string{"id: 1\ndata: a\n\nid: 2\x00\ndata: b\n\n"}, false, []Event{{ID: "1", Data: "a"}, {ID: "1", Data: "b"}}},
		{"retry digits only", []string{"retry: 300\ndata: a\n\nretry: 3s\ndata: b\n\nretry: -1\nretry:\ndata: c\n\n"}, false, []Event{{Retry: 300, Data: "a"}, {Retry: 300, Data: "b"}, {Retry: 300, Data: "c"}}},
		{"retry overflow ignored", []string{"retry: 99999999999999999999\ndata: a\n\n"}, false, []Event{{Data: "a"}}},
		{"field without colon", []string{"data\n\n"}, false, []Event{{Data: ""}}},
		{"empty data line dispatches empty data", []string{"data:\n\n"}, false, []Event{{Data: ""}}},
		{"no data field dispatches nothing", []string{"event: x\nid: 7\n\ndata: a\n\n"}, false, []Event{{ID: "7", Data: "a"}}},
		{"unknown field ignored", []string{"foo: bar\ndata: a\nDATA: b\n\n"}, false, []Event{{Data: "a"}}},
		{"colon in value kept", []string{"data: {\"a\": 1}\n\n"}, false, []Event{{Data: `{"a": 1}`}}},
		{"unterminated last event discarded", []string{"data: a\n\ndata: b\n"}, false, []Event{{Data: "a"}}},
		{"unterminated last line discarded", []string{"data: a\n\ndata: b"}, false, []Event{{Data: "a"}}},
		{"flush at eof, missing blank line", []string{"data: a\n\ndata: b\n"}, true, []Event{{Data: "a"}, {Data: "b"}}},
		{"flush at eof, unterminated line", []string{"data: a\n\ndata: b"}, true, []Event{{Data: "a"}, {Data: "b"}}},
		{"flush at eof, nothing pending", []string{"data: a\n\n"}, true, []Event{{Data: "a"}}},
		{"flush at eof, trailing cr", []string{"data: a\r"}, true, []Event{{Data: "a"}}},
		{"split at every byte", strings.Split("id: 1\r\nevent: e\r\ndata: x\r\n\r\n", ""), false, []Event{{ID: "1", Type: "e", Data: "x"}}},
		{"empty input", nil, true, nil},
		{"blank lines only", []string{"\n\n\r\n\r"}, false, nil},
		{"nul in data kept", []string{"data: a\x00b\n\n"}, false, []Event{{Data: "a\x00b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []Option
			if tt.flush {
				opts = append(opts, FlushAtEOF())
			}
			got, err := decodeAll(&pieces{p: append([]string(nil), tt.in...)}, opts...)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			ref := refDecode(strings.Join(tt.in, ""), tt.flush)
			if diff := cmp.Diff(tt.want, ref); diff != "" {
				t.Errorf("reference model disagrees with the table (-want +ref):\n%s", diff)
			}
		})
	}
}

func TestDecoderOffset(t *testing.T) {
	in := "\xEF\xBB\xBF: hi\n\ndata: a\n\n: c\nevent: x\ndata: b\n\n"
	d := NewDecoder(strings.NewReader(in))
	var offs []int64
	for {
		_, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		offs = append(offs, d.Offset())
	}
	want := []int64{int64(strings.Index(in, "data: a")), int64(strings.Index(in, ": c"))}
	if diff := cmp.Diff(want, offs); diff != "" {
		t.Errorf("offsets (-want +got):\n%s", diff)
	}
}

func TestDecoderTooLarge(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		max     int
		nOK     int
		wantOff int64
	}{
		{"one long line", "data: ok\n\ndata: " + strings.Repeat("x", 100) + "\n\n", 32, 1, 10},
		{"many short lines", "data: ok\n\n" + strings.Repeat("data: x\n", 10) + "\n", 32, 1, 10},
		{"comments count", ": " + strings.Repeat("c", 40) + "\ndata: x\n\n", 32, 0, 0},
		{"exactly at limit is fine", "data: " + strings.Repeat("x", 26) + "\n\n", 32, 1, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := decodeAll(iotest.OneByteReader(strings.NewReader(tt.in)), MaxEventSize(tt.max))
			if len(evs) != tt.nOK {
				t.Errorf("got %d events before the error, want %d", len(evs), tt.nOK)
			}
			if tt.wantOff < 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrEventTooLarge) {
				t.Fatalf("error = %v, want ErrEventTooLarge", err)
			}
			var se *Error
			if !errors.As(err, &se) || se.Offset != tt.wantOff {
				t.Fatalf("error = %v, want *Error at offset %d", err, tt.wantOff)
			}
		})
	}
}

func TestDecoderReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom))
	evs, err := decodeAll(r, FlushAtEOF())
	if diff := cmp.Diff([]Event{{Data: "a"}}, evs); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	var se *Error
	if !errors.Is(err, boom) || !errors.As(err, &se) || se.Offset != 16 {
		t.Fatalf("error = %v, want boom at byte 16", err)
	}
	// The error is sticky.
	d := NewDecoder(iotest.ErrReader(boom))
	_, err1 := d.Next()
	_, err2 := d.Next()
	if !errors.Is(err1, boom) || err1 != err2 {
		t.Errorf("errors %v then %v, want the same boom twice", err1, err2)
	}
}

func TestEncoder(t *testing.T) {
	var buf bytes.Buffer
	e := NewEncoder(&buf)
	evs := []Event{
		{Data: "a"},
		{Type: "t", Data: "x\ny\r\nz\rw", ID: "1"},
		{Data: " lead", ID: "1", Retry: 50},
		{Data: "", ID: ""},
	}
	for _, ev := range evs {
		if err := e.Encode(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Comment(" keepalive"); err != nil {
		t.Fatal(err)
	}
	wantText := "data: a\n\nid: 1\nevent: t\ndata: x\ndata: y\ndata: z\ndata: w\n\nretry: 50\ndata:  lead\n\nid\ndata: \n\n: keepalive\n"
	if diff := cmp.Diff(wantText, buf.String()); diff != "" {
		t.Errorf("bytes (-want +got):\n%s", diff)
	}
	got, err := decodeAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{{Data: "a"}, {Type: "t", Data: "x\ny\nz\nw", ID: "1"}, {Data: " lead", ID: "1", Retry: 50}, {Data: "", Retry: 50}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded (-want +got):\n%s", diff)
	}
	for _, bad := range []Event{{Type: "a\nb"}, {ID: "a\rb"}, {ID: "a\x00"}, {Retry: -1}} {
		if err := e.Encode(bad); !errors.Is(err, ErrBadField) {
			t.Errorf("Encode(%+v) = %v, want ErrBadField", bad, err)
		}
	}
	if err := e.Comment("a\nb"); !errors.Is(err, ErrBadField) {
		t.Errorf("Comment with newline = %v, want ErrBadField", err)
	}
}

func TestDataOffset(t *testing.T) {
	in := "\xEF\xBB\xBFid: 1\r\ndata: ab\r\ndata:cd\n\n"
	d := NewDecoder(strings.NewReader(in))
	if got := d.DataOffset(0); got != -1 {
		t.Errorf("before any event: %d, want -1", got)
	}
	ev, err := d.Next()
	if err != nil || ev.Data != "ab\ncd" {
		t.Fatalf("Next = %+v, %v", ev, err)
	}
	for i, want := range []int64{int64(strings.Index(in, "ab")), int64(strings.Index(in, "b\r")), int64(strings.Index(in, "b\r")) + 1, int64(strings.Index(in, "cd")), int64(strings.Index(in, "d\n"))} {
		if got := d.DataOffset(i); got != want {
			t.Errorf("DataOffset(%d) = %d, want %d", i, got, want)
		}
	}
}
