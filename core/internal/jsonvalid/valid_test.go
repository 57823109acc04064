package jsonvalid

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

var cases = []string{
	``, ` `, `null`, `true`, `false`, `nul`, `nulll`, `truex`, `0`, `-0`, `-`, `01`, `1.`, `1.5`, `.5`, `1e`, `1e+`, `1E-7`, `-1.5e10`, `1x`,
	`""`, `"a"`, `"\u00e9\n\"\\\/\b\f\r\t"`, `"\u12"`, `"\x"`, `"a`, "\"\x01\"", "\"\xff\xfe\"", `"\ud800"`,
	`[]`, `[ ]`, `[1,2]`, `[1,]`, `[,1]`, `[1 2]`, `[`, `]`, `[[]]`, `[{}]`, `[1}`,
	`{}`, `{ }`, `{"a":1}`, `{"a":1,}`, `{"a"}`, `{"a":}`, `{a:1}`, `{"a":1 "b":2}`, `{"a":1,"b":[true,null,{"c":"d"}]}`, `{"a":1]`, `{1:2}`,
	` {"a" : [ 1 , 2 ] } `, `{} {}`, `1 2`, "\t\r\n[]\n", `{"a":{"b":{"c":[[[]]]}}}`, `"a"x`, `[1,2]]`, `{}}`,
	strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth),
	strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1),
	strings.Repeat(`{"a":`, maxDepth) + "1" + strings.Repeat("}", maxDepth),
	strings.Repeat(`{"a":`, maxDepth+1) + "1" + strings.Repeat("}", maxDepth+1),
}

func TestValid(t *testing.T) {
	for _, c := range cases {
		if got, want := Valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("Valid(%.60q) = %t, json.Valid says %t", c, got, want)
		}
	}
}

// FuzzValid: Valid answers as json.Valid does for any input.
func FuzzValid(f *testing.F) {
	for _, c := range cases {
		if len(c) < 200 {
			f.Add(c)
		}
	}
	f.Fuzz(func(t *testing.T, c string) {
		if got, want := Valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Fatalf("Valid(%q) = %t, json.Valid says %t", c, got, want)
		}
	})
}

func BenchmarkValid(b *testing.B) {
	v := []byte(`{"path":"src/pkg0/file_0.go","mode":"overwrite","content":"` + strings.Repeat(`line 00001 of call 0: x := \"a\\tb\" // abab\n`, 50) + `"}`)
	b.SetBytes(int64(len(v)))
	for b.Loop() {
		if !Valid(v) {
			b.Fatal("refused")
		}
	}
}

func BenchmarkEncodingJSONValid(b *testing.B) {
	v := []byte(`{"path":"src/pkg0/file_0.go","mode":"overwrite","content":"` + strings.Repeat(`line 00001 of call 0: x := \"a\\tb\" // abab\n`, 50) + `"}`)
	b.SetBytes(int64(len(v)))
	for b.Loop() {
		if !json.Valid(v) {
			b.Fatal("refused")
		}
	}
}

// TestPlainRun checks PlainRun against a byte-by-byte scan on every
// position of strings with a special byte at every offset.
func TestPlainRun(t *testing.T) {
	for _, special := range []byte{'"', '\\', 0, 0x1f} {
		for _, fill := range []byte{'a', 0x20, 0x21, 0x7f, 0x80, 0xff, '"' + 1, '\\' - 1} {
			for n := 0; n < 20; n++ {
				for at := 0; at <= n; at++ {
					b := bytes.Repeat([]byte{fill}, n)
					if at < n {
						b[at] = special
					}
					for i := 0; i <= n; i++ {
						want := i
						for want < len(b) && plain[b[want]] {
							want++
						}
						if got := PlainRun(b, i); got != want {
							t.Fatalf("PlainRun(%q, %d) = %d, want %d", b, i, got, want)
						}
					}
				}
			}
		}
	}
}
