package cohere

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// outcome is what a stream yields: its events and the facts of the error
// that ended it.
type outcome struct {
	Events []core.Event
	Err    adaptertest.ErrorFacts
}

// decodeWith decodes a whole stream through DecodeStream, with the fast
// path on or off, read in pieces of the given sizes (whole when none).
func decodeWith(body []byte, fast bool, sizes ...int) outcome {
	a := New(WithMaxEventSize(4096))
	a.slowOnly = !fast
	var r io.Reader = bytes.NewReader(body)
	if len(sizes) > 0 {
		r = adaptertest.SplitReader(body, sizes...)
	}
	evs, err := adaptertest.Drain(a.DecodeStream(r))
	return outcome{evs, adaptertest.FactsOf(err)}
}

// checkSame fails when the fast path changes anything the stream yields:
// events, their order, or the error that ends it (type, text, offset,
// event, path and sentinels).
func checkSame(t interface {
	Helper()
	Fatalf(string, ...any)
}, name string, body []byte) {
	t.Helper()
	slow, fast := decodeWith(body, false), decodeWith(body, true)
	if diff := cmp.Diff(slow, fast); diff != "" {
		t.Fatalf("%s: fast path changes the stream (-general +fast):\n%s", name, diff)
	}
}

// fastHits returns how many events the fast path decodes in body.
func fastHits(t testing.TB, body []byte) int {
	s := New().newStream(bytes.NewReader(body))
	for {
		_, err := s.Next()
		if err == io.EOF {
			return s.fast.hits
		}
		if err != nil {
			t.Fatalf("%v", err)
		}
	}
}

// recordedStreams returns every recorded Cohere stream (the imported
// corpus's cassettes, SSE, v2: no v1 stream is recorded) and the v1
// stream of the tests.
func recordedStreams(t testing.TB) [][]byte {
	streams := adaptertest.RecordedStreams(t, "cohere")
	if len(streams) < 4 {
		t.Fatalf("%d recorded cohere streams, want at least 4", len(streams))
	}
	return append(streams, []byte(v1StreamBody))
}

// TestFastPathCorpus: on every recorded stream the fast path yields what
// the general path yields, and it decodes every recorded event.
func TestFastPathCorpus(t *testing.T) {
	for i, body := range recordedStreams(t) {
		checkSame(t, fmt.Sprintf("stream %d", i), body)
		if !bytes.HasPrefix(body, []byte("{")) {
			if hits, n := fastHits(t, body), bytes.Count(body, []byte("data: {")); hits != n {
				t.Errorf("stream %d: fast path decoded %d of %d events", i, hits, n)
			}
		}
	}
}

// TestFastPathSplit: cut into reads of random sizes, every recorded stream
// and edge case decodes with the fast path as the general path decodes it
// whole.
func TestFastPathSplit(t *testing.T) {
	streams := recordedStreams(t)
	for _, p := range fastCases {
		streams = append(streams, caseStream(p))
	}
	want := make([]outcome, len(streams))
	for i, body := range streams {
		want[i] = decodeWith(body, false)
	}
	rapid.Check(t, func(t *rapid.T) {
		i := rapid.IntRange(0, len(streams)-1).Draw(t, "stream")
		sizes := rapid.SliceOfN(rapid.IntRange(1, 64), 1, 200).Draw(t, "sizes")
		if diff := cmp.Diff(want[i], decodeWith(streams[i], true, sizes...)); diff != "" {
			t.Fatalf("stream %d split (-general whole +fast split):\n%s", i, diff)
		}
	})
}

// caseStream is a payload as the third event of a stream, after a
// message-start and a call's start, and again after it.
func caseStream(p string) []byte {
	return sseBody(false, msgStart, callStart(0, "c1", "f", `""`), p, p)
}

