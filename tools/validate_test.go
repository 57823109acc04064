package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolconform/conform/tools/schema"
	"pgregory.net/rapid"
)

type noArgs struct{}

type searchIn struct {
	Query  string         `json:"query"`
	Filter map[string]int `json:"filter,omitempty"`
	Tags   []string       `json:"tags,omitempty"`
	Limit  int            `json:"limit,omitempty"`
}

func testRegistry(t testing.TB) *Registry {
	t.Helper()
	r := NewRegistry()
	add := func(tool *Tool, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	add(NewTool("get_weather", "Current weather.", getWeather))
	add(NewTool("get_time", "Current time.", func(context.Context, noArgs) (string, error) { return "noon", nil }))
	add(NewTool("search", "Search.", func(_ context.Context, in searchIn) (searchIn, error) { return in, nil }))
	return r
}

func TestValidate(t *testing.T) {
	r := testRegistry(t)
	tests := []struct {
		name string
		call core.Call
		want Validation
		is   error
	}{
		{"valid, compacted", core.Call{Name: "get_weather", Arguments: json.RawMessage(" { \"city\" : \"Paris\" } ")},
			Validation{Valid: true, Arguments: json.RawMessage(`{"city":"Paris"}`)}, nil},
		{"C01 empty string, no-parameter tool", core.Call{Name: "get_time", Arguments: json.RawMessage(``)},
			Validation{Valid: true, Arguments: json.RawMessage(`{}`)}, nil},
		{"C01 JSON empty string", core.Call{Name: "get_time", Arguments: json.RawMessage(`""`)},
			Validation{Valid: true, Arguments: json.RawMessage(`{}`)}, nil},
		{"C06 null", core.Call{Name: "get_time", Arguments: json.RawMessage(`null`)},
			Validation{Valid: true, Arguments: json.RawMessage(`{}`)}, nil},
		{"whitespace", core.Call{Name: "get_time", Arguments: json.RawMessage(" \n\t")},
			Validation{Valid: true, Arguments: json.RawMessage(`{}`)}, nil},
		{"empty object", core.Call{Name: "get_time", Arguments: json.RawMessage(`{}`)},
			Validation{Valid: true, Arguments: json.RawMessage(`{}`)}, nil},
		{"no-parameter tool given a parameter", core.Call{Name: "get_time", Arguments: json.RawMessage(`{"tz":"UTC"}`)},
			Validation{
				Message:   `arguments do not match the schema of "get_time": /tz: unknown property, not allowed`,
				Problems:  []schema.Problem{{Path: "/tz", Message: "unknown property, not allowed"}},
				Arguments: json.RawMessage(`{"tz":"UTC"}`),
			}, ErrSchemaMismatch},
		{"empty arguments, required parameter", core.Call{Name: "get_weather", Arguments: json.RawMessage(``)},
			Validation{
				Message:   `arguments do not match the schema of "get_weather": /city: missing`,
				Problems:  []schema.Problem{{Path: "/city", Message: "missing"}},
				Arguments: json.RawMessage(`{}`),
			}, ErrSchemaMismatch},
		{"every problem in one message", core.Call{Name: "get_weather", Arguments: json.RawMessage(`{"unit":"k","extra":true}`)},
			Validation{
				Message:   `arguments do not match the schema of "get_weather": /city: missing; /extra: unknown property, not allowed; /unit: value must be one of "c", "f"`,
				Problems:  []schema.Problem{{Path: "/city", Message: "missing"}, {Path: "/extra", Message: "unknown property, not allowed"}, {Path: "/unit", Message: `value must be one of "c", "f"`}},
				Arguments: json.RawMessage(`{"unit":"k","extra":true}`),
			}, ErrSchemaMismatch},
		{"C07 number for string", core.Call{Name: "get_weather", Arguments: json.RawMessage(`{"city":42}`)},
			Validation{
				Message:   `arguments do not match the schema of "get_weather": /city: got number, want string`,
				Problems:  []schema.Problem{{Path: "/city", Message: "got number, want string"}},
				Arguments: json.RawMessage(`{"city":42}`),
			}, ErrSchemaMismatch},
		{"array at the top", core.Call{Name: "get_weather", Arguments: json.RawMessage(`["Paris"]`)},
			Validation{
				Message:   `arguments do not match the schema of "get_weather": got array, want object`,
				Problems:  []schema.Problem{{Path: "", Message: "got array, want object"}},
				Arguments: json.RawMessage(`["Paris"]`),
			}, ErrSchemaMismatch},
		{"truncated JSON", core.Call{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Par`)},
			Validation{
				Message:   `arguments of "get_weather" are not valid JSON: at byte 12: unexpected end of JSON input`,
				Problems:  []schema.Problem{{Path: "", Message: `arguments of "get_weather" are not valid JSON: at byte 12: unexpected end of JSON input`}},
				Arguments: json.RawMessage(`{"city":"Par`),
			}, ErrMalformedArguments},
		{"trailing data", core.Call{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}{"city":"Rome"}`)},
			Validation{
				Message:   `arguments of "get_weather" are not valid JSON: at byte 16: invalid character '{' after top-level value`,
				Problems:  []schema.Problem{{Path: "", Message: `arguments of "get_weather" are not valid JSON: at byte 16: invalid character '{' after top-level value`}},
				Arguments: json.RawMessage(`{"city":"Paris"}{"city":"Rome"}`),
			}, ErrMalformedArguments},
		{"C05 double-encoded object", core.Call{Name: "get_weather", Arguments: json.RawMessage(`"{\"city\":\"Paris\"}"`)},
			Validation{
				Message:   `arguments of "get_weather" are a string holding an object encoded as JSON, not an object; send the object itself`,
				Problems:  []schema.Problem{{Path: "", Message: `arguments of "get_weather" are a string holding an object encoded as JSON, not an object; send the object itself`}},
				Arguments: json.RawMessage(`"{\"city\":\"Paris\"}"`),
			}, ErrSchemaMismatch},
		{"C05 double-encoded array", core.Call{Name: "get_weather", Arguments: json.RawMessage(`" [1] "`)},
			Validation{
				Message:   `arguments of "get_weather" are a string holding an array encoded as JSON, not an object; send the object itself`,
				Problems:  []schema.Problem{{Path: "", Message: `arguments of "get_weather" are a string holding an array encoded as JSON, not an object; send the object itself`}},
				Arguments: json.RawMessage(`" [1] "`),
			}, ErrSchemaMismatch},
		{"plain string", core.Call{Name: "get_weather", Arguments: json.RawMessage(`"Paris"`)},
			Validation{
				Message:   `arguments do not match the schema of "get_weather": got string, want object`,
				Problems:  []schema.Problem{{Path: "", Message: "got string, want object"}},
				Arguments: json.RawMessage(`"Paris"`),
			}, ErrSchemaMismatch},
		{"C05 nested parameters", core.Call{Name: "search", Arguments: json.RawMessage(`{"query":"q","filter":"{\"a\":1}","tags":"[\"x\"]"}`)},
			Validation{
				Message: `arguments do not match the schema of "search": /filter: got string, want object (it is JSON encoded as a string; send the value itself); /tags: got string, want null or array (it is JSON encoded as a string; send the value itself)`,
				Problems: []schema.Problem{
					{Path: "/filter", Message: "got string, want object (it is JSON encoded as a string; send the value itself)"},
					{Path: "/tags", Message: "got string, want null or array (it is JSON encoded as a string; send the value itself)"},
				},
				Arguments: json.RawMessage(`{"query":"q","filter":"{\"a\":1}","tags":"[\"x\"]"}`),
			}, ErrSchemaMismatch},
		{"string that is not encoded JSON", core.Call{Name: "search", Arguments: json.RawMessage(`{"query":"q","filter":"{a"}`)},
			Validation{
				Message:   `arguments do not match the schema of "search": /filter: got string, want object`,
				Problems:  []schema.Problem{{Path: "/filter", Message: "got string, want object"}},
				Arguments: json.RawMessage(`{"query":"q","filter":"{a"}`),
			}, ErrSchemaMismatch},
		{"E04 unknown tool", core.Call{Name: "get_wether", Arguments: json.RawMessage(`{ }`)},
			Validation{
				Message:   `unknown tool "get_wether"; did you mean "get_weather"?; available tools: get_time, get_weather, search`,
				Arguments: json.RawMessage(`{}`),
			}, ErrUnknownTool},
		{"E04 hallucinated tool", core.Call{Name: "multi_tool_use.parallel"},
			Validation{
				Message:   `unknown tool "multi_tool_use.parallel"; available tools: get_time, get_weather, search`,
				Arguments: json.RawMessage(`{}`),
			}, ErrUnknownTool},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := r.Validate(tt.call)
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Validation{}, "Err")); diff != "" {
				t.Errorf("Validate mismatch (-want +got):\n%s", diff)
			}
			switch {
			case tt.is == nil && got.Err != nil:
				t.Errorf("Err = %v, want nil", got.Err)
			case tt.is != nil && !errors.Is(got.Err, tt.is):
				t.Errorf("Err = %v, want it to wrap %v", got.Err, tt.is)
			}
		})
	}
}

func TestValidateMalformedOffset(t *testing.T) {
	tool, _ := testRegistry(t).Lookup("get_weather")
	v := tool.Validate(json.RawMessage(`{"city" "x"}`))
	var ae *ArgumentsError
	if !errors.As(v.Err, &ae) || ae.Offset != 8 {
		t.Errorf("Err = %v, want an *ArgumentsError at byte 8", v.Err)
	}
}

func TestValidateTooLarge(t *testing.T) {
	tool, _ := testRegistry(t).Lookup("search")
	big := []byte(`{"query":"` + strings.Repeat("x", core.DefaultMaxArgBytes) + `"}`)
	v := tool.Validate(big)
	if v.Valid || !errors.Is(v.Err, core.ErrArgumentsTooLarge) {
		t.Fatalf("Valid = %v, Err = %v; want invalid with ErrArgumentsTooLarge", v.Valid, v.Err)
	}
	want := fmt.Sprintf(`arguments of "search" are %d bytes, more than the limit of %d`, len(big), core.DefaultMaxArgBytes)
	if v.Message != want {
		t.Errorf("Message = %s\nwant      %s", v.Message, want)
	}
	big[0] = 'X'
	if v.Arguments[0] != '{' {
		t.Errorf("Arguments shares memory with the input")
	}
}

func TestValidateTooDeep(t *testing.T) {
	tool, _ := testRegistry(t).Lookup("search")
	for _, depth := range []int{core.MaxDepth, 100_000} {
		args := []byte(`{"query":"x","extra":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + "}")
		v := tool.Validate(args)
		if v.Valid || !errors.Is(v.Err, core.ErrTooDeep) {
			t.Fatalf("depth %d: Valid = %v, Err = %v; want invalid with ErrTooDeep", depth, v.Valid, v.Err)
		}
		want := fmt.Sprintf(`arguments of "search" are nested more than %d levels deep (at byte %d)`, core.MaxDepth, 21+core.MaxDepth-1)
		if v.Message != want {
			t.Errorf("depth %d: Message = %s\nwant      %s", depth, v.Message, want)
		}
	}
	ok := []byte(`{"query":"x","extra":` + strings.Repeat("[", core.MaxDepth-1) + strings.Repeat("]", core.MaxDepth-1) + "}")
	if v := tool.Validate(ok); errors.Is(v.Err, core.ErrTooDeep) {
		t.Errorf("arguments %d levels deep: %v, want no depth error", core.MaxDepth, v.Err)
	}
}

func TestValueAtPointer(t *testing.T) {
	var doc any
	if err := json.Unmarshal([]byte(`{"a/b":{"c~d":[1,{"e":2}]}}`), &doc); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ptr  string
		want any
		ok   bool
	}{
		{"", doc, true},
		{"/a~1b/c~0d/1/e", 2.0, true},
		{"/a~1b/c~0d/5", nil, false},
		{"/a~1b/c~0d/x", nil, false},
		{"/missing", nil, false},
		{"/a~1b/c~0d/0/deeper", nil, false},
	}
	for _, tt := range tests {
		got, ok := valueAtPointer(doc, tt.ptr)
		if ok != tt.ok || !cmp.Equal(got, tt.want) {
			t.Errorf("valueAtPointer(%q) = %v, %v; want %v, %v", tt.ptr, got, ok, tt.want, tt.ok)
		}
	}
}

// corpusArguments returns argument strings found in the recorded traffic
// under testdata/corpus, for fuzz seeds.
func corpusArguments(tb testing.TB, max int) []string {
	tb.Helper()
	re := regexp.MustCompile(`"arguments"\s*:\s*("(?:[^"\\]|\\.)*")`)
	seen := map[string]bool{}
	var out []string
	root := filepath.Join("..", "testdata", "corpus")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || len(out) >= max {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllSubmatch(data, -1) {
			var s string
			if json.Unmarshal(m[1], &s) != nil || seen[s] {
				continue
			}
			seen[s] = true
			out = append(out, s)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func TestCorpusArgumentsFound(t *testing.T) {
	// The fuzz seeds must really come from the recordings.
	if n := len(corpusArguments(t, 1000)); n < 10 {
		t.Errorf("found %d argument strings in the corpus, want at least 10", n)
	}
}

// FuzzValidate checks that Validate never panics, that valid arguments are
// a compact JSON object, that invalid ones always carry a message and an
// error, and that text which is not JSON is never valid.
func FuzzValidate(f *testing.F) {
	for _, s := range corpusArguments(f, 200) {
		f.Add("search", []byte(s))
		f.Add("get_weather", []byte(s))
	}
	for _, s := range []string{``, `""`, `null`, `{}`, `{"city":`, `{"city":"Paris"}{}`, `"{\"city\":\"x\"}"`,
		`{"city":"\ud800"}`, `{"query":"q","filter":"{\"a\":1}"}`, "{\"city\":\"\xff\"}", `[[[[[[[[[[`, `{"a":1e999}`} {
		f.Add("get_weather", []byte(s))
		f.Add("get_time", []byte(s))
	}
	r := testRegistry(f)
	f.Fuzz(func(t *testing.T, name string, args []byte) {
		v := r.Validate(core.Call{Name: name, Arguments: args})
		if v.Valid {
			if v.Err != nil || v.Message != "" || len(v.Problems) != 0 {
				t.Fatalf("valid with Err %v, Message %q, Problems %v", v.Err, v.Message, v.Problems)
			}
			var obj map[string]any
			if err := json.Unmarshal(v.Arguments, &obj); err != nil {
				t.Fatalf("valid Arguments %q are not a JSON object: %v", v.Arguments, err)
			}
			var b bytes.Buffer
			if err := json.Compact(&b, v.Arguments); err != nil || !bytes.Equal(b.Bytes(), v.Arguments) {
				t.Fatalf("valid Arguments %q are not compact", v.Arguments)
			}
			return
		}
		if v.Message == "" || v.Err == nil {
			t.Fatalf("invalid without a message or error: %+v", v)
		}
		trimmed := strings.TrimSpace(string(args))
		if trimmed != "" && trimmed != "null" && trimmed != `""` && !json.Valid(args) && v.Valid {
			t.Fatalf("arguments %q are not JSON but valid", args)
		}
	})
}

// TestValidateProperty checks, for generated arguments of get_weather, that
// every value the Go type can hold validates, that its normalised form is
// stable, and that a unit outside the enumeration is reported at /unit and
// nowhere else.
func TestValidateProperty(t *testing.T) {
	tool, _ := testRegistry(t).Lookup("get_weather")
	rapid.Check(t, func(t *rapid.T) {
		in := weatherIn{
			City: rapid.String().Draw(t, "city"),
			Unit: rapid.SampledFrom([]string{"", "c", "f"}).Draw(t, "unit"),
		}
		args, err := json.MarshalIndent(in, "", rapid.SampledFrom([]string{"", " ", "\t"}).Draw(t, "indent"))
		if err != nil {
			t.Fatal(err)
		}
		v := tool.Validate(args)
		if !v.Valid {
			t.Fatalf("Validate(%s) = %s", args, v.Message)
		}
		if again := tool.Validate(v.Arguments); !again.Valid || !bytes.Equal(again.Arguments, v.Arguments) {
			t.Fatalf("normalising %s twice gave %s", v.Arguments, again.Arguments)
		}
		var back weatherIn
		if err := json.Unmarshal(v.Arguments, &back); err != nil || back != in {
			t.Fatalf("normalised %s decodes to %+v, want %+v", v.Arguments, back, in)
		}
		bad := rapid.StringMatching(`[a-z]{1,3}`).Filter(func(s string) bool { return s != "c" && s != "f" }).Draw(t, "bad")
		in.Unit = bad
		args, _ = json.Marshal(in)
		v = tool.Validate(args)
		want := []schema.Problem{{Path: "/unit", Message: `value must be one of "c", "f"`}}
		if v.Valid || !cmp.Equal(want, v.Problems) {
			t.Fatalf("Validate(%s) problems = %v, want %v", args, v.Problems, want)
		}
	})
}

func TestValidateManyProblems(t *testing.T) {
	tool, _ := testRegistry(t).Lookup("search")
	tags := make([]int, 25)
	args, _ := json.Marshal(map[string]any{"query": "q", "tags": tags})
	v := tool.Validate(args)
	if len(v.Problems) != 25 {
		t.Fatalf("Problems = %d, want all 25", len(v.Problems))
	}
	if !strings.HasSuffix(v.Message, "/tags/19: got number, want string; and 5 more problems") {
		t.Errorf("Message = %s\nwant 20 problems and a count of the rest", v.Message)
	}
	if strings.Count(v.Message, "got number") != 20 {
		t.Errorf("Message lists %d problems, want 20", strings.Count(v.Message, "got number"))
	}
}

func BenchmarkValidate(b *testing.B) {
	r := testRegistry(b)
	for _, bc := range []struct{ name, args string }{
		{"valid", `{"city":"Paris","unit":"c"}`},
		{"invalid", `{"unit":"k","extra":1}`},
		{"malformed", `{"city":"Par`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			call := core.Call{Name: "get_weather", Arguments: json.RawMessage(bc.args)}
			b.ReportAllocs()
			for b.Loop() {
				r.Validate(call)
			}
		})
	}
}
