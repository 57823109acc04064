package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

type weather struct {
	City  string   `json:"city" jsonschema:"the city name"`
	Unit  string   `json:"unit,omitempty" enum:"c,f"`
	Days  []int    `json:"days,omitempty" enum:"1,2,3"`
	Tags  []string `json:"tags,omitempty"`
	Extra *float64 `json:"extra,omitempty" enum:"0.5,1.5"`
	Live  bool     `json:"live" enum:"true"`
	Level uint8    `json:"level,omitempty" enum:"1,2"`
}

type base struct {
	ID string `json:"id" jsonschema:"the record id"`
}

type withEmbed struct {
	base
	Name    string            `json:"name"`
	Skip    string            `json:"-"`
	hidden  string            //nolint:unused // unexported fields are ignored
	When    time.Time         `json:"when"`
	Raw     json.RawMessage   `json:"raw,omitempty"`
	Blob    []byte            `json:"blob,omitempty"`
	Labels  map[string]string `json:"labels,omitempty"`
	Big     *big.Int          `json:"big,omitempty"`
	Matrix  [2][2]int         `json:"matrix"`
	Comment string            `json:",omitempty"`
}

type emptyArgs struct{}

type out struct {
	Temp  float64 `json:"temp"`
	Extra any     `json:"extra,omitempty"`
}

// TestInferGolden checks inferred schemas against testdata/infer/*.json;
// run with -update to rewrite them.
func TestInferGolden(t *testing.T) {
	tests := []struct {
		name string
		t    reflect.Type
		mode Mode
	}{
		{"weather", reflect.TypeFor[weather](), Input},
		{"pointer_to_struct", reflect.TypeFor[*weather](), Input},
		{"embedded_and_leaves", reflect.TypeFor[withEmbed](), Input},
		{"empty", reflect.TypeFor[emptyArgs](), Input},
		{"output_with_interface", reflect.TypeFor[out](), Output},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Infer(tt.t, "In", tt.mode)
			if err != nil {
				t.Fatal(err)
			}
			var ind bytes.Buffer
			if err := json.Indent(&ind, got, "", "  "); err != nil {
				t.Fatal(err)
			}
			ind.WriteByte('\n')
			path := filepath.Join("testdata", "infer", tt.name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, ind.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), ind.String()); diff != "" {
				t.Errorf("Infer(%s) mismatch (-want +got):\n%s", tt.t, diff)
			}
			// Every inferred schema compiles.
			if _, err := Compile(got); err != nil {
				t.Errorf("Compile(inferred) = %v", err)
			}
		})
	}
}

func TestInferOutputNonStruct(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[string](), reflect.TypeFor[[]int](), reflect.TypeFor[any](), reflect.TypeFor[time.Time]()} {
		got, err := Infer(typ, "Out", Output)
		if err != nil || got != nil {
			t.Errorf("Infer(%s, Output) = %s, %v; want nil, nil", typ, got, err)
		}
	}
}

type (
	withChan    struct{ C chan int }
	withFunc    struct{ Filters struct{ Callback func() } }
	withComplex struct{ Z complex128 }
	withIntMap  struct{ M map[int]string }
	withIface   struct{ V any }
	withUnsafe  struct{ P unsafe.Pointer }
	node        struct{ Children []node }
	withSliceFn struct{ Hooks []struct{ Fn func() } }
	withMapChan struct{ M map[string]chan int }
	badEnumInt  struct {
		N int `enum:"1,x"`
	}
	badEnumKind struct {
		S struct{} `enum:"a"`
	}
	emptyEnum struct {
		S string `enum:""`
	}
	emptyDesc struct {
		S string `jsonschema:""`
	}
	wordDesc struct {
		S string `jsonschema:"enum=a"`
	}
	namedEmbed struct {
		base `json:"b"`
	}
	embedString struct{ Str }
	embedIface  struct{ error }
	badEnumBool struct {
		B bool `enum:"yes"`
	}
	badEnumUint struct {
		U uint `enum:"-1"`
	}
	badEnumFloat struct {
		F float32 `enum:"x"`
	}
	badEnumSlice struct {
		L []string `enum:""`
	}
	Str string
)

