package jsonscan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestSkip(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth) + "1" + strings.Repeat("]", MaxDepth)
	deeper := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	deepObjects := strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1)
	tests := []struct {
		in   string
		ok   bool
		rest string // what is left after a value Skip accepted
	}{
		{`null`, true, ""},
		{` true ,`, true, " ,"},
		{`false`, true, ""},
		{`tru`, false, ""},
		{`nul`, false, ""},
		{`0`, true, ""},
		{`-0.5e+10]`, true, "]"},
		{`01`, false, ""},
		{`-`, false, ""},
		{`1.`, false, ""},
		{`1e`, false, ""},
		{`"a\"b"x`, true, "x"},
		{`"\u00e9"`, true, ""},
		{`"\u00g9"`, false, ""},
		{`"\x"`, false, ""},
		{"\"a\nb\"", false, ""},
		{"\"\xff\"", false, ""},
		{`"open`, false, ""},
		{`{}`, true, ""},
		{`{"a":[1,{"b":null}],"c":"d"}`, true, ""},
		{`{"a":1,}`, false, ""},
		{`{"a" 1}`, false, ""},
		{"{\"\xff\":1}", false, ""},
		{`[1 2]`, false, ""},
		{`[1,]`, false, ""},
		{`[]`, true, ""},
		{deep, true, ""},
		{deeper, false, ""},
		{deepObjects, false, ""},
		{strings.Repeat("[", 2_090_000), false, ""},
		{``, false, ""},
		{`}`, false, ""},
	}
	for _, tt := range tests {
		p := New([]byte(tt.in))
		ok := p.Skip()
		if ok != tt.ok {
			t.Errorf("Skip(%q) = %v, want %v", tt.in, ok, tt.ok)
			continue
		}
		if ok && tt.in[p.Pos():] != tt.rest {
			t.Errorf("Skip(%q) left %q, want %q", tt.in, tt.in[p.Pos():], tt.rest)
		}
	}
}

