package openairesponses

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// decodeWith decodes a whole stream with the fast path on or off and
// returns its events, the facts of the error that ended it (zero at io.EOF)
// and how many events the fast path decoded.
func decodeWith(a *Adapter, body []byte, fast bool) ([]core.Event, adaptertest.ErrorFacts, int) {
	st := a.newStream(bytes.NewReader(body))
	st.noFast = !fast
	evs, errFacts := adaptertest.DrainFacts(st)
	return evs, errFacts, st.fastHits
}

// checkSame fails when the fast path changes anything the stream yields:
// events, their order, or the error that ends the stream. It returns the
// number of events the fast path decoded.
func checkSame(t adaptertest.Fataler, name string, body []byte) int {
	t.Helper()
	a := New(WithMaxItems(64))
	return adaptertest.CheckFastPath(t, name, "events", body, func(body []byte, fast bool) ([]core.Event, adaptertest.ErrorFacts, int) {
		return decodeWith(a, body, fast)
	})
}

// TestFastPathCorpus: on every recorded stream the fast path yields what
// the general path yields, and it decodes most of the recorded events.
func TestFastPathCorpus(t *testing.T) {
	streams, _ := adaptertest.ResponseBodies(t, "openai-responses", adaptertest.IsSSE)
	if len(streams) < 20 {
		t.Fatalf("only %d recorded streams", len(streams))
	}
	hits, events := 0, 0
	for i, body := range streams {
		hits += checkSame(t, fmt.Sprintf("stream %d", i), body)
		events += bytes.Count(body, []byte("\ndata:")) + bytes.Count(body[:min(len(body), 5)], []byte("data:"))
	}
	// The delta events are most of every recorded stream; a fast path that
	// stopped taking them would still pass the comparison above.
	if hits*2 < events {
		t.Errorf("fast path decoded %d of %d recorded events, want at least half", hits, events)
	}
	t.Logf("%d streams, fast path decoded %d of %d events", len(streams), hits, events)
}

// typicalStream is a stream of one text item and one call with n argument
// and text deltas each, framed as OpenAI frames them.
func typicalStream(n int) []byte {
	var b strings.Builder
	ev := func(s string) {
		b.WriteString("event: " + s[9:strings.IndexByte(s[9:], '"')+9] + "\ndata: " + s + "\n\n")
	}
	ev(`{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","model":"gpt-x","status":"in_progress","output":[]}}`)
	ev(`{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","content":[],"role":"assistant"}}`)
	ev(`{"type":"response.content_part.added","sequence_number":2,"item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}}`)
	for i := range n {
		ev(fmt.Sprintf(`{"type":"response.output_text.delta","sequence_number":%d,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"w\u00e9rd %d \"q\" ","logprobs":[],"obfuscation":"abc"}`, 3+i, i))
	}
	ev(`{"type":"response.output_item.added","sequence_number":900,"output_index":1,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"f"}}`)
	for i := range n {
		ev(fmt.Sprintf(`{"type":"response.function_call_arguments.delta","sequence_number":%d,"item_id":"fc_1","output_index":1,"delta":"{\"k%d\"","obfuscation":"xyz"}`, 901+i, i))
	}
	ev(`{"type":"response.completed","sequence_number":2000,"response":{"id":"resp_1","object":"response","model":"gpt-x","status":"completed","output":[],"usage":{"input_tokens":5,"output_tokens":7}}}`)
	return []byte(b.String())
}

// TestFastPathTaken: the fast path and the envelope scanner decode every
// event of a typical stream, which is what makes them worth having.
func TestFastPathTaken(t *testing.T) {
	if hits := checkSame(t, "typical", typicalStream(100)); hits != 205 {
		t.Errorf("fast path decoded %d events, want all 205", hits)
	}
}

// TestFastPathSplit: the fast path reads event data as a view of the
// decoder's buffer; cut into random reads, every recorded stream still
// decodes with it as the general path decodes the stream whole.
func TestFastPathSplit(t *testing.T) {
	streams, _ := adaptertest.ResponseBodies(t, "openai-responses", adaptertest.IsSSE)
	streams = append(streams, typicalStream(20))
	a := New()
	want := make([][]core.Event, len(streams))
	wantErr := make([]adaptertest.ErrorFacts, len(streams))
	for i, body := range streams {
		want[i], wantErr[i], _ = decodeWith(a, body, false)
	}
	adaptertest.CheckSplitMatches(t, streams, want, wantErr, a.DecodeStream)
}