// fastCases are event payloads at the edge of the fast path's subset,
// each decoded by both paths.
var fastCases = []string{
	msgStart,
	planI,
	callStart(1, "c2", "g", `"{\"a\":"`),
	callStart(0, "c1", "f", `"null"`),
	callDelta(0, `{"a":1}`),
	callDelta(0, "null"),
	callDelta(0, ""),
	callEnd(0),
	callEnd(7),
	`{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"caf\u00e9 \"q\" \\ \ud83d\ude00 \/ \b\f\n\r\t"}}}}}`,
	`{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"\ud83d"}}}}}`,
	"{\"type\":\"tool-call-delta\",\"index\":0,\"delta\":{\"message\":{\"tool_calls\":{\"function\":{\"arguments\":\"\xff\"}}}}}",
	"{\"type\":\"tool-call-delta\",\"index\":0,\"delta\":{\"message\":{\"tool_calls\":{\"function\":{\"arguments\":\"\xe2\x82\"}}}}}",
	`{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{}}}}}`,
	`{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{}}}}`,
	`{"type":"tool-call-delta","index":0,"delta":{"message":{}}}`,
	`{"type":"tool-call-delta","index":0,"delta":{}}`,
	`{"type":"tool-call-delta","index":0}`,
	`{"type":"tool-call-delta","delta":{"message":{"tool_calls":{"function":{"arguments":"x"}}}}}`,
	`{"type":"tool-call-start","index":2,"delta":{"message":{"tool_calls":{"id":"c\u00e9","type":"function","function":{"name":"f\u00e9","arguments":""}}}}}`,
	"{\"type\":\"tool-call-start\",\"index\":2,\"delta\":{\"message\":{\"tool_calls\":{\"id\":\"c\xff\",\"function\":{\"name\":\"f\"}}}}}",
	"{\"type\":\"tool-call-start\",\"index\":2,\"delta\":{\"message\":{\"tool_calls\":{\"id\":\"c\",\"function\":{\"name\":\"f\xff\"}}}}}",
	`{"type":"tool-call-start","index":2,"delta":{"message":{"tool_calls":{"id":"\udc00","function":{"name":"f"}}}}}`,
	`{"type":"tool-call-start","index":2,"delta":{"message":{"tool_calls":[]}}}`,
	`{"type":"tool-call-start","index":2,"delta":{"message":{"tool_calls":"x"}}}`,
	`{"type":"tool-call-start","index":2,"delta":{"message":{"tool_calls":null}}}`,
	`{"type":"tool-call-start","index":2,"delta":{"message":{"tool_calls":{"id":null}}}}`,
	`{"type":"tool-call-start","index":2,"delta":{"message":{"tool_calls":{"id":5}}}}`,
	`{"type":"tool-call-start","index":2,"delta":{"message":{"tool_calls":{"function":{"arguments":5}}}}}`,
	`{"type":"tool-call-start","index":2,"delta":{"message":{"tool_calls":{"function":{"arguments":null}}}}}`,
	`{"type":"tool-call-start","index":2,"delta":{"message":{"tool_calls":{"function":null}}}}`,
	`{"type":"tool-call-start","index":2,"delta":{"message":{"tool_calls":{"function":[]}}}}`,
	`{"type":"tool-plan-delta","delta":{"message":{"tool_plan":""}}}`,
	`{"type":"tool-plan-delta","delta":{"message":{"tool_plan":"a \u00e9 \ud83d\ude00"}}}`,
	"{\"type\":\"tool-plan-delta\",\"delta\":{\"message\":{\"tool_plan\":\"a\xffb\"}}}",
	`{"type":"tool-plan-delta","delta":{"message":{"tool_plan":null}}}`,
	`{"type":"tool-plan-delta","delta":{"message":{"tool_plan":1}}}`,
	`{"type":"content-start","index":0,"delta":{"message":{"content":{"type":"text","text":""}}}}`,
	`{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"Hi \u00e9"}}}}`,
	`{"type":"content-delta","index":0,"delta":{"message":{"content":{"thinking":"hm","text":"x"}}}}`,
	`{"type":"content-delta","index":0,"delta":{"message":{"content":{"type":5}}}}`,
	`{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":null}}}}`,
	`{"type":"content-delta","index":0,"delta":{"message":{"content":[{"text":"x"}]}}}`,
	`{"type":"content-delta","index":0,"delta":{"message":{"content":"x"}}}`,
	"{\"type\":\"content-delta\",\"index\":0,\"delta\":{\"message\":{\"content\":{\"text\":\"a\xc3\"}}}}",
	`{"type":"content-end","index":0}`,
	`{"type":"citation-start","index":0,"delta":{"message":{"citations":{"start":0,"end":2,"text":"x","sources":[{"type":"tool"}]}}}}`,
	`{"type":"citation-end","index":0}`,
	`{"type":"debug","delta":{}}`,
	`{"type":"message-end","delta":{"finish_reason":"TOOL_CALL","usage":{"billed_units":{"input_tokens":23,"output_tokens":41},"tokens":{"input_tokens":906,"output_tokens":77},"cached_tokens":704}}}`,
	`{"type":"message-end","delta":{"finish_reason":"COMPLETE","usage":{"billed_units":{"input_tokens":1}}}}`,
	`{"type":"message-end","delta":{"finish_reason":"COMPLETE","usage":{"tokens":{}}}}`,
	`{"type":"message-end","delta":{"finish_reason":"COMPLETE","usage":{}}}`,
	`{"type":"message-end","delta":{"finish_reason":"COMPLETE","usage":null}}`,
	`{"type":"message-end","delta":{"usage":{"tokens":{"input_tokens":1.5}}}}`,
	`{"type":"message-end","delta":{"usage":{"tokens":{"input_tokens":-1}}}}`,
	`{"type":"message-end","delta":{"usage":{"tokens":{"input_tokens":1e400}}}}`,
	`{"type":"message-end","delta":{"usage":{"tokens":{"input_tokens":"1"}}}}`,
	`{"type":"message-end","delta":{"error":"boom","finish_reason":"ERROR"}}`,
	`{"type":"message-end","delta":{"finish_reason":"MAX_\u0054OKENS"}}`,
	`{"type":"message-end","delta":{"finish_reason":null}}`,
	`{"type":"message-end","delta":null}`,
	`{"type":"message-end"}`,
	`{"id":"r\u00e9","type":"message-start"}`,
	`{"id":"\ud800","type":"message-start"}`,
	"{\"id\":\"r\xff\",\"type\":\"message-start\"}",
	"{\"id\":\"r\xff\",\"type\":\"message-end\"}",
	`{"id":5,"type":"message-start"}`,
	`{"id":null,"type":"message-start"}`,
	`{"type":"message-start","id":"r2","delta":{"message":{"role":"assistant","content":[],"tool_plan":"","tool_calls":[],"citations":[]}}}`,
	// The exact bytes api.cohere.com sends, and near misses.
	`{"type":"content-delta","index":3,"delta":{"message":{"content":{"text":"a\"b"}}}}`,
	`{"type":"content-delta","index":3,"delta":{"message":{"content":{"text":"a"}}}}}`,
	`{"type":"content-delta","index":3,"delta":{"message":{"content":{"text":"a"}}}`,
	`{"type":"content-delta","index":3,"delta":{"message":{"content":{"text":"a"},"x":1}}}`,
	`{"type":"tool-plan-delta","delta":{"message":{"tool_plan":"a"}}}}`,
	`{"type":"tool-plan-delta","delta":{"message":{"tool_plan":"a"},"tool_plan":"b"}}`,
	`{"type":"tool-plan-delta","delta":{"message":{"tool_plan":"a"}},"delta":{}}`,
	`{"type":"tool-call-delta","index": 12 ,"delta":{"message":{"tool_calls":{"function":{"arguments":"x"}}}}}`,
	`{"type":"tool-call-delta","index":12,"delta":{"message":{"tool_calls":{"function":{"arguments":"x" }}}}}`,
	`{"type":"tool-call-delta","index":12,"delta":{"message":{"tool_calls":{"function":{"arguments":"x"}}}}}}`,
	`{"type":"tool-call-delta","index":12,"delta":{"message":{"tool_calls":{"function":{"arguments":"x"}}}}`,
	`{"type":"tool-call-delta","index":12,"delta":{"message":{"tool_calls":{"function":{"arguments":"x"}}}},"index":1}`,
	`{"type":"tool-call-delta","index":1e1,"delta":{"message":{"tool_calls":{"function":{"arguments":"x"}}}}}`,
	`{"type":"tool-call-delta","index":,"delta":{"message":{"tool_calls":{"function":{"arguments":"x"}}}}}`,
	`{"type":"tool-call-delta","index":1,"delta":{"message":{"tool_calls":{"function":{"arguments":null}}}}}`,
	`{"type":"tool-call-delta","index":1,"delta":{"message":{"tool_calls":{"function":{"arguments":"a` + "\n" + `"}}}}}`,
	"{\"type\":\"tool-call-delta\",\"index\":1,\"delta\":{\"message\":{\"tool_calls\":{\"function\":{\"arguments\":\"a\nb\"}}}}}",
	"{\"type\":\"tool-call-delta\",\"index\":1,\"delta\":{\"message\":{\"tool_calls\":{\"function\":{\"arguments\":\"a\xffb\"}}}}}",
	// Type, index and keys outside the subset.
	`{"type":"tool-call-end"}`,
	`{"type":"tool-call-end","index":-1}`,
	`{"type":"tool-call-end","index":1.0}`,
	`{"type":"tool-call-end","index":1e2}`,
	`{"type":"tool-call-end","index":01}`,
	`{"type":"tool-call-end","index":9999999999}`,
	`{"type":"tool-call-end","index":99999999999999999999}`,
	`{"type":"tool-call-end","index":"1"}`,
	`{"type":"tool-call-end","index":null}`,
	`{"type":"tool-call-\u0065nd","index":0}`,
	`{"type":"something-else","index":0}`,
	`{"type":null}`,
	`{"type":5}`,
	`{"index":0}`,
	`{}`,
	`{"Type":"tool-call-end","index":0}`,
	`{"type":"tool-call-end","INDEX":3,"index":0}`,
	`{"type":"tool-call-end","index":0,"index":1}`,
	`{"type":"tool-call-end","type":"tool-call-start","index":0}`,
	`{"type":"tool-call-end","\u0069ndex":0}`,
	`{"type":"tool-call-end","index":0,"extra":{"a":[1,{"b":null}]}}`,
	`{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"x","Arguments":"y"}}}}}`,
	`{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"x","arguments":"y"}}}}}`,
	`{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"x"}}},"Message":{}}}`,
	` { "type" : "tool-call-delta" , "index" : 0 , "delta" : { "message" : { "tool_calls" : { "function" : { "arguments" : "x" } } } } } `,
	"\v{\"type\":\"tool-call-end\",\"index\":0}",
	"{\"type\":\"tool-call-end\",\"index\":0}\u00a0",
	// Syntax errors and other values.
	`{"type":"tool-call-end","index":0`,
	`{"type":"tool-call-end","index":0}}`,
	`{"type":"tool-call-end","index":0} x`,
	`{"type":"tool-call-end",}`,
	`{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"a` + "\t" + `b"}}}}}`,
	`{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"\x"}}}}}`,
	`{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"\u12"}}}}}`,
	`[1]`,
	`"x"`,
	`null`,
	`[DONE]`,
	`x`,
	strings.Repeat(`{"a":`, 200) + "1" + strings.Repeat("}", 200),
	`{"type":"citation-start","delta":{"message":{"citations":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}}}`,
}

