package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolconform/conform/core"
	"pgregory.net/rapid"
)

// TestExtractTextProperty writes any sequence of prose lines, JSON data
// and calls, each call in any of the prompted forms, and checks that
// extraction gives back exactly the calls, in order, and exactly the prose
// and data, in order. Data is JSON, bare or fenced, whose "name" is not an
// offered tool (tool names are lower case, data names capitalised), with
// or without an "arguments" key: it is never a call.
func TestExtractTextProperty(t *testing.T) {
	prose := rapid.StringMatching(`[A-Za-z][A-Za-z0-9 ,.!?'-]{0,40}`)
	name := rapid.StringMatching(`[a-z][a-z0-9_]{0,15}`)
	dataName := rapid.StringMatching(`[A-Z][a-z]{0,10}`)
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 6).Draw(t, "pieces")
		var b strings.Builder
		var wantText []string
		var wantCalls []core.Call
		var o readOpts
		for i := range n {
			kind := rapid.IntRange(0, 2).Draw(t, fmt.Sprintf("piece%d", i))
			if kind == 2 {
				data := fmt.Sprintf(`{"name": %q, "arguments": [1], "email": "x@example.com"}`, dataName.Draw(t, "data"))
				if rapid.Bool().Draw(t, "fenced") {
					data = "```json\n" + data + "\n```"
				}
				b.WriteString(data + "\n")
				wantText = append(wantText, data)
				continue
			}
			if kind == 1 {
				args := map[string]int{}
				for j := range rapid.IntRange(0, 3).Draw(t, "nargs") {
					args[fmt.Sprintf("k%d", j)] = rapid.IntRange(-5, 5).Draw(t, "v")
				}
				raw, _ := json.Marshal(args)
				c := core.Call{Name: name.Draw(t, "name"), Arguments: raw}
				o.tools = append(o.tools, c.Name)
				obj := fmt.Sprintf(`{"tool": %q, "arguments": %s}`, c.Name, raw)
				switch rapid.IntRange(0, 3).Draw(t, "form") {
				case 0:
					obj = "<tool_call>" + obj + "</tool_call>"
				case 1:
					obj = "<tool_use>\n" + obj + "\n</tool_use>"
				case 2:
					obj = "```json\n" + obj + "\n```"
				}
				b.WriteString(obj + "\n")
				wantCalls = append(wantCalls, c)
				continue
			}
			p := strings.TrimSpace(prose.Draw(t, "prose"))
			if p == "" {
				continue
			}
			b.WriteString(p + "\n")
			wantText = append(wantText, p)
		}
		ex, err := extractText(b.String(), o)
		if err != nil {
			t.Fatal(err)
		}
		if len(ex.Malformed) > 0 {
			t.Fatalf("malformed calls in well-formed text: %v", ex.Malformed)
		}
		if diff := cmp.Diff(wantCalls, ex.Calls, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("calls (-want +got):\n%s", diff)
		}
		want := strings.Join(wantText, "\n")
		if len(wantCalls) == 0 {
			want = b.String()
		}
		if ex.Text != want {
			t.Fatalf("text: want %q, got %q", want, ex.Text)
		}
	})
}

// TestTruncatedCallNeverCompletes cuts a written call at every byte: no
// prefix ever yields a complete call with the full arguments unless the
// cut falls after the closing tag.
func TestTruncatedCallNeverCompletes(t *testing.T) {
	full := "Let me check.\n<tool_call>{\"tool\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 12}}</tool_call>"
	closeAt := strings.Index(full, "</tool_call>") + len("</tool_call>")
	for cut := range len(full) {
		ex, err := extractText(full[:cut], readOpts{tools: []string{"get_weather"}, tagsOnly: cut%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		if len(ex.Calls) > 0 {
			t.Fatalf("cut at %d of %d gave a call %+v from a truncated text", cut, closeAt, ex.Calls)
		}
		if cut >= strings.Index(full, "<tool_call>")+len("<tool_") && len(ex.Malformed) != 1 {
			t.Fatalf("cut at %d: the truncated call is not reported: %+v", cut, ex)
		}
	}
}
