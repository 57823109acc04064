package agent

import (
	"strings"
	"testing"
)

// BenchmarkExtractText measures reading calls from a 10 KB reply with
// prose, JSON that is not a call, and three calls in different forms.
func BenchmarkExtractText(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 10<<10 {
		sb.WriteString("Some prose about the weather, with {braces} in it.\n{\"debug\": true, \"n\": [1, 2, 3]}\n")
	}
	sb.WriteString("<tool_call>{\"tool\": \"a\", \"arguments\": {\"x\": 1}}</tool_call>\n")
	sb.WriteString("```json\n{\"tool\": \"b\", \"arguments\": {}}\n```\n{\"name\": \"c\", \"parameters\": {\"q\": \"s\"}}\n")
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		ex, err := extractText(text, readOpts{tools: []string{"a", "b", "c"}})
		if err != nil || len(ex.Calls) != 3 {
			b.Fatalf("got %d calls, %v", len(ex.Calls), err)
		}
	}
}