// fastCases are payloads at the edge of the fast path's subset, each
// decoded by both paths.
var fastCases = []string{
	`{"type":"response.function_call_arguments.delta","sequence_number":3,"item_id":"fc_1","output_index":1,"delta":"{\"a\\n\u00e9\ud83d\ude00","obfuscation":"x"}`,
	`{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"h\u00e9llo \"x\"","logprobs":[]}`,
	`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","output_index":0,"summary_index":0,"delta":"**Think**"}`,
	`{"type":"response.reasoning_text.delta","item_id":"rs_1","output_index":0,"content_index":0,"delta":"a\tb"}`,
	`{"delta":"late type","item_id":"fc_1","type":"response.function_call_arguments.delta"}`,
	`{"type":"response.function_call_arguments.delta","delta":"no item, no index"}`,
	`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0}`,
	`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":""}`,
	`{"type":"response.output_text.delta","delta":""}`,
	` { "type" : "response.output_text.delta" , "delta" : "a" } `,
	`{"type":"response.content_part.added","item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","annotations":[],"text":""}}`,
	`{"type":"response.output_text.done","item_id":"msg_1","output_index":0,"content_index":0,"text":"whole","logprobs":[]}`,
	`{"type":"keepalive"}`,
	`{"type":"response.apply_patch_call_operation_diff.delta","item_id":"apc_1","output_index":0,"delta":"@@ -1 +1 @@"}`,
	`{"type":"response.content_part.done","delta":5}`,
	// Escapes, surrogates and bytes that are not UTF-8.
	`{"type":"response.output_text.delta","delta":"\ud83d"}`,
	`{"type":"response.output_text.delta","delta":"\ude00\ud83d"}`,
	`{"type":"response.output_text.delta","delta":"\ud83dx\u0041\/"}`,
	"{\"type\":\"response.output_text.delta\",\"delta\":\"\xff\xfe split \xe2\x82\"}",
	"{\"type\":\"response.reasoning_text.delta\",\"item_id\":\"rs_\xff\",\"delta\":\"x\"}",
	`{"type":"response.reasoning_text.delta","item_id":"rs_\u00e9","delta":"x"}`,
	`{"type":"response.reasoning_text.delta","item_id":"rs_\ud800","delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","item_id":"fc\"1","delta":"x"}`,
	"{\"type\":\"response.output_text.delta\",\"delta\":\"a\tb\"}",
	`{"type":"response.output_text.delta","delta":"\x"}`,
	`{"type":"response.output_text.delta","delta":"\u12"}`,
	"{\"type\":\"response.output_text.delta\",\"obfuscation\":\"\xff\",\"delta\":\"a\"}",
	// Numbers: only small plain integers are output indexes.
	`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":01,"delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1.0,"delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":-1,"delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1e0,"delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":99999999999999999999,"delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":123456789,"delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":null,"delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":"1","delta":"x"}`,
	`{"type":"response.output_text.delta","sequence_number":-1.5e+3,"delta":"a"}`,
	`{"type":"response.output_text.delta","sequence_number":1.,"delta":"a"}`,
	`{"type":"response.output_text.delta","sequence_number":1,"sequence_number":2,"content_index":0,"logprobs":[],"obfuscation":"x","delta":"a"}`,
	`{"type":"response.output_text.delta","sequence_number":[1 2],"delta":"a"}`,
	`{"type":"response.output_text.delta","Sequence_Number":1,"delta":"a"}`,
	`{"type":"response.completed","sequence_number":3,"sequence_number":4,"response":{"status":"completed"}}`,
	`{"type":"response.completed","sequence_number":{"a":},"response":{"status":"completed"}}`,
	// Values of other types, which the general path decides.
	`{"type":"response.output_text.delta","delta":null}`,
	`{"type":"response.output_text.delta","delta":5}`,
	`{"type":"response.output_text.delta","delta":{"a":1}}`,
	`{"type":"response.function_call_arguments.delta","item_id":null,"delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","item_id":7,"delta":"x"}`,
	`{"type":null,"delta":"x"}`,
	`{"type":"","delta":"x"}`,
	`{"type":7,"delta":"x"}`,
	`{"delta":"x"}`,
	`{}`,
	`[1,2]`,
	`"response.output_text.delta"`,
	// Repeated, case-folded and escaped keys.
	`{"type":"response.output_text.delta","delta":"a","delta":"b"}`,
	`{"type":"response.output_text.delta","type":"response.output_text.delta","delta":"a"}`,
	`{"type":"response.reasoning_text.delta","item_id":"a","item_id":"b","delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","output_index":1,"output_index":2,"delta":"x"}`,
	`{"type":"response.output_text.delta","Delta":"b","delta":"a"}`,
	`{"type":"response.output_text.delta","delta":"a","DELTA":"b"}`,
	`{"TYPE":"response.completed","type":"response.output_text.delta","delta":"a"}`,
	`{"type":"response.function_call_arguments.delta","Item_ID":"other","item_id":"fc_1","delta":"x"}`,
	`{"type":"response.output_text.delta","\u0064elta":"b"}`,
	"{\"type\":\"response.output_text.delta\",\"\xc4\xb0tem_id\":\"x\",\"delta\":\"a\"}",
	`{"type":"response.output_text\u002edelta","delta":"a"}`,
	// Fields the fast path does not read but the general path decodes.
	`{"type":"response.output_text.delta","delta":"a","response":5}`,
	`{"type":"response.output_text.delta","delta":"a","response":{"id":"r"}}`,
	`{"type":"response.output_text.delta","delta":"a","item":{"type":"function_call"}}`,
	`{"type":"response.output_text.delta","delta":"a","error":{"message":"boom"}}`,
	`{"type":"response.output_text.delta","delta":"a","arguments":"x","code":1,"message":"m"}`,
	// Syntax errors.
	`{"type":"response.output_text.delta","delta":"a"} x`,
	`{"type":"response.output_text.delta","delta":"a",}`,
	`{"type":"response.output_text.delta","delta":"a"`,
	`{"type":"response.output_text.delta" "delta":"a"}`,
	`{"type":"response.output_text.delta","extra":[1 2],"delta":"a"}`,
	`{"type":"response.output_text.delta","extra":{"a":1,},"delta":"a"}`,
	`{"type":"response.output_text.delta","extra":tru,"delta":"a"}`,
	`{"type":"response.output_text.delta","extra":nul,"delta":"a"}`,
	`{"type":"response.output_text.delta","extra":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],"delta":"a"}`,
	`{"type":"response.output_text.delta","extra":{"a":[true,false,null,{"b":[]}],"c":-0.5E-2},"delta":"a"}`,
	`{"type":"response.output_text.delta","delta":"a` + "\u00a0",
	"\u00a0{\"type\":\"response.output_text.delta\",\"delta\":\"a\"}\u0085",
	// Envelope events, which the envelope scanner decodes, and shapes it
	// leaves to encoding/json.
	`{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":1,"arguments":"{}"}`,
	`{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":1,"arguments":"{\"a\":\"\u00e9\ud83d\"}"}`,
	`{"type":"response.function_call_arguments.done","item_id":"fc_1","arguments":{"a":1}}`,
	`{"type":"response.function_call_arguments.done","item_id":"fc_1","arguments":null}`,
	`{"type":"response.function_call_arguments.done","item_id":"fc_9","output_index":null}`,
	`{"type":"error","code":"x","message":"boom"}`,
	`{"type":"error","code":null,"message":"boom","param":null}`,
	`{"type":"error","error":{"type":"server_error","message":"boom"}}`,
	`{"type":"response.created","sequence_number":0,"response":{"id":"resp_2","object":"response","created_at":1,"status":"in_progress","model":"gpt-x","output":[],"tools":[{"type":"function","name":"f","parameters":{"type":"object"},"strict":true}],"usage":null,"error":null,"incomplete_details":null,"instructions":null,"metadata":{}}}`,
	`{"type":"response.in_progress","response":{"id":"resp_3","model":"m2","output":[{"type":"message","id":"m","role":"assistant","content":[{"type":"output_text","text":"x"}],"status":"completed"}]}}`,
	`{"type":"response.queued","response":{"id":"resp_3","model":"m2"}}`,
	`{"type":"response.created","response":null}`,
	`{"type":"response.created","response":{"id":5}}`,
	`{"type":"response.created","response":{"id":"r","output":[null]}}`,
	`{"type":"response.created","response":{"id":"r","output":{}}}`,
	`{"type":"response.created","response":{"id":"r","Model":"x"}}`,
	"{\"type\":\"response.created\",\"response\":{\"id\":\"r\xff\",\"model\":\"m\"}}",
	`{"type":"response.created","response":{"id":"r\ud800","model":"m"}}`,
	`{"type":"response.created","response":{"id":"r","model":"m","error":{"message":"x"}}}`,
	`{"type":"response.output_item.added","output_index":2,"item":{"id":"fc_2","type":"function_call","status":"in_progress","arguments":"","call_id":"call_2","name":"g"}}`,
	`{"type":"response.output_item.added","output_index":2,"item":{"id":"fc_2","type":"function_call","arguments":"{\"partial\":","call_id":"call_2","name":"g"}}`,
	`{"type":"response.output_item.added","output_index":2,"item":{"id":"fc_3","type":"function_call","call_id":"call_1","name":"g"}}`,
	`{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":null}}`,
	`{"type":"response.output_item.added","output_index":0,"item":{"id":"msg_2","type":"message","status":"in_progress","content":[],"role":"assistant"}}`,
	`{"type":"response.output_item.added","output_index":0}`,
	`{"type":"response.output_item.added","output_index":0,"item":null}`,
	`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_4","call_id":"call_4","name":7}}`,
	`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_4","call_id":"call_4","summary":[{"type":1}]}}`,
	`{"type":"response.output_item.done","output_index":1,"item":{"id":"fc_1","type":"function_call","status":"completed","arguments":"{\"a\":1}","call_id":"call_1","name":"f"}}`,
	`{"type":"response.output_item.done","output_index":1,"item":{"id":"fc_1","type":"function_call","status":"incomplete","arguments":"{","call_id":"call_1","name":"f"}}`,
	`{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"t"},null],"encrypted_content":"gAAAA=="}}`,
	`{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":""}}`,
	`{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[{"id":"fc_1","type":"function_call","status":"completed","arguments":"{}","call_id":"call_1","name":"f"}],"usage":{"input_tokens":5,"input_tokens_details":{"cached_tokens":0},"output_tokens":7,"total_tokens":12}}}`,
	`{"type":"response.incomplete","response":{"id":"resp_1","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":5,"output_tokens":null}}}`,
	`{"type":"response.completed","response":{"usage":{"input_tokens":-5}}}`,
	`{"type":"response.completed","response":{"usage":{"input_tokens":1.5}}}`,
	`{"type":"response.completed","response":{"incomplete_details":{"reason":5}}}`,
	`{"type":"response.completed"}`,
	`{"type":"response.failed","response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"boom"}}}`,
	`{"type":"response.completed","response":{"status":"completed"},"response":{"status":"failed"}}`,
	`{"type":"response.completed","response":{"status":"completed","STATUS":"failed"}}`,
}

