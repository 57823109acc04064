package anthropic

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// decodeWith decodes a whole stream with the fast path on or off, as
// DecodeStream does otherwise, and returns its events, the facts of the
// error that ended it (zero at io.EOF) and how many events the fast path
// decoded.
func decodeWith(a *Adapter, body []byte, fast bool) ([]core.Event, adaptertest.ErrorFacts, int) {
	st := a.newStream(bytes.NewReader(body))
	st.noFast = !fast
	evs, errFacts := adaptertest.DrainFacts(st)
	return evs, errFacts, st.fastHits
}

// checkSame fails when the fast path changes anything the stream yields:
// events, their order, or the error that ends the stream. It returns the
// number of events the fast path decoded.
func checkSame(t adaptertest.Fataler, a *Adapter, name string, body []byte) int {
	t.Helper()
	return adaptertest.CheckFastPath(t, name, "events", body, func(body []byte, fast bool) ([]core.Event, adaptertest.ErrorFacts, int) {
		return decodeWith(a, body, fast)
	})
}

// fastStreams are the recorded Anthropic streams and typicalStream.
func fastStreams(t testing.TB) [][]byte {
	streams, _ := adaptertest.ResponseBodies(t, "anthropic", adaptertest.IsSSE)
	if len(streams) < 15 {
		t.Fatalf("only %d recorded streams", len(streams))
	}
	return append(streams, typicalStream(20))
}

// TestFastPathCorpus: on every recorded stream the fast path yields what
// the general path yields, and it decodes nearly all recorded events.
func TestFastPathCorpus(t *testing.T) {
	a := New()
	hits, events := 0, 0
	for i, body := range fastStreams(t) {
		hits += checkSame(t, a, fmt.Sprintf("stream %d", i), body)
		events += bytes.Count(body, []byte("\ndata:")) + bytes.Count(body[:min(len(body), 5)], []byte("data:"))
	}
	// A fast path that stopped taking events would still pass the
	// comparison above.
	if hits*10 < events*9 {
		t.Errorf("fast path decoded %d of %d recorded events, want at least 90%%", hits, events)
	}
	t.Logf("fast path decoded %d of %d events", hits, events)
}

// typicalStream is a stream of a thinking block, a text block and a
// tool_use block with n deltas each, framed as Anthropic frames them.
func typicalStream(n int) []byte {
	var b strings.Builder
	ev := func(s string) {
		typ := s[9 : strings.IndexByte(s[9:], '"')+9]
		b.WriteString("event: " + typ + "\ndata: " + s + "\n\n")
	}
	ev(`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`)
	ev(`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`)
	for i := range n {
		ev(fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"th\u00efnk %d \"q\"\n"}}`, i))
	}
	ev(`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDYjQ="}}`)
	ev(`{"type":"content_block_stop","index":0}`)
	ev(`{"type": "ping"}`)
	ev(`{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`)
	for i := range n {
		ev(fmt.Sprintf(`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"w\u00e9rd %d "}}`, i))
	}
	ev(`{"type":"content_block_stop","index":1}`)
	ev(`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}`)
	ev(`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}`)
	for i := range n {
		ev(fmt.Sprintf(`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"k%d\""}}`, i))
	}
	ev(`{"type":"content_block_stop","index":2}`)
	ev(`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}`)
	ev(`{"type":"message_stop"}`)
	return []byte(b.String())
}

// TestDeltaAsSentRecorded: every recorded content_block_delta of a form
// deltaAsSent knows, padded with spaces before its last brace as Anthropic
// pads many, is read by comparing bytes.
func TestDeltaAsSentRecorded(t *testing.T) {
	streams, _ := adaptertest.ResponseBodies(t, "anthropic", adaptertest.IsSSE)
	read, padded := 0, 0
	for _, body := range streams {
		for line := range strings.SplitSeq(string(body), "\n") {
			data, ok := strings.CutPrefix(line, "data: ")
			data = strings.TrimSpace(data)
			if !ok || !strings.HasPrefix(data, deltaPrefix) || !strings.Contains(data, `,"delta":{"type":"`) || strings.Contains(data, "signature_delta") || strings.Contains(data, "citations_delta") {
				continue
			}
			var f fastEvent
			if !deltaAsSent([]byte(data), &f) {
				t.Errorf("deltaAsSent refuses %s", data)
			}
			read++
			if !strings.HasSuffix(data, "}}") {
				padded++
			}
		}
	}
	if padded == 0 || read == padded {
		t.Errorf("%d recorded deltas read, %d of them padded: want both kinds", read, padded)
	}
}

