package gemini

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// decodeWith decodes a whole stream with the fast path on or off and
// returns its events, the facts of the error that ended it (zero at io.EOF)
// and how many chunks the fast path decoded.
func decodeWith(a *Adapter, body []byte, fast bool) ([]core.Event, adaptertest.ErrorFacts, int) {
	st := a.newStream(bytes.NewReader(body))
	st.fast.off = !fast
	evs, errFacts := adaptertest.DrainFacts(st)
	return evs, errFacts, st.fast.hits
}

// checkSame fails when the fast path changes anything the stream yields:
// events, their order, or the error that ends the stream. It returns the
// number of chunks the fast path decoded.
func checkSame(t adaptertest.Fataler, name string, body []byte) int {
	t.Helper()
	a := New()
	return adaptertest.CheckFastPath(t, name, "chunks", body, func(body []byte, fast bool) ([]core.Event, adaptertest.ErrorFacts, int) {
		return decodeWith(a, body, fast)
	})
}

// TestFastPathCorpus: on every recorded stream, SSE or JSON array, the
// fast path yields what the general path yields, and it decodes most of
// the recorded chunks.
func TestFastPathCorpus(t *testing.T) {
	n, hits, chunks := 0, 0, 0
	for i, body := range corpusBodies(t) {
		if !isStream(body) {
			continue
		}
		n++
		hits += checkSame(t, fmt.Sprintf("stream %d", i), body)
		chunks += strings.Count(string(body), `"candidates"`)
	}
	if n < 15 {
		t.Fatalf("only %d recorded streams", n)
	}
	if hits*2 < chunks {
		t.Errorf("fast path decoded %d of %d recorded chunks, want at least half", hits, chunks)
	}
	t.Logf("%d streams, fast path decoded %d of %d chunks with candidates", n, hits, chunks)
}

// textChunk is a chunk of one text part as Gemini streams it.
func textChunk(text string) string {
	return `{"candidates": [{"content": {"parts": [{"text": "` + text + `"}],"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 8,"candidatesTokenCount": 3,"totalTokenCount": 11,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 8}]},"modelVersion": "gemini-2.5-flash","responseId": "r1"}`
}

// callChunk is a chunk of one whole function call.
const callChunk = `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris","days":[1,2.5e1],"deep":{"a":null,"b":true}}},"thoughtSignature":"c2ln"}]},"finishReason":"STOP","index":0,"safetyRatings":[]}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"thoughtsTokenCount":2,"totalTokenCount":17,"trafficType":"ON_DEMAND"},"modelVersion":"gemini-2.5-flash","createTime":"2026-01-01T00:00:00Z","responseId":"r1"}`

// typicalStream is an SSE stream of n text chunks and one call.
func typicalStream(n int) []byte {
	var b strings.Builder
	for i := range n {
		b.WriteString("data: " + textChunk(fmt.Sprintf(`w\u00e9rd %d \"q\"\n`, i)) + "\r\n\r\n")
	}
	b.WriteString("data: " + callChunk + "\r\n\r\n")
	return []byte(b.String())
}

// TestFastPathTaken: the fast path decodes every chunk of a typical
// stream, which is what makes it worth having.
func TestFastPathTaken(t *testing.T) {
	if hits := checkSame(t, "typical", typicalStream(50)); hits != 51 {
		t.Errorf("fast path decoded %d chunks, want all 51", hits)
	}
}

// TestFastPathSplit: the fast path reads event data as a view of the
// decoder's buffer; cut into random reads, every recorded stream still
// decodes with it as the general path decodes the stream whole.
func TestFastPathSplit(t *testing.T) {
	var streams [][]byte
	for _, body := range corpusBodies(t) {
		if isStream(body) {
			streams = append(streams, body)
		}
	}
	streams = append(streams, typicalStream(20))
	a := New()
	want := make([][]core.Event, len(streams))
	wantErr := make([]adaptertest.ErrorFacts, len(streams))
	for i, body := range streams {
		want[i], wantErr[i], _ = decodeWith(a, body, false)
	}
	adaptertest.CheckSplitMatches(t, streams, want, wantErr, a.DecodeStream)
}

