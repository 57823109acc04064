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

// TestExtractTextProperty writes any sequence of prose lines and calls,
// each call in any of the prompted forms, and checks that extraction gives
// back exactly the calls, in order, and exactly the prose, in order.
func TestExtractTextProperty(t *testing.T) {
	prose := rapid.StringMatching(`[A-Za-z][A-Za-z0-9 ,.!?'-]{0,40}`)
	name := rapid.StringMatching(`[a-z][a-z0-9_]{0,15}`)
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 6).Draw(t, "pieces")
		var b strings.Builder
		var wantText []string
		var wantCalls []core.Call
		for i := range n {
			if rapid.Bool().Draw(t, fmt.Sprintf("call%d", i)) {
				args := map[string]int{}
				for j := range rapid.IntRange(0, 3).Draw(t, "nargs") {
					args[fmt.Sprintf("k%d", j)] = rapid.IntRange(-5, 5).Draw(t, "v")
				}
				raw, _ := json.Marshal(args)
				c := core.Call{Name: name.Draw(t, "name"), Arguments: raw}
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
		ex, err := extractText(b.String())
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
		ex, err := extractText(full[:cut])
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
