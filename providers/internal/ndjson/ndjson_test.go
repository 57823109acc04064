package ndjson

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

type line struct {
	Text   string
	Offset int64
}

func readAll(r *Reader) ([]line, error) {
	var out []line
	for {
		b, off, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, line{string(b), off})
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []line
	}{
		{"plain", "{\"a\":1}\n{\"b\":2}\n", []line{{`{"a":1}`, 0}, {`{"b":2}`, 8}}},
		{"CRLF and blank lines", "{}\r\n\r\n  \n{\"x\":1}\r\n", []line{{"{}", 0}, {`{"x":1}`, 9}}},
		{"last line without LF", "{}\n{\"end\":true}", []line{{"{}", 0}, {`{"end":true}`, 3}}},
		{"empty", "", nil},
		{"only blanks", "\n\n \r\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAll(NewReader(strings.NewReader(tt.in), 0))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReaderErrors(t *testing.T) {
	t.Run("line too long names its start", func(t *testing.T) {
		in := "{}\n" + strings.Repeat("x", 100) + "\n{}\n"
		got, err := readAll(NewReader(strings.NewReader(in), 10))
		var e *Error
		if !errors.Is(err, ErrLineTooLong) || !errors.As(err, &e) || e.Offset != 3 {
			t.Fatalf("err = %v, want ErrLineTooLong at offset 3", err)
		}
		if len(got) != 1 {
			t.Errorf("%d lines before the error, want 1", len(got))
		}
		if _, _, again := NewReader(strings.NewReader(in), 10).Next(); again != nil {
			t.Errorf("first line failed: %v", again)
		}
	})
	t.Run("line too long across buffer refills", func(t *testing.T) {
		in := strings.Repeat("y", 200<<10)
		_, err := readAll(NewReader(strings.NewReader(in), 100<<10))
		if !errors.Is(err, ErrLineTooLong) {
			t.Fatalf("err = %v, want ErrLineTooLong", err)
		}
	})
	t.Run("a line exactly at the limit passes", func(t *testing.T) {
		got, err := readAll(NewReader(strings.NewReader(strings.Repeat("z", 10)+"\r\n"), 10))
		if err != nil || len(got) != 1 {
			t.Fatalf("got %v, %v", got, err)
		}
	})
	t.Run("read error is sticky and carries the offset", func(t *testing.T) {
		r := NewReader(io.MultiReader(strings.NewReader("{}\n{\"a\""), iotest.ErrReader(errors.New("reset"))), 0)
		got, err := readAll(r)
		var e *Error
		if !errors.As(err, &e) || e.Offset != 7 || !strings.Contains(err.Error(), "reset") {
			t.Fatalf("err = %v, want a read error at offset 7", err)
		}
		if len(got) != 1 {
			t.Errorf("%d lines before the error, want 1", len(got))
		}
		if _, _, again := r.Next(); again != err {
			t.Errorf("error not sticky: %v", again)
		}
	})
}

// TestPropSplitReads checks that any read sizes give the same lines and
// offsets.
func TestPropSplitReads(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 10).Draw(t, "n")
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(rapid.StringMatching(`[a-z{}":, ]{0,30}`).Draw(t, "line"))
			b.WriteString(rapid.SampledFrom([]string{"\n", "\r\n", "\n\n"}).Draw(t, "end"))
		}
		in := b.String()
		want, err := readAll(NewReader(strings.NewReader(in), 0))
		if err != nil {
			t.Fatal(err)
		}
		got, err := readAll(NewReader(iotest.OneByteReader(strings.NewReader(in)), 0))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("lines (-whole +bytewise):\n%s", diff)
		}
		for _, l := range want {
			if !strings.HasPrefix(in[l.Offset:], l.Text) {
				t.Fatalf("offset %d does not start %q", l.Offset, l.Text)
			}
		}
	})
}

// TestBufferReuse: a Reader that has ended hands its read buffer to the
// next one; Readers reading at the same time, some with a reused buffer,
// each return their own lines, and a line stays valid until its Reader's
// next call.
func TestBufferReuse(t *testing.T) {
	lines := func(tag string, n int) []string {
		var out []string
		for i := range n {
			out = append(out, strings.Repeat(tag, i+1)+`{"k":1}`)
		}
		return out
	}
	drain := func(r *Reader) {
		for {
			if _, _, err := r.Next(); err != nil {
				return
			}
		}
	}
	for round := 0; round < 3; round++ {
		drain(NewReader(strings.NewReader(strings.Join(lines("z", 5), "\n")), 0))
		a, b := lines("a", 40), lines("b", 40)
		ra := NewReader(strings.NewReader(strings.Join(a, "\n")+"\n"), 0)
		rb := NewReader(strings.NewReader(strings.Join(b, "\r\n")), 0)
		for i := range a {
			la, _, errA := ra.Next()
			lb, _, errB := rb.Next()
			if errA != nil || errB != nil || string(la) != a[i] || string(lb) != b[i] {
				t.Fatalf("round %d line %d: %q %v and %q %v, want %q and %q", round, i, la, errA, lb, errB, a[i], b[i])
			}
		}
		if _, _, err := ra.Next(); err != io.EOF {
			t.Fatalf("after the last line: %v, want io.EOF", err)
		}
	}
}

// TestReaderGivesBackItsBuffer: a Reader drained to io.EOF hands its read
// buffer to the next one, whether the input ends with a line feed or not,
// so that reading a short stream costs the Reader alone; a Reader that
// kept its buffer would cost the 8 KB buffer every time.
func TestReaderGivesBackItsBuffer(t *testing.T) {
	for _, body := range []string{"{\"a\":1}\n{\"b\":2}\n", "{\"a\":1}\n{\"b\":2}", "{\"a\":1}\n\n \n"} {
		src := strings.NewReader(body)
		allocs := testing.AllocsPerRun(100, func() {
			src.Reset(body)
			r := NewReader(src, 0)
			for {
				if _, _, err := r.Next(); err != nil {
					if err != io.EOF {
						t.Fatal(err)
					}
					return
				}
			}
		})
		if allocs > 1 {
			t.Errorf("%q: %.1f allocations per stream, want the Reader's 1", body, allocs)
		}
	}
}