// fastCases are chunks at the edge of the fast path's subset, each decoded
// by both paths.
var fastCases = []string{
	textChunk("plain"),
	textChunk(`h\u00e9llo \"x\" \ud83d\ude00 \/ \b\f\n\r\t`),
	callChunk,
	`{"candidates":[{"content":{"parts":[{"text":"think","thought":true,"thoughtSignature":"c2ln"}],"role":"model"}}]}`,
	`{"candidates":[{"content":{"parts":[{"text":"","thought":false}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"thoughtSignature":"c2ln"}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"text":"a"},{"text":"b"},{"functionCall":{"name":"f","args":{}}},{"text":"c"},{"functionCall":{"id":"x","name":"g"}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"a":1},"willContinue":true}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"args":{"a":1}}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{}}]}}]}`,
	`{"candidates":[{"content":{"parts":[]},"finishReason":"MAX_TOKENS"}]}`,
	`{"candidates":[{"content":{"role":"model"},"finishReason":"STOP"}]}`,
	`{"candidates":[{"finishReason":"SAFETY","index":0}]}`,
	`{"candidates":[{}]}`,
	`{"usageMetadata":{}}`,
	`{"usageMetadata":{"promptTokenCount":5}}`,
	`{"modelVersion":"m"}`,
	`{"responseId":"r\u00e9"}`,
	`{"createTime":"x"}`,
	`{}`,
	` { "candidates" : [ { "content" : { "parts" : [ { "text" : "a" } ] } } ] } `,
	// Escapes, surrogates and bytes that are not UTF-8.
	textChunk(`\ud83d`),
	textChunk(`\ude00\ud83d`),
	textChunk("\xff\xfe"),
	textChunk("a\tb"),
	textChunk(`\x`),
	textChunk(`\u12`),
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f\u00e9","args":{"k":"\ud800"}}}]}}]}`,
	"{\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":{\"k\":\"\xff\"}}}]}}]}",
	"{\"candidates\":[{\"safetyRatings\":\"\xff\",\"content\":{\"parts\":[{\"text\":\"a\"}]}}]}",
	`{"candidates":[{"content":{"parts":[{"text":"a"}]},"finishReason":"ST\u004fP"}]}`,
	// Values of other types and numbers outside the subset.
	`{"candidates":[{"content":{"parts":[{"text":null}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"text":5}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"text":"a","thought":null}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"text":"a","thought":"yes"}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":[1]}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":null}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":"{}"}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"a":1},"willContinue":1}}]}}]}`,
	`{"candidates":[{"content":null}]}`,
	`{"candidates":[{"content":{"parts":null}}]}`,
	`{"candidates":[{"finishReason":1}]}`,
	`{"candidates":[{"finishReason":12}]}`,
	`{"candidates":[{"finishReason":13}]}`,
	`{"candidates":[{"finishReason":0,"index":0}]}`,
	`{"candidates":[{"finishReason":-1}]}`,
	`{"candidates":[{"finishReason":1.0}]}`,
	`{"candidates":[{"finishReason":01}]}`,
	`{"candidates":[{"finishReason":null}]}`,
	`{"candidates":[{"index":-1}]}`,
	`{"candidates":[{"index":1.5}]}`,
	`{"candidates":[{"index":01}]}`,
	`{"candidates":[{"index":1e2}]}`,
	`{"candidates":[{"index":9999999999999999999999}]}`,
	`{"usageMetadata":{"promptTokenCount":-1}}`,
	`{"usageMetadata":{"promptTokenCount":"5"}}`,
	`{"usageMetadata":null}`,
	`{"candidates":null}`,
	`{"candidates":[]}`,
	`{"candidates":{}}`,
	`{"modelVersion":null}`,
	`{"modelVersion":5}`,
	`[1,2]`,
	`"x"`,
	// Several candidates, errors, feedback and partialArgs.
	`{"candidates":[{"content":{"parts":[{"text":"a"}]}},{"content":{"parts":[{"text":"b"}]}}]}`,
	`{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}`,
	`{"promptFeedback":{"blockReason":"SAFETY"}}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.a","stringValue":"x","willContinue":true}],"willContinue":true}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionResponse":{"name":"f","response":{}}}]}}]}`,
	// partialArgs pieces.
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.a","stringValue":"x\u00e9","willContinue":true},{"jsonPath":"$.b","numberValue":-1.5e3},{"jsonPath":"$['c']","boolValue":false}],"willContinue":true}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"y"}],"willContinue":false}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.n","numberValue":01}]}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.n","numberValue":"1"}]}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.n","nullValue":null}]}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.n","stringValue":null}]}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.n","boolValue":1}]}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"x","stringValue":"y"}]}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a","StringValue":"x"}]}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"a","stringValue":"x"}]}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[]}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{}]}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":{"jsonPath":"$.a"}}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"g","args":{"a":1},"partialArgs":[{"jsonPath":"$.b","stringValue":"x"}]}}]}}]}`,
	// Repeated, case-folded, snake_case and escaped keys.
	`{"candidates":[{"content":{"parts":[{"text":"a","text":"b"}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"text":"a"}],"parts":[{"text":"b"}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"text":"a"}]}}],"candidates":[{"content":{"parts":[{"text":"b"}]}}]}`,
	`{"modelVersion":"a","modelVersion":"b"}`,
	`{"candidates":[{"content":{"parts":[{"Text":"b","text":"a"}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"text":"a","TEXT":"b"}]}}]}`,
	`{"Candidates":[{"content":{"parts":[{"text":"a"}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"text":"a","thought_signature":"c2ln"}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"function_call":{"name":"f","args":{}}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{}},"function_call":{"name":"g"}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"NAME":"f","args":{}}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"\u0074ext":"a"}]}}]}`,
	"{\"candidates\":[{\"content\":{\"parts\":[{\"\xc5\xbfext\":\"a\",\"text\":\"b\"}]}}]}",
	`{"usageMetadata":{"PromptTokenCount":5,"promptTokenCount":6}}`,
	// Syntax errors.
	`{"candidates":[{"content":{"parts":[{"text":"a"}]}}]} x`,
	`{"candidates":[{"content":{"parts":[{"text":"a"}]}}],}`,
	`{"candidates":[{"content":{"parts":[{"text":"a"},]}}]}`,
	`{"candidates":[{"content":{"parts":[{"text":"a"}]}}]`,
	`{"candidates":[{"content":{"parts":[{"text" "a"}]}}]}`,
	`{"createTime":[1 2],"candidates":[]}`,
	`{"createTime":{"a":1,},"candidates":[]}`,
	`{"createTime":tru}`,
	`{"createTime":nul}`,
	`{"createTime":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"a":1,}}}]}}]}`,
	`{"createTime":{"a":[true,false,null,{"b":[]}],"c":-0.5E-2}}`,
}

// TestFastPathCases: every edge case decodes the same with and without
// the fast path, as SSE alone and after a text chunk and an open call, and
// as the one-JSON-array form.
func TestFastPathCases(t *testing.T) {
	open := `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.a","stringValue":"x","willContinue":true}],"willContinue":true}}]}}],"responseId":"r0"}`
	for i, c := range fastCases {
		name := fmt.Sprintf("case %d", i)
		checkSame(t, name, []byte("data: "+c+"\n\n"))
		checkSame(t, name+" after text", []byte("data: "+textChunk("t")+"\n\ndata: "+c+"\n\ndata: "+c+"\n\n"))
		checkSame(t, name+" after an open call", []byte("data: "+open+"\n\ndata: "+c+"\n\n"))
		checkSame(t, name+" in an array", []byte("["+textChunk("t")+",\r\n"+c+"]"))
	}
}

