package ollama

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// decodeWith decodes a whole stream with the fast path on or off and
// returns its events, the facts of the error that ended it (zero at io.EOF)
// and how many lines the fast path decoded.
func decodeWith(a *Adapter, body []byte, fast bool) ([]core.Event, adaptertest.ErrorFacts, int) {
	st := a.newStream(bytes.NewReader(body))
	st.fast.off = !fast
	evs, errFacts := adaptertest.DrainFacts(st)
	return evs, errFacts, st.fast.hits
}

// checkSame fails when the fast path changes anything the stream yields:
// events, their order, or the error that ends the stream. It returns the
// number of lines the fast path decoded.
func checkSame(t adaptertest.Fataler, name string, body []byte) int {
	t.Helper()
	a := New()
	return adaptertest.CheckFastPath(t, name, "lines", body, func(body []byte, fast bool) ([]core.Event, adaptertest.ErrorFacts, int) {
		return decodeWith(a, body, fast)
	})
}

// streamBodies returns the NDJSON streams of the package's fixtures (there
// is no recorded Ollama stream) and a typical generated one.
func streamBodies(t testing.TB) [][]byte {
	var out [][]byte
	for _, name := range fixtures(t, ".ndjson") {
		b, err := os.ReadFile(filepath.Join(fixtureDir, name))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return append(out, typicalStream(20))
}

// textLine is a line of streamed text as Ollama sends it.
func textLine(text string) string {
	return `{"model":"qwen3","created_at":"2025-10-01T10:00:00.100000Z","message":{"role":"assistant","content":"` + text + `"},"done":false}`
}

// callLine is a line of two whole calls, with ids and indexes.
const callLine = `{"model":"qwen3","created_at":"2025-10-01T10:00:00.100000Z","message":{"role":"assistant","content":"","tool_calls":[{"id":"call_a1","function":{"index":0,"name":"get_weather","arguments":{"city":"Paris","days":[1,2.5e1],"deep":{"a":null,"b":true}}}},{"function":{"name":"f","arguments":{ "a" : "b c" }}}]},"done":false}`

// doneLine ends a stream.
const doneLine = `{"model":"qwen3","created_at":"2025-10-01T10:00:00.200000Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":2574817166,"load_duration":1381166750,"prompt_eval_count":217,"prompt_eval_duration":683174792,"eval_count":22,"eval_duration":509125708}`

// typicalStream is a stream of a thinking line, n text lines, a call line
// and the done line.
func typicalStream(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"model":"qwen3","created_at":"2025-10-01T10:00:00.000000Z","message":{"role":"assistant","content":"","thinking":"Two lookups."},"done":false}` + "\n")
	for i := range n {
		b.WriteString(textLine(fmt.Sprintf(`w\u00e9rd %d \"q\"\n`, i)) + "\n")
	}
	b.WriteString(callLine + "\n" + doneLine + "\n")
	return []byte(b.String())
}

// TestFastPathStreams: on every fixture stream the fast path yields what
// the general path yields, and decodes every line of them.
func TestFastPathStreams(t *testing.T) {
	for i, body := range streamBodies(t) {
		lines := bytes.Count(bytes.TrimSpace(body), []byte("\n")) + 1
		if hits := checkSame(t, fmt.Sprintf("stream %d", i), body); hits != lines {
			t.Errorf("stream %d: fast path decoded %d of %d lines", i, hits, lines)
		}
	}
}

// TestFastPathSplit: the fast path reads lines as views of the reader's
// buffer; cut into random reads, every stream still decodes with it as the
// general path decodes the stream whole.
func TestFastPathSplit(t *testing.T) {
	streams := streamBodies(t)
	for _, c := range fastCases {
		streams = append(streams, []byte(textLine("t")+"\n"+c+"\n"+doneLine))
	}
	a := New()
	// The general path.
	general := func(r io.Reader) core.EventStream {
		st := a.newStream(r)
		st.fast.off = true
		return st
	}
	want := make([][]core.Event, len(streams))
	wantErr := make([]adaptertest.ErrorFacts, len(streams))
	for i, body := range streams {
		want[i], wantErr[i] = adaptertest.DrainFacts(general(bytes.NewReader(body)))
	}
	adaptertest.CheckSplitMatches(t, streams, want, wantErr, a.DecodeStream)
}

