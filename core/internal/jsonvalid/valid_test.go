package jsonvalid

import (
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