func TestInferRejects(t *testing.T) {
	tests := []struct {
		name string
		t    reflect.Type
		mode Mode
		want TypeError // Hint is not compared
	}{
		{"top level string", reflect.TypeFor[string](), Input, TypeError{Path: "In", Type: "string", Reason: "a tool's input must be a struct"}},
		{"top level map", reflect.TypeFor[map[string]int](), Input, TypeError{Path: "In", Type: "map[string]int", Reason: "a tool's input must be a struct"}},
		{"top level time", reflect.TypeFor[time.Time](), Input, TypeError{Path: "In", Type: "time.Time", Reason: "a tool's input must be a struct"}},
		{"nil type", nil, Input, TypeError{Path: "In", Type: "nil", Reason: "no type"}},
		{"channel", reflect.TypeFor[withChan](), Input, TypeError{Path: "In.C", Type: "chan int", Reason: "a channel cannot be sent as JSON"}},
		{"nested func", reflect.TypeFor[withFunc](), Input, TypeError{Path: "In.Filters.Callback", Type: "func()", Reason: "a function cannot be sent as JSON"}},
		{"complex", reflect.TypeFor[withComplex](), Input, TypeError{Path: "In.Z", Type: "complex128", Reason: "complex numbers have no JSON form"}},
		{"int map key", reflect.TypeFor[withIntMap](), Input, TypeError{Path: "In.M", Type: "map[int]string", Reason: "map keys must be strings to be JSON object keys"}},
		{"interface", reflect.TypeFor[withIface](), Input, TypeError{Path: "In.V", Type: "interface {}", Reason: "an interface has no schema"}},
		{"unsafe pointer", reflect.TypeFor[withUnsafe](), Input, TypeError{Path: "In.P", Type: "unsafe.Pointer", Reason: "an unsafe pointer cannot be sent as JSON"}},
		{"recursive", reflect.TypeFor[node](), Input, TypeError{Path: "In.Children[]", Type: "schema.node", Reason: "recursive type"}},
		{"func in slice element", reflect.TypeFor[withSliceFn](), Input, TypeError{Path: "In.Hooks[].Fn", Type: "func()", Reason: "a function cannot be sent as JSON"}},
		{"chan map value", reflect.TypeFor[withMapChan](), Output, TypeError{Path: "In.M[value]", Type: "chan int", Reason: "a channel cannot be sent as JSON"}},
		{"output chan", reflect.TypeFor[chan int](), Output, TypeError{Path: "In", Type: "chan int", Reason: "a channel cannot be sent as JSON"}},
		{"enum not an int", reflect.TypeFor[badEnumInt](), Input, TypeError{Path: "In.N", Type: "int", Reason: `enum value "x" is not a int`}},
		{"enum not a bool", reflect.TypeFor[badEnumBool](), Input, TypeError{Path: "In.B", Type: "bool", Reason: `enum value "yes" is not a bool`}},
		{"enum not a uint", reflect.TypeFor[badEnumUint](), Input, TypeError{Path: "In.U", Type: "uint", Reason: `enum value "-1" is not a uint`}},
		{"enum not a float", reflect.TypeFor[badEnumFloat](), Input, TypeError{Path: "In.F", Type: "float32", Reason: `enum value "x" is not a float32`}},
		{"enum on struct", reflect.TypeFor[badEnumKind](), Input, TypeError{Path: "In.S", Type: "struct {}", Reason: "enum tag on a field that is not a string, number or boolean"}},
		{"empty enum", reflect.TypeFor[emptyEnum](), Input, TypeError{Path: "In.S", Type: "string", Reason: "empty enum tag"}},
		{"empty enum on slice", reflect.TypeFor[badEnumSlice](), Input, TypeError{Path: "In.L[]", Type: "string", Reason: "empty enum tag"}},
		{"empty description", reflect.TypeFor[emptyDesc](), Input, TypeError{Path: "In.S", Type: "string", Reason: "empty jsonschema tag"}},
		{"WORD= description", reflect.TypeFor[wordDesc](), Input, TypeError{Path: "In.S", Type: "string", Reason: `jsonschema tag "enum=a" starts with WORD=`}},
		{"named embedded struct", reflect.TypeFor[namedEmbed](), Input, TypeError{Path: "In.base", Type: "schema.base", Reason: "embedded field with a json name"}},
		{"embedded string", reflect.TypeFor[embedString](), Input, TypeError{Path: "In.Str", Type: "schema.Str", Reason: "embedded field that is not a struct"}},
		{"embedded interface", reflect.TypeFor[embedIface](), Input, TypeError{Path: "In.error", Type: "error", Reason: "embedded field that is not a struct"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Infer(tt.t, "In", tt.mode)
			var te *TypeError
			if !errors.As(err, &te) || !errors.Is(err, ErrUnsupportedType) {
				t.Fatalf("Infer = %s, %v; want a *TypeError", got, err)
			}
			g := *te
			g.Hint = ""
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("TypeError mismatch (-want +got):\n%s\nerror: %v", diff, err)
			}
		})
	}
}

func TestTypeErrorMessage(t *testing.T) {
	_, err := Infer(reflect.TypeFor[withFunc](), "In", Input)
	want := `infer schema: In.Filters.Callback (func()): a function cannot be sent as JSON; remove the field or tag it json:"-"`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant   %s", err, want)
	}
	e := &TypeError{Path: "In", Type: "x", Reason: "r"}
	if got := e.Error(); got != "infer schema: In (x): r" {
		t.Errorf("no-hint error = %q", got)
	}
}