// TestFastPathTaken: the fast path decodes every event of a typical
// stream, which is what makes it worth having.
func TestFastPathTaken(t *testing.T) {
	body := typicalStream(100)
	if hits, want := checkSame(t, New(), "typical", body), bytes.Count(body, []byte("data: ")); hits != want {
		t.Errorf("fast path decoded %d events, want all %d", hits, want)
	}
}

// TestFastPathSplit: the fast path reads event data as a view of the
// decoder's buffer; cut into random reads, every recorded stream still
// decodes with it as the general path decodes the stream whole.
func TestFastPathSplit(t *testing.T) {
	streams := fastStreams(t)
	a := New()
	want := make([][]core.Event, len(streams))
	wantErr := make([]adaptertest.ErrorFacts, len(streams))
	for i, body := range streams {
		want[i], wantErr[i], _ = decodeWith(a, body, false)
	}
	adaptertest.CheckSplitMatches(t, streams, want, wantErr, a.DecodeStream)
}

// fastStart opens a message, a text, a thinking and a tool_use block
// (indexes 0, 1, 2), a tool_use block with a populated start input (3)
// and a provider-run block (4), so that a case after it meets open blocks
// of every kind.
const fastStart = `{"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":3}}}` + "\n\ndata: " +
	`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\ndata: " +
	`{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":""}}` + "\n\ndata: " +
	`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}` + "\n\ndata: " +
	`{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_2","name":"g","input":{"a":1}}}` + "\n\ndata: " +
	`{"type":"content_block_start","index":4,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}`

// fastEnd stops the blocks fastStart opened and ends the message, so that
// a case before it meets the A18 check and the held-back call ends.
const fastEnd = `{"type":"content_block_stop","index":0}` + "\n\ndata: " +
	`{"type":"content_block_stop","index":1}` + "\n\ndata: " +
	`{"type":"content_block_stop","index":2}` + "\n\ndata: " +
	`{"type":"content_block_stop","index":3}` + "\n\ndata: " +
	`{"type":"content_block_stop","index":4}` + "\n\ndata: " +
	`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}` + "\n\ndata: " +
	`{"type":"message_stop"}`

// fastCases are payloads at the edge of the fast path's subset, each
// decoded by both paths.
var fastCases = []string{
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"h\u00e9llo \"x\""}}`,
	`{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"a\tb"}}`,
	`{"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"sig"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"a\\n\u00e9\ud83d\ude00"}}`,
	`{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"a\":1}"}}`,
	`{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"a\":2}"}}`,
	`{"type":"content_block_delta","index":4,"delta":{"type":"input_json_delta","partial_json":"{\"q\":1}"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta"}}`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":null}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"x"}}}`,
	`{"type":"content_block_delta","index":9,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":0}`,
	`{"type":"content_block_delta","index":0,"delta":null}`,
	`{"delta":{"text":"late type","type":"text_delta"},"index":0,"type":"content_block_delta"}`,
	` { "type" : "content_block_delta" , "index" : 0 , "delta" : { "type" : "text_delta" , "text" : "a" } } `,
	`{"type":"content_block_stop","index":0}`,
	`{"type":"content_block_stop","index":2}`,
	`{"type":"content_block_stop","index":3}`,
	`{"type":"content_block_stop","index":4}`,
	`{"type":"content_block_stop","index":7}`,
	`{"type":"content_block_stop"}`,
	`{"type":"content_block_start","index":5,"content_block":{"type":"text","text":"start text"}}`,
	`{"type":"content_block_start","index":5,"content_block":{"type":"thinking","thinking":"t","signature":"s"}}`,
	`{"type":"content_block_start","index":5,"content_block":{"type":"redacted_thinking","data":"opaque"}}`,
	`{"type":"content_block_start","index":5,"content_block":{"type":"tool_use","id":"toolu_9","name":"h","input":{}}}`,
	`{"type":"content_block_start","index":5,"content_block":{"type":"tool_use","id":"toolu_9","name":"h","input":{ "b" : [1, 2] }}}`,
	`{"type":"content_block_start","index":5,"content_block":{"type":"tool_use","id":"toolu_9","name":"h","input":null}}`,
	`{"type":"content_block_start","index":5,"content_block":{"type":"tool_use","id":"toolu_9","name":"h"}}`,
	`{"type":"content_block_start","index":5,"content_block":{"type":"tool_use","id":"toolu_1","name":"h","input":{}}}`,
	`{"type":"content_block_start","index":5,"content_block":{"type":"tool_use","id":"","name":"h","input":{}}}`,
	`{"type":"content_block_start","index":5,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]}}`,
	`{"type":"content_block_start","index":5,"content_block":{"type":"text","text":"","citations":[]}}`,
	`{"type":"content_block_start","index":5,"content_block":{"type":"x"}}`,
	`{"type":"content_block_start","index":5,"content_block":{}}`,
	`{"type":"content_block_start","index":5,"content_block":null}`,
	`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
	`{"type":"content_block_start","content_block":{"type":"text","text":""}}`,
	`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}`,
	`{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"input_tokens":4,"output_tokens":89}}`,
	`{"type":"message_delta","delta":{"stop_reason":null},"usage":null}`,
	`{"type":"message_delta","delta":{"stop_reason":"end_turn"}}`,
	`{"type":"message_delta","usage":{"output_tokens":1,"server_tool_use":{"web_search_requests":1}}}`,
	`{"type":"message_delta","delta":null}`,
	`{"type":"message_delta","delta":{"stop_reason":5}}`,
	`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":-1}}`,
	`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":null}}`,
	`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":1.5}}`,
	`{"type":"message_start","message":{"id":"msg_2","type":"message","role":"assistant","model":"claude","content":[],"usage":{"input_tokens":7,"output_tokens":1}}}`,
	`{"type":"message_start","message":{}}`,
	`{"type":"message_start"}`,
	`{"type":"message_start","message":null}`,
	`{"type":"message_start","message":{"id":5}}`,
	`{"type":"message_start","message":{"usage":{"input_tokens":null}}}`,
	`{"type":"message_stop"}`,
	`{"type":"message_stop","index":0}`,
	`{"type": "ping"}`,
	`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
	`{"type":"ping","error":{"type":"x"}}`,
	`{"type":"future_event","data":1}`,
	// Escapes, surrogates and bytes that are not UTF-8.
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\ud83d"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\ude00\ud83d"}}`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"\ud83dx\u0041\/"}}`,
	"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\xff\xfe split \xe2\x82\"}}",
	"{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"\xff\"}}",
	`{"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"\ud800"}}`,
	"{\"type\":\"content_block_start\",\"index\":5,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\xff\",\"name\":\"h\"}}",
	"{\"type\":\"content_block_start\",\"index\":5,\"content_block\":{\"type\":\"text\",\"text\":\"\xe2\x82\"}}",
	"{\"type\":\"message_start\",\"message\":{\"id\":\"\xff\",\"model\":\"m\"}}",
	"{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"\xff\"}}",
	"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\tb\"}}",
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\x"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_\u0064elta","text":"x"}}`,
	`{"type":"content_\u0062lock_delta","index":0,"delta":{"type":"text_delta","text":"x"}}`,
	// The bytes as sent (deltaAsSent) and near misses of them.
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"a\": 1"}}`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"x"}}}`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"x"} }`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"x"}`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"x"}      }`,
	"{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"x\"}\t\r }",
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"x" }}`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"x"}   }}`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"x"} , }`,
	"{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"x\"}\u00a0}",
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"x","partial_json":"y"}}`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"x"},"index":3}`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":5}}`,
	`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"x`,
	`{"type":"content_block_delta","index": 2,"delta":{"type":"input_json_delta","partial_json":"x"}}`,
	`{"type":"content_block_delta","index":02,"delta":{"type":"input_json_delta","partial_json":"x"}}`,
	`{"type":"content_block_delta","index":2.5,"delta":{"type":"input_json_delta","partial_json":"x"}}`,
	`{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"\ud83d\ude00"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\ud83d"}}`,
	"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\xe2\x82\"}}",
	// Numbers: only small plain integers are indexes.
	`{"type":"content_block_delta","index":00,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":0.0,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":-0,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":0e0,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":99999999999999999999,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":null,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":"0","delta":{"type":"text_delta","text":"x"}}`,
	// Values of other types, which the general path decides.
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":5}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":{"a":1}}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","signature":7}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","thinking":[1]}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":7,"text":"x"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":null,"text":"x"}}`,
	`{"type":"content_block_delta","index":0,"delta":[]}`,
	`{"type":null,"index":0}`,
	`{"type":"","index":0}`,
	`{"type":7}`,
	`{"index":0}`,
	`{}`,
	`[1,2]`,
	`"ping"`,
	// Repeated, case-folded and escaped keys.
	`{"type":"content_block_delta","index":0,"index":2,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","text":"y"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"},"delta":{"type":"text_delta","text":"y"}}`,
	`{"type":"content_block_delta","Index":2,"index":0,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","Text":"y","text":"x"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","STOP_REASON":"y"}}`,
	`{"TYPE":"message_stop","type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":0,"\u0064elta":{"type":"text_delta","text":"x"}}`,
	"{\"type\":\"content_block_delta\",\"index\":0,\"\xc4\xb0ndex\":2,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}",
	`{"type":"content_block_start","index":5,"content_block":{"type":"tool_use","ID":"a","id":"b","name":"h"}}`,
	`{"type":"message_start","message":{"id":"a","Model":"b"}}`,
	// Fields the fast path does not read but the general path decodes.
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"},"usage":{"output_tokens":1}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"},"usage":5}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"},"message":{"id":"z"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"},"content_block":{"type":"text"}}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"},"error":null}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","stop_reason":"max_tokens"}}`,
	// Syntax errors.
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}} x`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"},}`,
	`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}`,
	`{"type":"content_block_delta" "index":0,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":0,"extra":[1 2],"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":0,"extra":{"a":1,},"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":0,"extra":tru,"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_start","index":5,"content_block":{"type":"tool_use","id":"t","name":"h","input":{"a":}}}`,
	`{"type":"content_block_delta","index":0,"extra":{"a":[true,false,null,{"b":[]}],"c":-0.5E-2},"delta":{"type":"text_delta","text":"x"}}`,
	`{"type":"content_block_delta","index":0,"extra":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `,"delta":{"type":"text_delta","text":"x"}}`,
	"\u00a0{\"type\":\"ping\"}\u0085",
}

// TestFastPathCases: every edge case decodes the same with and without
// the fast path, alone, twice after blocks of every kind were opened, once
// between their start and their end,
// with and without an SSE event name, and with a small A18 bound.
func TestFastPathCases(t *testing.T) {
	small := New(WithMaxEventSize(1 << 10))
	long := `{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"` + strings.Repeat("x", 600) + `"}}`
	for _, a := range []*Adapter{New(WithMaxBlocks(6)), small} {
		for i, p := range append(fastCases, long) {
			name := fmt.Sprintf("case %d", i)
			checkSame(t, a, name, []byte("data: "+p+"\n\n"))
			checkSame(t, a, name+" with event name", []byte("event: content_block_delta\ndata: "+p+"\n\n"))
			checkSame(t, a, name+" after a start", []byte("data: "+fastStart+"\n\ndata: "+p+"\n\ndata: "+p+"\n\n"))
			checkSame(t, a, name+" in a message", []byte("data: "+fastStart+"\n\ndata: "+p+"\n\ndata: "+fastEnd+"\n\n"))
		}
	}
}

// typeField matches a "type" member with its string value.
var typeField = regexp.MustCompile(`"type":"[^"]*"`)

