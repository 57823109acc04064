package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/tools/schema"
)

type weatherIn struct {
	City string `json:"city" jsonschema:"the city name"`
	Unit string `json:"unit,omitempty" enum:"c,f"`
}

type weatherOut struct {
	TempC float64 `json:"temp_c"`
}

func getWeather(_ context.Context, in weatherIn) (weatherOut, error) {
	if in.City == "" {
		return weatherOut{}, errors.New("no city")
	}
	return weatherOut{TempC: 21.5}, nil
}

// mustTool returns a function that fails t on a construction error:
// mustTool(t)(NewTool(...)).
func mustTool(t testing.TB) func(*Tool, error) *Tool {
	return func(tool *Tool, err error) *Tool {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return tool
	}
}

func nopHandler(context.Context, json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(`{}`), nil
}

func TestNewTool(t *testing.T) {
	tool := mustTool(t)(NewTool("get_weather", "Current weather.", getWeather))
	want := core.ToolSpec{
		Name:        "get_weather",
		Description: "Current weather.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string","description":"the city name"},"unit":{"type":"string","enum":["c","f"]}},"required":["city"],"additionalProperties":false}`),
	}
	if diff := cmp.Diff(want, tool.Spec()); diff != "" {
		t.Errorf("Spec mismatch (-want +got):\n%s", diff)
	}
	if got, want := string(tool.OutputSchema()), `{"type":"object","properties":{"temp_c":{"type":"number"}},"required":["temp_c"],"additionalProperties":false}`; got != want {
		t.Errorf("OutputSchema = %s\nwant %s", got, want)
	}
	if tool.Risk() != RiskDestructive {
		t.Errorf("default Risk = %v, want destructive", tool.Risk())
	}
	if !strings.Contains(tool.Origin(), "tools.getWeather") {
		t.Errorf("Origin = %q, want the Go function name", tool.Origin())
	}
	if tool.Name() != "get_weather" || tool.OriginalName() != "get_weather" || tool.Description() != "Current weather." {
		t.Errorf("accessors = %q %q %q", tool.Name(), tool.OriginalName(), tool.Description())
	}

	// Scalar output: no output schema.
	s := mustTool(t)(NewTool("echo", "", func(_ context.Context, in weatherIn) (string, error) { return in.City, nil }, WithRisk(RiskReadOnly)))
	if s.OutputSchema() != nil || s.Risk() != RiskReadOnly {
		t.Errorf("echo: OutputSchema = %s, Risk = %v", s.OutputSchema(), s.Risk())
	}
}

func TestToolAccessorsCopy(t *testing.T) {
	tool := mustTool(t)(NewTool("get_weather", "", getWeather))
	before := string(tool.InputSchema())
	tool.InputSchema()[0] = 'X'
	tool.Spec().InputSchema[0] = 'X'
	tool.OutputSchema()[0] = 'X'
	if got := string(tool.InputSchema()); got != before {
		t.Errorf("InputSchema changed through a returned copy: %s", got)
	}
	if tool.OutputSchema()[0] != '{' {
		t.Errorf("OutputSchema changed through a returned copy")
	}
}

type withCallback struct {
	Filters struct {
		Callback func() `json:"callback"`
	} `json:"filters"`
}

type outChan struct{ C chan int }

func TestNewToolRejects(t *testing.T) {
	tests := []struct {
		name    string
		build   func() (*Tool, error)
		is      error
		wantErr string
	}{
		{"func field", func() (*Tool, error) {
			return NewTool("t", "", func(context.Context, withCallback) (string, error) { return "", nil })
		}, ErrUnsupportedType, `new tool "t": infer schema: In.Filters.Callback (func()): a function cannot be sent as JSON`},
		{"non-struct input", func() (*Tool, error) {
			return NewTool("t", "", func(context.Context, string) (string, error) { return "", nil })
		}, ErrUnsupportedType, `In (string): a tool's input must be a struct; declare a struct`},
		{"map input", func() (*Tool, error) {
			return NewTool("t", "", func(context.Context, map[string]any) (string, error) { return "", nil })
		}, ErrUnsupportedType, `In (map[string]interface {}): a tool's input must be a struct`},
		{"chan in output", func() (*Tool, error) {
			return NewTool("t", "", func(context.Context, weatherIn) (outChan, error) { return outChan{}, nil })
		}, ErrUnsupportedType, `Out.C (chan int): a channel cannot be sent as JSON`},
		{"nil function", func() (*Tool, error) {
			return NewTool[weatherIn, string]("t", "", nil)
		}, nil, `new tool "t": nil function`},
		{"invalid name", func() (*Tool, error) {
			return NewTool("get.weather", "", getWeather)
		}, core.ErrInvalidName, `new tool: check tool name "get.weather": character '.' at byte 3 not allowed`},
		{"long name", func() (*Tool, error) {
			return NewTool(strings.Repeat("x", 65), "", getWeather)
		}, core.ErrInvalidName, `65 bytes long`},
		{"bad risk", func() (*Tool, error) {
			return NewTool("t", "", getWeather, WithRisk(Risk(9)))
		}, nil, `new tool "t": unknown risk level 9`},
		{"bad output schema option", func() (*Tool, error) {
			return NewTool("t", "", getWeather, WithOutputSchema(json.RawMessage(`{"type":"array"}`)))
		}, ErrInvalidSchema, `new tool "t": output schema: compile schema: at /type: "array"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, err := tt.build()
			if err == nil {
				t.Fatalf("got tool %q, want error", tool.Name())
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v\nwant it to contain %s", err, tt.wantErr)
			}
		})
	}
}

func TestNameMapperOption(t *testing.T) {
	m := NewNameMapper()
	tool := mustTool(t)(NewTool("github.list_prs", "", getWeather, WithNameMapper(m)))
	if tool.Name() != "github_list_prs" || tool.OriginalName() != "github.list_prs" {
		t.Errorf("Name, OriginalName = %q, %q", tool.Name(), tool.OriginalName())
	}
	if o, ok := m.Original(tool.Name()); !ok || o != "github.list_prs" {
		t.Errorf("mapper Original = %q, %v", o, ok)
	}
	// A valid name goes through the mapper too: it keeps its name and
	// holds it, so a later name that sanitises to the same text gets
	// another (E01). (It used to bypass the mapper, and "ok.name" then
	// became a second "ok_name".)
	v := mustTool(t)(NewTool("ok_name", "", getWeather, WithNameMapper(m), nil))
	if o, ok := m.Original("ok_name"); !ok || o != "ok_name" || v.Name() != "ok_name" || v.OriginalName() != "ok_name" {
		t.Errorf("valid name: Name %q, OriginalName %q, mapper Original = %q, %v; want ok_name kept and held", v.Name(), v.OriginalName(), o, ok)
	}
	d := mustTool(t)(NewTool("ok.name", "", getWeather, WithNameMapper(m)))
	if want := "ok_name_" + hashSuffix("ok.name"); d.Name() != want {
		t.Errorf("ok.name after ok_name: Name = %q, want %q", d.Name(), want)
	}
	r := NewRegistry()
	for _, tool := range []*Tool{tool, v, d} {
		if err := r.Add(tool); err != nil {
			t.Errorf("Registry.Add(%q): %v", tool.Name(), err)
		}
	}
	// A valid name that an earlier sanitised name already holds is the one
	// case where a valid name changes.
	late := mustTool(t)(NewTool("github_list_prs", "", getWeather, WithNameMapper(m)))
	if want := "github_list_prs_" + hashSuffix("github_list_prs"); late.Name() != want || late.OriginalName() != "github_list_prs" {
		t.Errorf("github_list_prs after github.list_prs: Name, OriginalName = %q, %q; want %q", late.Name(), late.OriginalName(), want)
	}
	if err := r.Add(late); err != nil {
		t.Errorf("Registry.Add(%q): %v", late.Name(), err)
	}
	// Without a mapper a valid name is kept and an invalid one refused.
	if plain := mustTool(t)(NewTool("ok_name", "", getWeather)); plain.Name() != "ok_name" {
		t.Errorf("without a mapper: Name = %q", plain.Name())
	}
	if _, err := NewTool("ok.name", "", getWeather); !errors.Is(err, core.ErrInvalidName) {
		t.Errorf("without a mapper: NewTool(ok.name) error = %v, want ErrInvalidName", err)
	}
}

func TestNewRawTool(t *testing.T) {
	tool := mustTool(t)(NewRawTool("raw", "d", json.RawMessage("{ \"type\" : \"object\" }"), nopHandler, WithOrigin("plugin x")))
	if got := string(tool.InputSchema()); got != `{"type":"object"}` {
		t.Errorf("InputSchema = %s, want it compacted", got)
	}
	if tool.Origin() != "plugin x" {
		t.Errorf("Origin = %q", tool.Origin())
	}
	tests := []struct {
		name    string
		schema  string
		handler Handler
		wantErr string
	}{
		{"not json", `{"type":`, nopHandler, `new raw tool "r": input schema: compile schema: at byte 8: unexpected end of JSON input`},
		{"not an object", `[]`, nopHandler, `compile schema: at the top level: a tool schema must be a JSON object, not []`},
		{"type string", `{"type":"string"}`, nopHandler, `compile schema: at /type: "string"; a tool schema must have "type": "object"`},
		{"no type", `{"properties":{}}`, nopHandler, `at /type: missing`},
		{"bad nested", `{"type":"object","properties":{"n":{"minimum":"x"}}}`, nopHandler, `at /properties/n/minimum: not valid against the metaschema: got string, want number`},
		{"nil handler", `{"type":"object"}`, nil, `new raw tool "r": nil handler`},
		{"too large", `{"type":"object","description":"` + strings.Repeat("x", MaxSchemaBytes) + `"}`, nopHandler, `new raw tool "r": input schema: schema too large: 1048610 bytes, limit 1048576`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewRawTool("r", "", json.RawMessage(tt.schema), tt.handler)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v\nwant it to contain %s", err, tt.wantErr)
			}
			if tt.handler != nil && !errors.Is(err, ErrInvalidSchema) && !errors.Is(err, ErrSchemaTooLarge) {
				t.Errorf("error %v does not wrap ErrInvalidSchema", err)
			}
		})
	}
}

func TestFromMCP(t *testing.T) {
	m := NewNameMapper()
	tests := []struct {
		name     string
		def      string
		opts     []ToolOption
		wantName string
		wantRisk Risk
		wantOut  bool
	}{
		{"no annotations", `{"name":"search","description":"d","inputSchema":{"type":"object"}}`, nil, "search", RiskDestructive, false},
		{"read only", `{"name":"search","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true,"destructiveHint":true}}`, nil, "search", RiskReadOnly, false},
		{"additive", `{"name":"search","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false,"destructiveHint":false}}`, nil, "search", RiskSideEffects, false},
		{"destructive explicit", `{"name":"search","inputSchema":{"type":"object"},"annotations":{"destructiveHint":true}}`, nil, "search", RiskDestructive, false},
		{"option overrides", `{"name":"search","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`, []ToolOption{WithRisk(RiskDestructive)}, "search", RiskDestructive, false},
		{"output schema and extra fields", `{"name":"search","title":"T","_meta":{},"inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}`, nil, "search", RiskDestructive, true},
		{"null output schema", `{"name":"search","inputSchema":{"type":"object"},"outputSchema":null}`, nil, "search", RiskDestructive, false},
		{"dotted name mapped", `{"name":"fs.read file","inputSchema":{"type":"object"}}`, []ToolOption{WithNameMapper(m)}, "fs_read_file", RiskDestructive, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, err := FromMCP(json.RawMessage(tt.def), nopHandler, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			got := struct {
				Name   string
				Risk   Risk
				HasOut bool
			}{tool.Name(), tool.Risk(), tool.OutputSchema() != nil}
			want := struct {
				Name   string
				Risk   Risk
				HasOut bool
			}{tt.wantName, tt.wantRisk, tt.wantOut}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
			if tool.Origin() != "MCP tool definition" {
				t.Errorf("Origin = %q", tool.Origin())
			}
		})
	}
}

func TestFromMCPRejects(t *testing.T) {
	tests := []struct {
		name    string
		def     string
		is      error
		wantErr string
	}{
		{"not json", `{"name":"x",`, ErrInvalidDefinition, `tool from mcp: at byte 12: invalid tool definition`},
		{"name not a string", `{"name":5,"inputSchema":{"type":"object"}}`, ErrInvalidDefinition, `tool from mcp: at /name: invalid tool definition: number is not a string`},
		{"hint not a bool", `{"name":"x","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":"yes"}}`, ErrInvalidDefinition, `at /annotations/readOnlyHint: invalid tool definition: string is not a bool`},
		{"array", `[]`, ErrInvalidDefinition, `tool from mcp: at the top level: invalid tool definition: array is not a tools.mcpDefinition`},
		{"missing name", `{"inputSchema":{"type":"object"}}`, ErrInvalidDefinition, `tool from mcp: at /name: invalid tool definition: missing`},
		{"missing input schema", `{"name":"x"}`, ErrInvalidDefinition, `tool from mcp "x": at /inputSchema: invalid tool definition: missing`},
		{"null input schema", `{"name":"x","inputSchema":null}`, ErrInvalidDefinition, `at /inputSchema: invalid tool definition: missing`},
		{"input not object", `{"name":"x","inputSchema":{"type":"string"}}`, ErrInvalidSchema, `tool from mcp "x": input schema: compile schema: at /inputSchema/type: "string"; a tool schema must have "type": "object"`},
		{"input nested fault", `{"name":"x","inputSchema":{"type":"object","properties":{"a":{"type":"strin"}}}}`, ErrInvalidSchema, `at /inputSchema/properties/a/type: not valid against the metaschema`},
		{"output not object", `{"name":"x","inputSchema":{"type":"object"},"outputSchema":{"type":"array"}}`, ErrInvalidSchema, `tool from mcp "x": output schema: compile schema: at /outputSchema/type`},
		{"dotted name without mapper", `{"name":"a.b","inputSchema":{"type":"object"}}`, core.ErrInvalidName, `tool from mcp: check tool name "a.b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromMCP(json.RawMessage(tt.def), nopHandler)
			if err == nil || !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v\nwant it to wrap %v and contain %s", err, tt.is, tt.wantErr)
			}
		})
	}
	var se *schema.SchemaError
	_, err := FromMCP(json.RawMessage(`{"name":"x","inputSchema":{"type":"object","properties":{"a":{"type":"strin"}}}}`), nopHandler)
	if !errors.As(err, &se) || se.Path != "/inputSchema/properties/a/type" {
		t.Errorf("SchemaError = %+v, want path /inputSchema/properties/a/type", se)
	}
}

func TestRiskString(t *testing.T) {
	got := []string{RiskReadOnly.String(), RiskSideEffects.String(), RiskDestructive.String(), Risk(0).String()}
	want := []string{"read-only", "side-effects", "destructive", "Risk(0)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// FuzzFromMCP checks that any definition either builds a tool whose schema
// is a compact JSON object with "type": "object" and whose name is valid, or
// fails with an error that wraps one of the named causes.
func FuzzFromMCP(f *testing.F) {
	for _, s := range []string{
		`{"name":"search","inputSchema":{"type":"object"}}`,
		`{"name":"fs.read","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]},"annotations":{"readOnlyHint":true}}`,
		`{"name":"x","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}`,
		`{"name":"x","inputSchema":{"type":"string"}}`, `{"name":"x"}`, `{}`, `[]`, `null`, `{"name":`,
		`{"name":"x","inputSchema":{"type":"object","properties":{"a":{"$ref":"#/nope"}}}}`,
		`{"name":"` + strings.Repeat("n", 70) + `","inputSchema":{"type":"object"}}`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, def []byte, mapped bool) {
		var opts []ToolOption
		if mapped {
			opts = append(opts, WithNameMapper(NewNameMapper()))
		}
		tool, err := FromMCP(def, nopHandler, opts...)
		if err != nil {
			if !errors.Is(err, ErrInvalidDefinition) && !errors.Is(err, ErrInvalidSchema) &&
				!errors.Is(err, core.ErrInvalidName) && !errors.Is(err, ErrSchemaTooLarge) {
				t.Fatalf("FromMCP error %v wraps no named cause", err)
			}
			return
		}
		if err := core.CommonNameRules.Check(tool.Name()); err != nil {
			t.Fatalf("tool name: %v", err)
		}
		var s map[string]any
		if err := json.Unmarshal(tool.Spec().InputSchema, &s); err != nil || s["type"] != "object" {
			t.Fatalf("input schema %s is not an object schema", tool.Spec().InputSchema)
		}
		if v := tool.Validate(json.RawMessage(`{}`)); v.Err != nil && v.Valid {
			t.Fatalf("Validate: valid with an error")
		}
	})
}
