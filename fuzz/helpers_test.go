package fuzz

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestCutRunes(t *testing.T) {
	for _, tc := range []struct {
		s    string
		cuts []byte
		want []string
	}{
		{"abcdef", nil, []string{"abcdef"}},
		{"abcdef", []byte{1}, []string{"ab", "cd", "ef"}},
		{"abcdef", []byte{0, 2}, []string{"a", "bcd", "e", "f"}},
		// "ä" is two bytes and "😀" four: a cut inside moves past the rune.
		{"ä😀x", []byte{0}, []string{"ä", "😀", "x"}},
		{"", []byte{3}, []string{""}},
	} {
		got := cutRunes(tc.s, tc.cuts)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("cutRunes(%q, %v) (-want +got):\n%s", tc.s, tc.cuts, diff)
		}
		if strings.Join(got, "") != tc.s {
			t.Errorf("cutRunes(%q, %v) pieces do not join back", tc.s, tc.cuts)
		}
	}
}

func TestArgsObject(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1}`, `{"a":1}`},
		{` {"a": [1, {"b": null}]} `, ` {"a": [1, {"b": null}]} `},
		{`{"a":1`, `{"s":"{\"a\":1"}`},
		{`[1]`, `{"s":"[1]"}`},
		{``, `{"s":""}`},
		{`{"n":1e400}`, `{"s":"{\"n\":1e400}"}`},
		{"\xff", "{\"s\":\"\uFFFD\"}"},
		{"{\"\x8c\":\"\"}", "{\"\uFFFD\":\"\"}"},
	} {
		got := argsObject(tc.in)
		if got != tc.want {
			t.Errorf("argsObject(%q) = %q, want %q", tc.in, got, tc.want)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(got), &m); err != nil {
			t.Errorf("argsObject(%q) = %q, not an object: %v", tc.in, got, err)
		}
	}
}

func TestPiecesReadsInCutSizes(t *testing.T) {
	p := &pieces{body: []byte("abcdefghij"), cuts: []byte{0, 2, 64}}
	var got []string
	buf := make([]byte, 100)
	for {
		n, err := p.Read(buf)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(buf[:n]))
	}
	// 0 → 1 byte, 2 → 3 bytes, 64 → 1 byte (64%64+1), then again.
	want := []string{"a", "bcd", "e", "f", "ghi", "j"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pieces (-want +got):\n%s", diff)
	}
}

// TestDrawValidUTF8: drawn text and argument deltas are valid UTF-8 piece
// by piece, whatever the input, since no wire format could carry them
// otherwise.
func TestDrawValidUTF8(t *testing.T) {
	d := draw(0x07, "a\xffä😀", [3]string{"\xfe{", `{"k":"é😀"}`, ""}, []byte{0})
	for i, ev := range d.events {
		s := ev.Text
		if ev.Chunk != nil {
			s = ev.Chunk.ArgsDelta
		}
		if !utf8.ValidString(s) {
			t.Errorf("event %d (%s) carries invalid UTF-8 %q", i, ev.Kind, s)
		}
	}
	if len(d.calls) != 3 || d.text != "a\uFFFDä😀" {
		t.Errorf("draw: %d calls, text %q; want 3 calls, text %q", len(d.calls), d.text, "a\uFFFDä😀")
	}
}

// TestRecordedStreams: the corpus gives FuzzRecordedSplit streams of every
// adapter that has recordings, and calls to compare, so that the target
// cannot pass on an empty corpus.
func TestRecordedStreams(t *testing.T) {
	rs, err := recordedStreams()
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	calls := 0
	for _, r := range rs {
		per[r.adapter]++
		resp, _ := collect(r.adapter, bytes.NewReader(r.body))
		calls += len(resp.Calls())
	}
	for _, name := range []string{"anthropic", "bedrock", "cohere", "gemini", "mistral", "openai-chat", "openai-responses"} {
		if per[name] == 0 {
			t.Errorf("no recorded stream for %s", name)
		}
	}
	if len(rs) < 100 || calls < 100 {
		t.Errorf("%d recorded streams with %d calls; want at least 100 of each", len(rs), calls)
	}
	t.Logf("%d recorded streams, %d calls: %v", len(rs), calls, per)
}