// FuzzFastPath: for any payload, alone, twice after blocks of every kind
// were opened and once between their start and their end, the fast path
// changes nothing the stream yields.
func FuzzFastPath(f *testing.F) {
	for _, p := range fastCases {
		f.Add(p)
	}
	streams, _ := adaptertest.ResponseBodies(f, "anthropic", adaptertest.IsSSE)
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
	a := New(WithMaxBlocks(8), WithMaxEventSize(1<<12))
	f.Fuzz(func(t *testing.T, p string) {
		checkSame(t, a, "alone", []byte("data: "+p+"\n\n"))
		checkSame(t, a, "after a start", []byte("data: "+fastStart+"\n\ndata: "+p+"\n\ndata: "+p+"\n\n"))
		checkSame(t, a, "in a message", []byte("data: "+fastStart+"\n\ndata: "+p+"\n\ndata: "+fastEnd+"\n\n"))
	})
}

// TestManyBlocks: blocks past the four kept in place and ids past the
// list a streamdec.SmallMap keeps are tracked as the first ones are: a repeated id is
// core.ErrDuplicateCallID and a block past WithMaxBlocks is core.ErrTooLarge, on both
// paths, and a block index may be started again once stopped.
func TestManyBlocks(t *testing.T) {
	stream := func(n int, repeat string) []byte {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "data: {\"type\":\"content_block_start\",\"index\":%d,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_%d\",\"name\":\"f\",\"input\":{}}}\n\n", i, i)
			fmt.Fprintf(&b, "data: {\"type\":\"content_block_stop\",\"index\":%d}\n\n", i)
		}
		fmt.Fprintf(&b, "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":%q,\"name\":\"f\",\"input\":{}}}\n\n", repeat)
		b.WriteString("data: {\"type\":\"content_block_stop\",\"index\":0}\n\ndata: {\"type\":\"message_stop\"}\n\n")
		return []byte(b.String())
	}
	tests := []struct {
		name    string
		a       *Adapter
		body    []byte
		want    error
		wantEnd int // call ends before the error
	}{
		{"new id on a stopped index", New(), stream(20, "toolu_new"), nil, 21},
		{"id repeated within the list", New(), stream(5, "toolu_3"), core.ErrDuplicateCallID, 5},
		{"id repeated past the list", New(), stream(20, "toolu_1"), core.ErrDuplicateCallID, 20},
		{"id repeated past the list, last", New(), stream(20, "toolu_19"), core.ErrDuplicateCallID, 20},
		{"more blocks than allowed", New(WithMaxBlocks(6)), stream(7, "toolu_new"), core.ErrTooLarge, 6},
	}
	for _, tt := range tests {
		checkSame(t, tt.a, tt.name, tt.body)
		events, err := adaptertest.Drain(tt.a.DecodeStream(bytes.NewReader(tt.body)))
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: error %v, want %v", tt.name, err, tt.want)
		}
		ends := 0
		for _, e := range events {
			if e.Kind == core.EventCallEnd {
				ends++
			}
		}
		if ends != tt.wantEnd {
			t.Errorf("%s: %d calls ended, want %d", tt.name, ends, tt.wantEnd)
		}
	}
}

