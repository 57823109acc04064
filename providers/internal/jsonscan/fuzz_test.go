package jsonscan

import (
	"encoding/json"
	"testing"
)

// FuzzScanner checks the scanner against encoding/json on any input: a
// value Skip accepts is valid JSON, Value returns exactly the bytes Skip
// consumed, and a string Text decodes is the string encoding/json reads.
// Nothing may panic. The seeds are event payloads of the recorded chunk
// fixtures and known-bad inputs.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{
		`{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"delta":"Hi"}`,
		`{"candidates":[{"content":{"parts":[{"text":"a\u00e9"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":3}}`,
		`{"id":"c1","object":"chat.completion.chunk","created":1,"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\""}}]}}]}`,
		`"\ud83d"`, "\"\xff\"", `[1,]`, `{"a":1,}`, `-0.5e+10`, `01`, `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
	} {
		f.Add([]byte(s))
	}
	seeds := corpusSeeds(f, 6)
	if len(seeds) < 20 {
		f.Fatalf("%d seeds from the recorded chunk fixtures, want at least 20", len(seeds))
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		p := New(in)
		if p.Skip() && p.End() && !json.Valid(in) {
			t.Fatalf("Skip accepted invalid JSON %q", in)
		}
		p = New(in)
		start := p.Pos()
		if v, ok := p.Value(); ok {
			if !json.Valid(v) {
				t.Fatalf("Value returned invalid JSON %q", v)
			}
			if end := p.Pos(); len(v) > end-start {
				t.Fatalf("Value returned %d bytes of %d consumed", len(v), end-start)
			}
		}
		p = New(in)
		if c, esc, ok := p.Str(); ok {
			var st Strings
			if got, ok := st.Text(c, esc); ok {
				var want string
				if err := json.Unmarshal(in[:p.Pos()], &want); err != nil {
					t.Fatalf("Text accepted %q, encoding/json refuses it: %v", in[:p.Pos()], err)
				}
				if got != want {
					t.Fatalf("Text(%q) = %q, encoding/json reads %q", in[:p.Pos()], got, want)
				}
			}
		}
		p = New(in)
		keys := []string{"a", "type"}
		p.Object(keys, keys, func(int) bool { return p.Skip() })
	})
}