// TestFastPathCases: every edge case decodes the same with and without
// the fast path, alone, as the first event, and twice after the start of
// a response and of a call, with and without an SSE event name.
func TestFastPathCases(t *testing.T) {
	start := `{"type":"response.created","response":{"id":"resp_1","model":"m"}}` + "\n\ndata: " +
		`{"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":""}}`
	for i, p := range fastCases {
		name := fmt.Sprintf("case %d", i)
		checkSame(t, name, []byte("data: "+p+"\n\n"))
		checkSame(t, name+" with event name", []byte("event: response.output_text.delta\ndata: "+p+"\n\n"))
		checkSame(t, name+" after a start", []byte("data: "+start+"\n\ndata: "+p+"\n\ndata: "+p+"\n\n"))
	}
}

// typeField matches a "type" member with its string value.
var typeField = regexp.MustCompile(`"type":"[^"]*"`)

// FuzzFastPath: for any payload, alone and twice after the start of a
// response and a call, the fast path changes nothing the stream yields.
func FuzzFastPath(f *testing.F) {
	for _, p := range fastCases {
		f.Add(p)
	}
	streams, _ := adaptertest.ResponseBodies(f, "openai-responses", adaptertest.IsSSE)
	seen := map[string]bool{}
	for _, body := range streams {
		for line := range strings.SplitSeq(string(body), "\n") {
			// One seed per shape: the first event of each pair of
			// its first two types (the event's and its delta's,
			// block's or item's) in the recorded streams.
			p, ok := strings.CutPrefix(line, "data: ")
			shape := strings.Join(typeField.FindAllString(p, 2), " ")
			if ok && !seen[shape] {
				seen[shape] = true
				f.Add(p)
			}
		}
	}
	start := `{"type":"response.created","response":{"id":"resp_1","model":"m"}}` + "\n\ndata: " +
		`{"type":"response.output_item.added","output_index":1,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":""}}`
	f.Fuzz(func(t *testing.T, p string) {
		checkSame(t, "alone", []byte("data: "+p+"\n\n"))
		checkSame(t, "after a start", []byte("data: "+start+"\n\ndata: "+p+"\n\ndata: "+p+"\n\n"))
	})
}

// BenchmarkFastPath decodes typicalStream(150), 300 deltas, with the fast
// path; the numbers are per stream, except allocs/delta: the allocations
// of 2000 more deltas (typicalStream(1010) against typicalStream(10)) per
// delta, which removes the cost of the stream itself and of the events
// that take the general path (the general path costs about a dozen per
// delta).
func BenchmarkFastPath(b *testing.B) {
	a := New()
	adaptertest.BenchFastPath(b, func(body []byte, fast bool) ([]core.Event, adaptertest.ErrorFacts, int) {
		return decodeWith(a, body, fast)
	}, typicalStream, 150, 305, 2000, "allocs/delta")
}