// TestFastPathCases: every edge case decodes the same with and without
// the fast path, alone, with event lines, and after a call's start.
func TestFastPathCases(t *testing.T) {
	for i, p := range fastCases {
		checkSame(t, fmt.Sprintf("case %d alone", i), sseBody(false, p))
		checkSame(t, fmt.Sprintf("case %d named", i), sseBody(true, p, p))
		checkSame(t, fmt.Sprintf("case %d after a start", i), caseStream(p))
	}
}

// TestFastPathTaken: the fast path decodes every event of a typical
// stream, which is what makes it worth having.
func TestFastPathTaken(t *testing.T) {
	body := sseBody(true, msgStart, planI, callStart(0, "c1", "f", `""`), callDelta(0, `{"a":`), callDelta(0, `"caf\u00e9"}`), callEnd(0),
		`{"type":"message-end","delta":{"finish_reason":"TOOL_CALL","usage":{"billed_units":{"input_tokens":23,"output_tokens":41},"tokens":{"input_tokens":906,"output_tokens":77}}}}`)
	if hits := fastHits(t, body); hits != 7 {
		t.Errorf("fast path decoded %d of 7 events", hits)
	}
}

// TestToolPlanUTF8: a tool plan, streamed text like content deltas, keeps
// a character split between deltas whole and refuses a byte that is not
// UTF-8, on both paths, instead of replacing it with U+FFFD.
func TestToolPlanUTF8(t *testing.T) {
	plan := func(s string) string {
		return `{"type":"tool-plan-delta","delta":{"message":{"tool_plan":"` + s + `"}}}`
	}
	end := `{"type":"message-end","delta":{"finish_reason":"COMPLETE"}}`
	for _, fast := range []bool{false, true} {
		a := New()
		a.slowOnly = !fast
		resp, err := core.Collect(a.DecodeStream(bytes.NewReader(sseBody(false, plan("Z\xc3"), plan("\xa4ri"), end))))
		if err != nil || len(resp.Message.Parts) != 1 || resp.Message.Parts[0].Text != "Zäri" {
			t.Errorf("fast %v: split character: parts %+v, error %v; want one plan \"Zäri\"", fast, resp.Message.Parts, err)
		}
		_, err = core.Collect(a.DecodeStream(bytes.NewReader(sseBody(false, plan("a\xffb"), end))))
		if !errors.Is(err, core.ErrInvalidUTF8) {
			t.Errorf("fast %v: invalid byte: error %v, want one wrapping core.ErrInvalidUTF8", fast, err)
		}
	}
}

