package jsonstr

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

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

// TestAppendMarshaledLikeMarshal checks that AppendMarshaled writes the
// bytes encoding/json.Marshal writes for the same string, for strings
// drawn from the bytes each of its escapes handles, and appends to what
// dst held, and that MarshaledLen is their length.
func TestAppendMarshaledLikeMarshal(t *testing.T) {
	for _, s := range []string{"", `a"b\c`, "\b\f\n\r\t\x00\x1f\x7f", "<a&b>", "\u2028\u2029\u2027", "\xff\xe2\x80", "é日\U0001F600", "\xed\xa0\x80"} {
		want, _ := json.Marshal(s)
		if got := AppendMarshaled(nil, []byte(s)); string(got) != string(want) {
			t.Errorf("AppendMarshaled(%q) = %s, want %s", s, got, want)
		}
	}
	alphabet := []byte("a\"\\<>&\b\f\n\r\t\x00\x1f\x7f\xff\xe2\x80\xa8\xa9\xc3\xa9\xf0\x9f\x98\x80")
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.SliceOf(rapid.OneOf(rapid.SampledFrom(alphabet), rapid.Byte())).Draw(t, "bytes")
		prefix := rapid.StringN(0, 3, -1).Draw(t, "prefix")
		want, _ := json.Marshal(string(s))
		if got := AppendMarshaled([]byte(prefix), s); string(got) != prefix+string(want) {
			t.Fatalf("AppendMarshaled(%q, %q) = %s, want %s%s", prefix, s, got, prefix, want)
		}
		if n := MarshaledLen(string(s)); n != len(want) {
			t.Fatalf("MarshaledLen(%q) = %d, want %d", s, n, len(want))
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

func TestField(t *testing.T) {
	for _, tt := range []struct {
		raw, want string
		err       bool
	}{
		{"", "", false},
		{"null", "", false},
		{" null\n", "", false},
		{`"a\u00e9"`, "aé", false},
		{` "x" `, "x", false},
		{`"\x"`, "", true},
		{`1`, "", true},
	} {
		got, err := Field([]byte(tt.raw))
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("Field(%q) = %q, %v; want %q, error %v", tt.raw, got, err, tt.want, tt.err)
		}
	}
}
