package ollama

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/textcalls"
	"github.com/toolconform/conform/textcalls/textcallstest"
)

// benchTools are the tools the benchmark's calls use, typed for the
// formats that take parameter types from the schema.
var benchTools = []textcalls.Tool{{Name: "get_weather", Parameters: json.RawMessage(
	`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"},"units":{"type":"string"},"note":{"type":"string"}}}`)}}

// benchText is the benchmark's turn in format f: a sentence, then four
// calls of about 200 bytes of arguments, rendered by conform, and its
// deltas as an engine streams them: a marker (<…>, up to 64 bytes) whole,
// as the one special token it is, other text in pieces of up to 4 bytes
// cut at characters.
//
// A gpt-oss turn holds one call: <|call|> is a stop token, and Ollama's
// harmony parser reads the text after it as more of the call.
func benchText(f *textcalls.Format) (string, []string, error) {
	n := 4
	if f.Name == "gpt-oss-harmony" {
		n = 1
	}
	calls := make([]core.Call, n)
	for i := range calls {
		args := fmt.Sprintf(`{"city":"City %d","days":%d,"units":"metric","note":"%s"}`, i, i+1, strings.Repeat("fine weather ", 12))
		calls[i] = core.Call{Name: "get_weather", Arguments: json.RawMessage(args)}
	}
	text, err := f.Render(textcalls.Turn{Text: "Let me check the weather in four cities.", Calls: calls})
	if err != nil {
		// Formats whose calls must be all the text.
		text, err = f.Render(textcalls.Turn{Calls: calls})
	}
	return text, tokens(text), err
}

func tokens(s string) []string {
	var out []string
	for len(s) > 0 {
		n := 0
		if s[0] == '<' {
			if end := strings.IndexByte(s[:min(64, len(s))], '>'); end > 0 {
				n = end + 1
			}
		}
		if n == 0 {
			for n < len(s) && n < 4 && (n == 0 || s[n] != '<') {
				_, w := utf8.DecodeRuneInString(s[n:])
				n += w
			}
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// TestBenchTextsAgree checks that, on each benchmark text, conform's
// parser and Ollama's find the same calls: a benchmark of a parser that
// failed would measure nothing.
func TestBenchTextsAgree(t *testing.T) {
	slog.SetDefault(slog.New(slog.DiscardHandler))
	for _, e := range Engines {
		f, _ := textcalls.Lookup(e.Format)
		_, deltas, err := benchText(f)
		if err != nil {
			t.Logf("%s: %v: not benchmarked", e.Format, err)
			continue
		}
		v := &textcallstest.Vector{Tools: benchTools}
		ref := textcallstest.ParserSubject(f.New)(v, deltas)
		got := e.Subject()(v, deltas)
		if len(ref.Calls) == 0 || callList(ref) != callList(got) {
			t.Logf("%s: conform finds %s; Ollama's %s finds %s (%v): not benchmarked", e.Format, callList(ref), e.Name, callList(got), got.Err)
		}
	}
}

// BenchmarkParsers feeds each format's benchmark text, in 4-byte deltas, to
// conform's parser and to Ollama's in one run: formats/F/conform and
// formats/F/ollama, with the events each gives per text (events/op) and the
// allocations per event. A format whose text Ollama does not parse to the
// same calls is left out (TestBenchTextsAgree says which).
func BenchmarkParsers(b *testing.B) {
	slog.SetDefault(slog.New(slog.DiscardHandler))
	for _, e := range Engines {
		f, _ := textcalls.Lookup(e.Format)
		text, deltas, err := benchText(f)
		if err != nil {
			continue
		}
		v := &textcallstest.Vector{Tools: benchTools}
		if ref, got := textcallstest.ParserSubject(f.New)(v, deltas), e.Subject()(v, deltas); len(ref.Calls) == 0 || callList(ref) != callList(got) {
			continue
		}
		opts := textcalls.Options{Tools: benchTools}
		b.Run(e.Format+"/conform", func(b *testing.B) {
			var evs []core.Event
			run := func() {
				p := f.New(opts)
				evs = evs[:0]
				for _, d := range deltas {
					evs = p.Feed(evs, d)
				}
				evs = p.Close(evs)
			}
			report(b, len(text), run, func() int { return len(evs) })
		})
		b.Run(e.Format+"/ollama", func(b *testing.B) {
			tools := apiTools(benchTools)
			events := 0
			run := func() {
				p := e.New(false)
				p.Init(tools, nil, &api.ThinkValue{Value: false})
				events = 0
				for i := 0; i <= len(deltas); i++ {
					d, done := "", i == len(deltas)
					if !done {
						d = deltas[i]
					}
					content, thinking, calls, err := p.Add(d, done)
					if err != nil {
						b.Fatal(err)
					}
					events += len(calls) + count(content) + count(thinking)
				}
			}
			report(b, len(text), run, func() int { return events })
		})
	}
}

func count(s string) int {
	if s == "" {
		return 0
	}
	return 1
}

// report times run and reports the events it gives and its allocations
// per event.
func report(b *testing.B, size int, run func(), events func() int) {
	run()
	n := events()
	allocs := testing.AllocsPerRun(20, run)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		run()
	}
	b.ReportMetric(float64(n), "events/op")
	b.ReportMetric(allocs/float64(n), "allocs/event")
}