func TestSmall(t *testing.T) {
	tests := []struct {
		in string
		n  int
		ok bool
	}{
		{"0", 0, true},
		{" 42,", 42, true},
		{"999999999", 999999999, true},
		{"1000000000", 0, false},
		{"01", 0, false},
		{"-1", 0, false},
		{"1.0", 0, false},
		{"1e3", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		p := New([]byte(tt.in))
		n, ok := p.Small()
		if n != tt.n || ok != tt.ok {
			t.Errorf("Small(%q) = %d, %v, want %d, %v", tt.in, n, ok, tt.n, tt.ok)
		}
	}
}

// TestObject checks which keys Object reads, skips and refuses.
func TestObject(t *testing.T) {
	keys := []string{"a", "b"}
	known := []string{"a", "b", "Error"}
	tests := []struct {
		in   string
		ok   bool
		read []string
	}{
		{`{}`, true, nil},
		{`{"a":1,"b":2}`, true, []string{"a=1", "b=2"}},
		{`{"x":{"y":[1]},"b":2}`, true, []string{"b=2"}},
		{`{"x":1,"x":2}`, true, nil},              // repeated skipped keys are ignored by encoding/json too
		{`{"a":1,"a":2}`, false, []string{"a=1"}}, // a read key may not repeat
		{`{"A":1}`, false, nil},                   // case folded match of a read key
		{`{"error":1}`, false, nil},               // case folded match of a known name
		{`{"\u0061":1}`, false, nil},              // escaped key
		{"{\"\xc3\xa9\":1}", false, nil},          // non-ASCII key
		{`{"a":x}`, false, nil},
		{`{"a":1`, false, []string{"a=1"}},
		{`{"a":1 "b":2}`, false, []string{"a=1"}},
		{`[]`, false, nil},
	}
	for _, tt := range tests {
		p := New([]byte(tt.in))
		var read []string
		ok := p.Object(keys, known, func(k int) bool {
			n, ok := p.Small()
			if ok {
				read = append(read, keys[k]+"="+string(rune('0'+n)))
			}
			return ok
		})
		if ok != tt.ok {
			t.Errorf("Object(%q) = %v, want %v", tt.in, ok, tt.ok)
		}
		if diff := cmp.Diff(tt.read, read); diff != "" {
			t.Errorf("Object(%q) read (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestArray(t *testing.T) {
	tests := []struct {
		in string
		ok bool
		n  int
	}{
		{`[]`, true, 0},
		{` [ 1 , 2 ]`, true, 2},
		{`[1,]`, false, 1},
		{`[1 2]`, false, 1},
		{`{}`, false, 0},
	}
	for _, tt := range tests {
		p := New([]byte(tt.in))
		n := 0
		ok := p.Array(func() bool {
			_, ok := p.Small()
			if ok {
				n++
			}
			return ok
		})
		if ok != tt.ok || n != tt.n {
			t.Errorf("Array(%q) = %v with %d elements, want %v with %d", tt.in, ok, n, tt.ok, tt.n)
		}
	}
}

func TestStrings(t *testing.T) {
	tests := []struct {
		in       string // a JSON string literal
		text     string
		textOK   bool
		raw      string
		valueOf  string // Number or Value bytes, when not a string
		hasValue bool
	}{
		{in: `"plain"`, text: "plain", textOK: true, raw: "plain"},
		{in: `"a\nb\u00e9\/"`, text: "a\nb\u00e9/", textOK: true, raw: "a\nb\u00e9/"},
		{in: `"\ud83d\ude00"`, text: "\U0001F600", textOK: true, raw: "\U0001F600"},
		{in: `"\ud83d"`, textOK: false, raw: "\uFFFD"},
		{in: "\"\xff\"", textOK: false, raw: "\xff"},
		{in: `""`, text: "", textOK: true, raw: ""},
	}
	var st Strings
	for _, tt := range tests {
		p := New([]byte(tt.in))
		content, esc, ok := p.Str()
		if !ok {
			t.Fatalf("Str(%q) refused", tt.in)
		}
		text, ok := st.Text(content, esc)
		if text != tt.text || ok != tt.textOK {
			t.Errorf("Text(%q) = %q, %v, want %q, %v", tt.in, text, ok, tt.text, tt.textOK)
		}
		if v, ok := st.Unescaped(content, esc); ok != tt.textOK || ok && string(v) != tt.text {
			t.Errorf("Unescaped(%q) = %q, %v, want %q, %v", tt.in, v, ok, tt.text, tt.textOK)
		}
		raw, ok := st.Raw(content, esc)
		if raw != tt.raw || !ok {
			t.Errorf("Raw(%q) = %q, %v, want %q, true", tt.in, raw, ok, tt.raw)
		}
	}
}

// TestArenaStrings checks that arena strings stay intact as the arena
// fills and moves to new blocks, and that long strings are kept whole.
func TestArenaStrings(t *testing.T) {
	var st Strings
	var want, got []string
	for i := 0; i < 3*ArenaBlock/100; i++ {
		s := strings.Repeat(string(rune('a'+i%26)), 1+i%200)
		want = append(want, s)
		got = append(got, st.String([]byte(s)))
	}
	long := strings.Repeat("x", ArenaMax+1)
	want, got = append(want, long), append(got, st.String([]byte(long)))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("arena strings changed (-want +got):\n%s", diff)
	}
}

// BenchmarkObject reads an object's values and keeps a small string, which
// costs no allocation once the arena block exists (allocs/op).
func BenchmarkObject(b *testing.B) {
	data := []byte(`{"a":"x\ny","b":12,"skip":[1,{"c":null}],"n":-1.5e3}`)
	keys := []string{"a", "b", "n"}
	var st Strings
	st.String([]byte("warm"))
	st.Text([]byte(`\n`), true)
	b.ReportAllocs()
	for b.Loop() {
		p := New(data)
		ok := p.Object(keys, keys, func(k int) bool {
			switch k {
			case 0:
				c, esc, ok := p.Str()
				_, ok2 := st.Text(c, esc)
				return ok && ok2
			case 1:
				_, ok := p.Small()
				return ok
			}
			_, ok := p.Number()
			return ok
		})
		if !ok || !p.End() {
			b.Fatal("object refused")
		}
	}
}

// jsonValue generates JSON values, as Go values that encoding/json writes.
func jsonValue(depth int) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		kind := rapid.IntRange(0, 6).Draw(t, "kind")
		if depth >= 4 && kind >= 5 {
			kind = 0
		}
		switch kind {
		case 0:
			return nil
		case 1:
			return rapid.Bool().Draw(t, "bool")
		case 2:
			return rapid.Float64Range(-1e300, 1e300).Draw(t, "number")
		case 3:
			return rapid.Int64().Draw(t, "int")
		case 4:
			return rapid.String().Draw(t, "string")
		case 5:
			return rapid.SliceOfN(jsonValue(depth+1), 0, 4).Draw(t, "array")
		}
		return rapid.MapOfN(rapid.String(), jsonValue(depth+1), 0, 4).Draw(t, "object")
	})
}