// fastCases are lines at the edge of the fast path's subset, each decoded
// by both paths.
var fastCases = []string{
	textLine("plain"),
	textLine(`h\u00e9llo \"x\" \ud83d\ude00 \/ \b\f\n\r\t`),
	callLine,
	doneLine,
	`{"model":"m","message":{"role":"assistant","content":"","thinking":"hm"},"done":false}`,
	`{"message":{"tool_calls":[]}}`,
	`{"message":{"tool_calls":[{"function":{"name":"f","arguments":{}}}]}}`,
	`{"message":{"tool_calls":[{"function":{"name":"f"}}]}}`,
	`{"message":{"tool_calls":[{"id":"x","function":{"index":3,"name":"f","arguments":{"a":1}}},{"id":"x","function":{"index":3,"name":"f","arguments":{"a":1}}}]}}`,
	`{"message":{"tool_calls":[{"function":{"index":0,"name":"a","arguments":{}}},{"function":{"index":1,"name":"b","arguments":{}}},{"function":{"index":2,"name":"c","arguments":{}}}]}}`,
	`{"done":true}`,
	`{"done":true,"done_reason":"length","eval_count":5}`,
	`{"done":true,"done_reason":"stop","prompt_eval_count":0,"eval_count":0}`,
	`{"done":false,"images":null,"message":{"images":["x"],"content":"a"}}`,
	`{"created_at":""}`,
	`{"created_at":"t"}`,
	`{"model":""}`,
	`{}`,
	` { "message" : { "content" : "a" } , "done" : false } `,
	// Escapes, surrogates and bytes that are not UTF-8.
	textLine(`\ud83d`),
	textLine(`\ude00\ud83d`),
	textLine("\xff\xfe"),
	textLine("a\tb"),
	textLine(`\x`),
	textLine(`\u12`),
	`{"message":{"tool_calls":[{"function":{"name":"f\u00e9","arguments":{"k":"\ud800"}}}]}}`,
	"{\"message\":{\"tool_calls\":[{\"function\":{\"name\":\"f\",\"arguments\":{\"k\":\"\xff\"}}}]}}",
	"{\"extra\":\"\xff\",\"message\":{\"content\":\"a\"}}",
	`{"model":"q\u0077en","done_reason":"st\u006fp","done":true}`,
	// Values of other types, numbers outside the subset, error lines.
	`{"message":{"content":null}}`,
	`{"message":{"content":5}}`,
	`{"message":null}`,
	`{"message":{"tool_calls":null}}`,
	`{"message":{"tool_calls":[null]}}`,
	`{"message":{"tool_calls":[{"function":null}]}}`,
	`{"message":{"tool_calls":[{"function":{"name":"f","arguments":"{\"a\":1}"}}]}}`,
	`{"message":{"tool_calls":[{"function":{"name":"f","arguments":"[1]"}}]}}`,
	`{"message":{"tool_calls":[{"function":{"name":"f","arguments":[1]}}]}}`,
	`{"message":{"tool_calls":[{"function":{"name":"f","arguments":null}}]}}`,
	`{"message":{"tool_calls":[{"function":{"name":"f","index":-1,"arguments":{}}}]}}`,
	`{"message":{"tool_calls":[{"function":{"name":"f","index":1.5,"arguments":{}}}]}}`,
	`{"message":{"tool_calls":[{"function":{"name":"f","index":null,"arguments":{}}}]}}`,
	`{"done":"true"}`,
	`{"done":null}`,
	`{"done":true,"eval_count":-1}`,
	`{"done":true,"eval_count":1e2}`,
	`{"done":true,"eval_count":9999999999999999999999}`,
	`{"done":true,"eval_count":null}`,
	`{"error":"model not found"}`,
	`{"error":null}`,
	`{"message":{"role":"tool","content":"r","tool_name":"f","tool_call_id":"x"}}`,
	`[1,2]`,
	`"x"`,
	// Repeated, case-folded and escaped keys.
	`{"message":{"content":"a","content":"b"}}`,
	`{"message":{"content":"a"},"message":{"content":"b"}}`,
	`{"Message":{"content":"a"}}`,
	`{"message":{"Content":"b","content":"a"}}`,
	`{"message":{"\u0063ontent":"a"}}`,
	`{"DONE":true}`,
	`{"message":{"tool_calls":[{"function":{"name":"f","Arguments":{}}}]}}`,
	`{"message":{"tool_calls":[{"ID":"x","function":{"name":"f","arguments":{}}}]}}`,
	// Syntax errors.
	`{"message":{"content":"a"}} x`,
	`{"message":{"content":"a"},}`,
	`{"message":{"content":"a"}`,
	`{"message" {"content":"a"}}`,
	`{"total_duration":[1 2]}`,
	`{"total_duration":tru}`,
	`{"total_duration":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
	`{"message":{"tool_calls":[{"function":{"name":"f","arguments":{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}}]}}`,
	`{"message":{"tool_calls":[{"function":{"name":"f","arguments":{"a":1,}}}]}}`,
}

// TestFastPathCases: every edge case decodes the same with and without
// the fast path, alone and twice after a text line.
func TestFastPathCases(t *testing.T) {
	for i, c := range fastCases {
		name := fmt.Sprintf("case %d", i)
		checkSame(t, name, []byte(c+"\n"))
		checkSame(t, name+" after text", []byte(textLine("t")+"\n"+c+"\r\n"+c))
	}
}

// FuzzFastPath: for any line, alone and twice after a text line, the fast
// path changes nothing the stream yields.
func FuzzFastPath(f *testing.F) {
	for _, c := range fastCases {
		f.Add(c)
	}
	for _, body := range streamBodies(f) {
		for line := range strings.SplitSeq(string(body), "\n") {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, c string) {
		checkSame(t, "alone", []byte(c+"\n"))
		checkSame(t, "after text", []byte(textLine("t")+"\n"+c+"\r\n"+c))
	})
}

// BenchmarkFastPath decodes typicalStream(100) with the fast path; the
// numbers are per stream of 103 lines, except allocs/line: the allocations
// of 1000 more text lines (typicalStream(1010) against typicalStream(10))
// per line, which removes the cost of the stream itself and of its calls.
func BenchmarkFastPath(b *testing.B) {
	a := New()
	adaptertest.BenchFastPath(b, func(body []byte, fast bool) ([]core.Event, adaptertest.ErrorFacts, int) {
		return decodeWith(a, body, fast)
	}, typicalStream, 100, 103, 1000, "allocs/line")
}
