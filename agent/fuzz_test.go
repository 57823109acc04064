package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
)

// corpusStrings returns the longer string values of the recorded JSON
// responses under testdata/corpus: real model text, real arguments.
func corpusStrings(tb testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "corpus", "*", "*.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no recorded responses found: %v", err)
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if len(x) >= 8 {
				out = append(out, x)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, k := range slices.Sorted(func(yield func(string) bool) {
				for k := range x {
					if !yield(k) {
						return
					}
				}
			}) {
				walk(x[k])
			}
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var v any
		if json.Unmarshal(b, &v) == nil {
			walk(v)
		}
	}
	return out
}

var knownBadTexts = []string{
	"<tool_call>",
	"<tool_call>{",
	"<tool_use>{\"tool\": \"a\", \"arguments\": {\"x\": \"\\u12",
	"```json\n{\"tool\": \"a\"",
	"```\n{\"name\": 1}\n```",
	"{\"tool\": null}",
	"{\"name\": \"a\", \"arguments\": \"{\\\"x\\\":1}\"}",
	"{\"tool\": \"a\"}{\"tool\": \"b\"}",
	"\n\n{\"tool\"",
	"<tool_call>```json\n{\"tool\":\"a\"}</tool_call>",
	"{\"step\": {\"tool\": \"a\", \"arguments\": []}}",
	"{\"step\": 3}",
	"\xff{\"tool\": \"\xfe\"}",
	"Here is the user record:\n```json\n{\"name\": \"Alice\", \"email\": \"a@example.com\"}\n```",
	"To call a tool, write <tool_call> and a JSON object.",
	"```JSON\n{\"tool\": \"get_weather\", \"arguments\": {}}\n```",
	"{\"name\": \"get_wea",
	"<tool_use>get_weather(city=\"Oslo\")</tool_use>",
	"<tool_call></tool_call>",
	"{\"name\": \"a\\u0022\"}",
}

// FuzzExtractText checks, for any text, that extraction never panics and
// accounts for its input, in the text modes' reading and in ModeNative's
// (tags only): each malformed call's text is the input at its offset,
// calls name an offered tool and have JSON arguments, text without calls
// is kept whole, and the structured extractor gives calls, an answer, a
// scratchpad or a malformed step, never nothing.
func FuzzExtractText(f *testing.F) {
	for _, s := range corpusStrings(f) {
		f.Add(s)
	}
	for _, s := range knownBadTexts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, tagsOnly := range []bool{false, true} {
			o := testTools
			o.tagsOnly = tagsOnly
			checkExtraction(t, text, o)
		}
		sx, err := structured{}.Extract(&core.Request{}, textResponse(text))
		if err != nil {
			t.Fatalf("structured extract: %v", err)
		}
		if len(sx.Calls) == 0 && !sx.Answer && sx.Scratchpad == "" && len(sx.Malformed) == 0 {
			t.Fatalf("structured extract gave nothing for %q", text)
		}
	})
}

func checkExtraction(t *testing.T, text string, o readOpts) {
	ex, err := extractText(text, o)
	if err != nil {
		if len(text) <= MaxTextBytes {
			t.Fatalf("error on text within the limit: %v", err)
		}
		return
	}
	{
		for _, m := range ex.Malformed {
			if m.Offset < 0 || m.Offset+len(m.Text) > len(text) || text[m.Offset:m.Offset+len(m.Text)] != m.Text {
				t.Fatalf("malformed call at %d does not match the input: %q", m.Offset, m.Text)
			}
		}
		for _, c := range ex.Calls {
			if !o.known(c.Name) || !json.Valid(c.Arguments) {
				t.Fatalf("tags only %v: call to a tool not offered or with arguments that are not JSON: %+v", o.tagsOnly, c)
			}
		}
		if len(ex.Calls) == 0 && len(ex.Malformed) == 0 && ex.Text != text && strings.TrimSpace(ex.Text) == ex.Text {
			// Fenced or bare JSON that is not a call must stay as it was.
			if !strings.Contains(text, "```") {
				t.Fatalf("text without calls changed: %q -> %q", text, ex.Text)
			}
		}
		if len(ex.Text) > len(text) {
			t.Fatalf("text grew: %d > %d bytes", len(ex.Text), len(text))
		}
	}
}
