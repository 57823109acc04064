package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"

	"pgregory.net/rapid"
)

func TestCompact(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":1}`, `{"a":1}`},
		{`{ "a" : [ 1 , 2 ] }`, `{"a":[1,2]}`},
		{"{\"a b\":\"c d\\\" e\",\n\t\"f\": \"\\\\\" }", `{"a b":"c d\" e","f":"\\"}`},
		{`"  "`, `"  "`},
	}
	var scratch []byte
	for _, tc := range tests {
		if got := Compact(&scratch, []byte(tc.in)); string(got) != tc.want {
			t.Errorf("Compact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCompactAsEncodingJSON checks Compact against json.Compact on every
// value encoding/json writes, indented or not, and that a value without
// white space between its tokens comes back as itself.
func TestCompactAsEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := jsonValue(0).Draw(t, "value")
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if rapid.Bool().Draw(t, "indent") {
			b, _ = json.MarshalIndent(v, " ", "\t")
		}
		var want bytes.Buffer
		if err := json.Compact(&want, b); err != nil {
			t.Fatal(err)
		}
		var scratch []byte
		got := Compact(&scratch, b)
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("Compact(%q) = %q, want %q", b, got, want.Bytes())
		}
		if bytes.Equal(b, want.Bytes()) && &got[0] != &b[0] {
			t.Fatalf("Compact copied %q, which has no white space to drop", b)
		}
	})
}

// TestCompactValue checks that CompactValue says a value is compact
// exactly when Compact would return it unchanged.
func TestCompactValue(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := jsonValue(0).Draw(t, "value")
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if rapid.Bool().Draw(t, "indent") {
			b, _ = json.MarshalIndent(v, "", " ")
		}
		p := New(append([]byte(" \n"), append(b, ' ')...))
		got, compact, ok := p.CompactValue()
		if !ok || !bytes.Equal(got, b) {
			t.Fatalf("CompactValue(%q) = %q, %t", b, got, ok)
		}
		var scratch []byte
		if want := bytes.Equal(Compact(&scratch, b), b); compact != want {
			t.Fatalf("CompactValue(%q) says compact %t, Compact says %t", b, compact, want)
		}
	})
}

// TestPlainRun checks plainRun against a byte-by-byte scan on every
// position of strings with a special byte at every offset.
func TestPlainRun(t *testing.T) {
	isPlain := func(c byte) bool { return c >= 0x20 && c != '"' && c != '\\' }
	for _, special := range []byte{'"', '\\', 0, 0x1f} {
		for _, fill := range []byte{'a', 0x20, 0x7f, 0x80, 0xff, '"' + 1, '\\' - 1} {
			for n := 0; n < 20; n++ {
				for at := 0; at <= n; at++ {
					b := bytes.Repeat([]byte{fill}, n)
					if at < n {
						b[at] = special
					}
					for i := 0; i <= n; i++ {
						want := i
						for want < len(b) && isPlain(b[want]) {
							want++
						}
						if got := plainRun(b, i); got != want {
							t.Fatalf("plainRun(%q, %d) = %d, want %d", b, i, got, want)
						}
					}
				}
			}
		}
	}
}