// FuzzFastPath: for any payload, alone and twice after a call's start,
// the fast path changes nothing the stream yields.
func FuzzFastPath(f *testing.F) {
	for _, p := range fastCases {
		f.Add(p)
	}
	for _, body := range adaptertest.RecordedStreams(f, "cohere") {
		for _, line := range strings.Split(string(body), "\n") {
			if p, ok := strings.CutPrefix(line, "data: "); ok {
				f.Add(p)
			}
		}
	}
	f.Fuzz(func(t *testing.T, p string) {
		checkSame(t, "alone", sseBody(false, p))
		checkSame(t, "after a start", caseStream(p))
	})
}

// BenchmarkFastPath decodes a stream of a call's start, 300 argument and
// plan deltas and its end, every event on the fast path; allocs/op are
// per stream.
func BenchmarkFastPath(b *testing.B) {
	payloads := []string{msgStart, callStart(0, "c1", "f", `""`)}
	for i := range 300 {
		if i%3 == 2 {
			payloads = append(payloads, planI)
			continue
		}
		payloads = append(payloads, callDelta(0, `{"city": "caf\u00e9 \"x\"`))
	}
	payloads = append(payloads, callEnd(0), `{"type":"message-end","delta":{"finish_reason":"TOOL_CALL"}}`)
	body := sseBody(true, payloads...)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if hits := fastHits(b, body); hits != len(payloads) {
			b.Fatalf("fast path took %d of %d events", hits, len(payloads))
		}
	}
}