// FuzzFastPath: for any chunk, alone, twice after a text chunk and as an
// array element, the fast path changes nothing the stream yields.
func FuzzFastPath(f *testing.F) {
	for _, c := range fastCases {
		f.Add(c)
	}
	for _, body := range corpusBodies(f) {
		for line := range strings.SplitSeq(string(body), "\n") {
			if c, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(c, "candidates") {
				f.Add(c)
				break
			}
		}
	}
	f.Fuzz(func(t *testing.T, c string) {
		checkSame(t, "alone", []byte("data: "+c+"\n\n"))
		checkSame(t, "after text", []byte("data: "+textChunk("t")+"\n\ndata: "+c+"\n\ndata: "+c+"\n\n"))
		checkSame(t, "in an array", []byte("["+textChunk("t")+",\r\n"+c+"]"))
	})
}

// BenchmarkFastPath decodes typicalStream(100) with the fast path; the
// numbers are per stream of 101 chunks, except allocs/chunk: the
// allocations of 1000 more text chunks (typicalStream(1010) against
// typicalStream(10)) per chunk, which removes the cost of the stream itself
// and of the call (the general path costs dozens per chunk).
func BenchmarkFastPath(b *testing.B) {
	a := New()
	adaptertest.BenchFastPath(b, func(body []byte, fast bool) ([]core.Event, adaptertest.ErrorFacts, int) {
		return decodeWith(a, body, fast)
	}, typicalStream, 100, 101, 1000, "allocs/chunk")
}