// BenchmarkFastPath decodes typicalStream(100), 300 deltas, with the fast
// path; the numbers are per stream, except allocs/delta: the allocations
// of 3000 more deltas (typicalStream(1010) against typicalStream(10)) per
// delta, which removes the cost of the stream itself.
func BenchmarkFastPath(b *testing.B) {
	a := New()
	adaptertest.BenchFastPath(b, func(body []byte, fast bool) ([]core.Event, adaptertest.ErrorFacts, int) {
		return decodeWith(a, body, fast)
	}, typicalStream, 100, bytes.Count(typicalStream(100), []byte("data: ")), 3000, "allocs/delta")
}

// TestReusedDecoder: a decoder that DecodeStream hands back to the next
// stream once its stream ended changes neither the events of the streams
// before, kept by their reader, nor those of the streams after: every
// recorded stream, decoded three times in turn through DecodeStream, in
// random read sizes, yields what a decoder of its own yields, and io.EOF
// again after its end.
func TestReusedDecoder(t *testing.T) {
	streams := fastStreams(t)
	a := New()
	want := make([][]core.Event, len(streams))
	wantErr := make([]adaptertest.ErrorFacts, len(streams))
	for i, body := range streams {
		want[i], wantErr[i], _ = decodeWith(a, body, true)
	}
	adaptertest.CheckReusedDecoder(t, streams, want, wantErr, a.DecodeStream)
}
