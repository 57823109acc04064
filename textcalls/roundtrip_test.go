package textcalls_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/internal/jsonvalue"
	"github.com/toolconform/conform/textcalls"
	"github.com/toolconform/conform/textcalls/textcallstest"
)

// textRunes are what generated text and string values are made of:
// letters, digits, space, punctuation, quotes, a backslash and letters
// beyond ASCII, none of which begins a marker of any format.
var textRunes = []rune("abcdefXYZ 0129.,;:!?\"'\\-_éß你好🌍")

func genText(max int) *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		rs := rapid.SliceOfN(rapid.SampledFrom(textRunes), 0, max).Draw(t, "runes")
		return strings.TrimSpace(string(rs))
	})
}

// genValue draws an argument value and the JSON Schema type it has.
func genValue(t *rapid.T, depth int) (any, json.RawMessage) {
	kinds := []string{"string", "integer", "boolean", "array"}
	if depth == 0 {
		kinds = append(kinds, "object")
	}
	switch rapid.SampledFrom(kinds).Draw(t, "kind") {
	case "integer":
		return rapid.IntRange(-1000, 100000).Draw(t, "int"), json.RawMessage(`{"type": "integer"}`)
	case "boolean":
		return rapid.Bool().Draw(t, "bool"), json.RawMessage(`{"type": "boolean"}`)
	case "array":
		return rapid.SliceOfN(genWord(), 0, 3).Draw(t, "list"), json.RawMessage(`{"type": "array"}`)
	case "object":
		obj := map[string]any{}
		for _, k := range rapid.SliceOfNDistinct(genKey(), 0, 3, func(s string) string { return s }).Draw(t, "keys") {
			obj[k], _ = genValue(t, depth+1)
		}
		return obj, json.RawMessage(`{"type": "object"}`)
	}
	s := genText(20).Draw(t, "string")
	if s == "" {
		s = "x"
	}
	return s, json.RawMessage(`{"type": "string"}`)
}

func genWord() *rapid.Generator[string] { return rapid.StringMatching(`[a-z][a-z0-9 ]{0,8}[a-z]`) }
func genKey() *rapid.Generator[string]  { return rapid.StringMatching(`[a-z][a-z_]{0,9}`) }

// genTurn draws a turn and the tools that declare its calls' parameter
// types.
func genTurn(t *rapid.T) (textcalls.Turn, []textcalls.Tool) {
	turn := textcalls.Turn{Thinking: genText(30).Draw(t, "thinking"), Text: genText(30).Draw(t, "text")}
	var tools []textcalls.Tool
	for i, n := 0, rapid.IntRange(0, 3).Draw(t, "calls"); i < n; i++ {
		// Distinct names: each declares its own parameter types.
		name := fmt.Sprintf("%s%d", rapid.StringMatching(`[a-z][a-z_]{0,11}`).Draw(t, "name"), i)
		args := map[string]any{}
		props := map[string]json.RawMessage{}
		for _, k := range rapid.SliceOfNDistinct(genKey(), 0, 4, func(s string) string { return s }).Draw(t, "params") {
			args[k], props[k] = genValue(t, 0)
		}
		raw, _ := json.Marshal(args)
		turn.Calls = append(turn.Calls, core.Call{Name: name, Arguments: raw})
		schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
		tools = append(tools, textcalls.Tool{Name: name, Parameters: schema})
	}
	return turn, tools
}

// TestRenderRoundTrip renders random turns in every format and parses
// them back, whole and cut at random: the same reasoning, text and calls
// (names and arguments), and the same events whatever the cut.
func TestRenderRoundTrip(t *testing.T) {
	for _, f := range textcalls.Formats() {
		t.Run(f.Name, func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				turn, tools := genTurn(rt)
				text, err := f.Render(turn)
				// What the format cannot write is left out, in turn:
				// reasoning, text beside calls, calls past the first,
				// calls.
				for _, narrow := range []func(*textcalls.Turn){
					func(t *textcalls.Turn) { t.Thinking = "" },
					func(t *textcalls.Turn) {
						if len(t.Calls) > 0 {
							t.Text = ""
						}
					},
					func(t *textcalls.Turn) { t.Calls = t.Calls[:min(1, len(t.Calls))] },
					func(t *textcalls.Turn) { t.Calls = nil },
				} {
					if !errors.Is(err, textcalls.ErrCannotRender) {
						break
					}
					narrow(&turn)
					text, err = f.Render(turn)
				}
				if err != nil {
					rt.Fatalf("render: %v", err)
				}
				opts := textcalls.Options{Tools: dedupeTools(tools)}
				resp, err := textcalls.Collect(f, opts, text)
				if err != nil {
					rt.Fatalf("parse %q: %v", text, err)
				}
				got := textcallstest.ResultOf(resp, nil)
				if strings.TrimSpace(got.Reasoning) != turn.Thinking || strings.TrimSpace(got.Content) != turn.Text {
					rt.Fatalf("parse %q: reasoning %q, text %q; want %q, %q", text, got.Reasoning, got.Content, turn.Thinking, turn.Text)
				}
				if len(got.Calls) != len(turn.Calls) {
					rt.Fatalf("parse %q: %d calls, want %d", text, len(got.Calls), len(turn.Calls))
				}
				for i, c := range got.Calls {
					if c.Name != turn.Calls[i].Name || !jsonvalue.EqualText(c.Arguments, turn.Calls[i].Arguments) {
						rt.Fatalf("parse %q: call %d is %s(%s), want %s(%s)", text, i, c.Name, c.Arguments, turn.Calls[i].Name, turn.Calls[i].Arguments)
					}
				}
				whole := joined(textcalls.Parse(f, opts, text))
				cut := joined(textcalls.Parse(f, opts, randomPieces(rt, text)...))
				if diff := cmp.Diff(whole, cut); diff != "" {
					rt.Fatalf("%q cut at random: events differ (-whole +cut):\n%s", text, diff)
				}
			})
		})
	}
}

// dedupeTools keeps the first declaration of each name.
func dedupeTools(tools []textcalls.Tool) []textcalls.Tool {
	seen := map[string]bool{}
	var out []textcalls.Tool
	for _, t := range tools {
		if !seen[t.Name] {
			seen[t.Name] = true
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