// TestSkipValidJSON checks that Skip and Value accept every value
// encoding/json writes, indented or not, and return exactly its bytes.
func TestSkipValidJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := jsonValue(0).Draw(t, "value")
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if rapid.Bool().Draw(t, "indent") {
			b, _ = json.MarshalIndent(v, " ", "\t")
		}
		in := append([]byte("\r\n "), b...)
		p := New(in)
		got, ok := p.Value()
		if !ok || !p.End() {
			t.Fatalf("Value refused %s at %d", in, p.Pos())
		}
		if string(got) != string(b) {
			t.Fatalf("Value = %s, want %s", got, b)
		}
	})
}

// TestTextMatchesJSON checks that Text decodes every string encoding/json
// writes as encoding/json reads it back.
func TestTextMatchesJSON(t *testing.T) {
	var st Strings
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.String().Draw(t, "s")
		b, _ := json.Marshal(s)
		p := New(b)
		c, esc, ok := p.Str()
		if !ok {
			t.Fatalf("Str refused %s", b)
		}
		got, ok := st.Text(c, esc)
		if !ok || got != s {
			t.Fatalf("Text(%s) = %q, %v, want %q", b, got, ok, s)
		}
	})
}

// TestTake checks that Take hands out distinct zero values, SlabSize of
// them from each slab.
func TestTake(t *testing.T) {
	var slab []int
	seen := map[*int]bool{}
	for i := range 3 * SlabSize {
		p := Take(&slab)
		if *p != 0 || seen[p] {
			t.Fatalf("value %d: %d at a pointer seen before: %v", i, *p, seen[p])
		}
		*p = i + 1
		seen[p] = true
		if want := SlabSize - 1 - i%SlabSize; len(slab) != want {
			t.Fatalf("value %d: %d values left in the slab, want %d", i, len(slab), want)
		}
	}
}

// BenchmarkTake takes values one by one; a new slab is allocated once per
// SlabSize of them (allocs/op is 1/SlabSize).
func BenchmarkTake(b *testing.B) {
	var slab []int
	b.ReportAllocs()
	for b.Loop() {
		Take(&slab)
	}
}

// corpusSeeds returns up to perFile event payloads from each recorded
// chunk fixture (one SSE data payload per line) of the protocols whose
// fast paths use the scanner.
func corpusSeeds(f testing.TB, perFile int) [][]byte {
	var out [][]byte
	for _, proto := range []string{"openai-chat", "openai-responses", "gemini"} {
		names, err := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "corpus", proto, "*.chunks.txt"))
		if err != nil {
			f.Fatal(err)
		}
		for _, name := range names {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			sc := bufio.NewScanner(bytes.NewReader(b))
			sc.Buffer(nil, 1<<20)
			for n := 0; n < perFile && sc.Scan(); n++ {
				out = append(out, bytes.Clone(sc.Bytes()))
			}
			if err := sc.Err(); err != nil {
				f.Fatalf("%s: %v", name, err)
			}
		}
	}
	return out
}

// TestStringsUse: strings made after Use live in the storage given while
// it has room, and are the same strings as without it.
func TestStringsUse(t *testing.T) {
	var arena [16]byte
	var scratch [8]byte
	var st, plain Strings
	st.Use(arena[:], scratch[:])
	for _, in := range []string{`abc`, `d\ne`, `fghijklmnop`, `qrstuvwxyz`} {
		p, q := New([]byte(`"`+in+`"`)), New([]byte(`"`+in+`"`))
		c, esc, _ := p.Str()
		d, desc, _ := q.Str()
		got, ok := st.Text(c, esc)
		want, _ := plain.Text(d, desc)
		if !ok || got != want {
			t.Fatalf("Text(%q) = %q, %v after Use, want %q", in, got, ok, want)
		}
	}
	// The third string does not fit in what is left, so the arena moves
	// to a block of its own.
	if string(arena[:6]) != "abcd\ne" {
		t.Errorf("arena holds %q, want the first two strings", arena[:])
	}
}
