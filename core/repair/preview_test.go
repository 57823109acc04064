package repair

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPreview(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" means ok == false
	}{
		{`{"a":1}`, `{"a":1}`},
		{`{`, `{}`},
		{`[`, `[]`},
		{`{"ci`, `{}`},
		{`{"city"`, `{}`},
		{`{"city":`, `{}`},
		{`{"city": `, `{}`},
		{`{"city":"Par`, `{"city":"Par"}`},
		{`{"a":1,"b`, `{"a":1}`},
		{`{"a":1,`, `{"a":1}`},
		{`{"a":1, `, `{"a":1}`},
		{`{"a":1 `, `{"a":1}`},
		{`{"a":12`, `{"a":12}`},
		{`{"a":-`, `{}`},
		{`{"a":1.`, `{"a":1}`},
		{`{"a":1.5e+`, `{"a":1.5}`},
		{`{"a":tr`, `{"a":true}`},
		{`{"a":n`, `{"a":null}`},
		{`{"a":f`, `{"a":false}`},
		{`{"a":[1,2`, `{"a":[1,2]}`},
		{`{"a":[1,`, `{"a":[1]}`},
		{`{"a":[`, `{"a":[]}`},
		{`{"a":[{"b":"c`, `{"a":[{"b":"c"}]}`},
		{`{"a":{}`, `{"a":{}}`},
		{`[1,[2,[3`, `[1,[2,[3]]]`},
		{`["x\`, `["x"]`},
		{`["x\u00`, `["x"]`},
		{`["x\u00e9`, `["x\u00e9"]`},
		{`["x\n`, `["x\n"]`},
		{"[\"a\xc3", `["a"]`},
		{"[\"a\xe2\x82", `["a"]`},
		{"[\"a\xe2\x82\xac", "[\"a\xe2\x82\xac\"]"},
		{`"ab`, `"ab"`},
		{`12`, `12`},
		{`tru`, `true`},
		{` `, ""},
		{``, ""},
		{`{"a":1}x`, ""},
		{`{"a":1]`, ""},
		{`{a`, ""},
		{`{"a" 1`, ""},
		{`{"a":1 "b"`, ""},
		{`[1 2`, ""},
		{`{"a":x`, ""},
		{`{"a":trux`, ""},
		{`{"a":01}`, ""},
		{`{"a":1..`, ""},
		{`["\x`, ""},
		{`["\u12G4"]`, ""},
		{"[\"\x01", ""},
		{"{\"\x01\":1}", ""},
		{`{"a":1,}`, ""},
		{`[1,]`, ""},
		{`[]`, `[]`},
		{`{}`, `{}`},
		{`[1]`, `[1]`},
		{`{"a":"b"}`, `{"a":"b"}`},
		{`{"a":1}` + " ", `{"a":1}`},
		{`[-1e`, `[-1]`},
		{`-`, ""},
	}
	for _, tt := range tests {
		got, ok := Preview(tt.in)
		if tt.want == "" {
			if ok {
				t.Errorf("Preview(%q) = %s, true, want false", tt.in, got)
			}
			continue
		}
		if !ok {
			t.Errorf("Preview(%q) not ok, want %s", tt.in, tt.want)
			continue
		}
		if diff := cmp.Diff(tt.want, string(got)); diff != "" {
			t.Errorf("Preview(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestPreviewLimits(t *testing.T) {
	if _, ok := Preview(strings.Repeat("[", MaxDepth+1)); ok {
		t.Errorf("Preview of %d open brackets ok, want refused", MaxDepth+1)
	}
	if _, ok := Preview(strings.Repeat(`{"a":`, MaxDepth+1)); ok {
		t.Errorf("Preview of %d open objects ok, want refused", MaxDepth+1)
	}
	if _, ok := Preview(strings.Repeat("[", 2_090_000)); ok {
		t.Errorf("Preview of 2,090,000 open brackets ok, want refused")
	}
	deep := strings.Repeat("[", MaxDepth)
	if got, ok := Preview(deep); !ok || len(got) != 2*MaxDepth {
		t.Errorf("Preview of %d open brackets = %d bytes, %v, want closed", MaxDepth, len(got), ok)
	}
	if _, ok := Preview(`"` + strings.Repeat("a", MaxInputBytes)); ok {
		t.Errorf("Preview of more than MaxInputBytes ok, want refused")
	}
}

// TestPreviewEveryPrefix checks that every prefix of some real argument
// texts previews to valid JSON, and that the whole text previews to itself.
func TestPreviewEveryPrefix(t *testing.T) {
	docs := []string{
		`{"location":"San Francisco, CA","unit":"celsius"}`,
		`{"a":[1,-2.5e3,true,false,null,{"b":"\u00e9\n\"q\""}],"c":{}}`,
		"{\"text\":\"h\u00e9llo \u20ac \U0001F600\"}",
	}
	for _, doc := range docs {
		for n := 1; n <= len(doc); n++ {
			got, ok := Preview(doc[:n])
			if !ok {
				t.Errorf("Preview(%q) not ok", doc[:n])
			}
			if n == len(doc) && string(got) != doc {
				t.Errorf("Preview(whole %q) = %s", doc, got)
			}
		}
	}
}

func TestNumberPrefix(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"", "", true}, {"-", "", true}, {"0", "0", true}, {"-0", "-0", true},
		{"12", "12", true}, {"1.", "1", true}, {"1.5", "1.5", true},
		{"1.5e", "1.5", true}, {"1.5E-", "1.5", true}, {"1e+7", "1e+7", true},
		{"01", "0", false}, {"1..", "1", false}, {"1e5.", "1e5", false},
		{"--1", "", false}, {"1-", "1", false}, {"+1", "", false},
	}
	for _, tt := range tests {
		got, ok := numberPrefix(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("numberPrefix(%q) = %q, %v, want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
