package bedrock

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// decoded is what a stream yields: its events, the error that ended it
// (nil for io.EOF), and how many frames and payloads the fast path read.
type decoded struct {
	events []core.Event
	err    error
	// anthropic counts the Anthropic events inside chunk frames.
	frames, payloads, anthropic int
}

// decodeWith decodes a whole stream, read through r, as DecodeStream does,
// with the fast path on or off.
func decodeWith(r io.Reader, fast bool) decoded {
	st := New(WithMaxFrameSize(1 << 16)).newStream(r)
	st.fr.general, st.fast.off = !fast, !fast
	var d decoded
	for len(d.events) <= adaptertest.MaxDrainEvents {
		ev, err := st.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			d.err = err
			break
		}
		d.events = append(d.events, ev)
	}
	d.frames, d.payloads, d.anthropic = st.fr.hits, st.fast.hits, st.fast.anHits
	return d
}

// factsOf returns the facts of a stream error, bedrock's own sentinels
// among those it may wrap.
func factsOf(err error) adaptertest.ErrorFacts {
	return adaptertest.FactsOf(err, ErrChecksum, ErrInputConflict)
}

// checkSame fails when the fast path changes anything a stream yields:
// events, their order, or the error that ends it, the stream read whole.
// It returns the fast decode.
func checkSame(t interface {
	Helper()
	Fatalf(string, ...any)
}, name string, body []byte) decoded {
	t.Helper()
	slow := decodeWith(bytes.NewReader(body), false)
	if slow.frames+slow.payloads != 0 {
		t.Fatalf("%s: fast path read %d frames and %d payloads while turned off", name, slow.frames, slow.payloads)
	}
	fast := decodeWith(bytes.NewReader(body), true)
	if diff := cmp.Diff(slow.events, fast.events); diff != "" {
		t.Fatalf("%s: fast path changes the events (-general +fast):\n%s", name, diff)
	}
	if diff := cmp.Diff(factsOf(slow.err), factsOf(fast.err)); diff != "" {
		t.Fatalf("%s: fast path changes the error (-general +fast):\n%s", name, diff)
	}
	return fast
}

// TestFastPathCorpus: on every recorded stream the fast path yields what
// the general path yields, and reads every frame and payload.
func TestFastPathCorpus(t *testing.T) {
	streams := adaptertest.RecordedStreams(t, "bedrock")
	if len(streams) < 7 {
		t.Fatalf("only %d recorded streams", len(streams))
	}
	frames, payloads, all, anthropic, chunks := 0, 0, 0, 0, 0
	for i, body := range streams {
		d := checkSame(t, fmt.Sprintf("stream %d", i), body)
		frames, payloads, all = frames+d.frames, payloads+d.payloads, all+countFrames(body)
		anthropic, chunks = anthropic+d.anthropic, chunks+bytes.Count(body, []byte(`{"bytes":`))
	}
	if frames != all {
		t.Errorf("fast path read %d of %d recorded frames", frames, all)
	}
	if payloads != all || anthropic != chunks {
		t.Errorf("fast path decoded %d payloads of %d recorded frames and %d Anthropic events of %d chunks, want every one", payloads, all, anthropic, chunks)
	}
	t.Logf("%d streams, %d frames, %d payloads, %d Anthropic events on the fast path", len(streams), frames, payloads, anthropic)
}

// countFrames counts the frames of a well-formed stream.
func countFrames(body []byte) int {
	n := 0
	for len(body) >= 4 {
		body = body[binary.BigEndian.Uint32(body):]
		n++
	}
	return n
}

// TestFastPathCut: every frame of every recorded stream and of the fast
// cases, cut after each of its bytes, ends alike on both paths: the same
// truncation error. A cut frame yields no event whatever came before it,
// so each frame is cut alone; each stream is also cut after every whole
// frame, where the events before the cut must agree.
func TestFastPathCut(t *testing.T) {
	bodies := append(adaptertest.RecordedStreams(t, "bedrock"), fastStream(t))
	for i, body := range bodies {
		for at := 0; at < len(body); {
			end := len(body)
			if at+4 <= len(body) {
				end = min(end, at+int(binary.BigEndian.Uint32(body[at:])))
			}
			if end <= at {
				end = len(body)
			}
			for n := at; n < end; n++ {
				checkSame(t, fmt.Sprintf("stream %d, frame at %d cut at %d", i, at, n), body[at:n])
			}
			checkSame(t, fmt.Sprintf("stream %d cut at %d", i, end), body[:end])
			at = end
		}
	}
}

// TestFastPathSplit: the fast path reads frames from a reused buffer and
// payloads as views of it; cut into random reads, every recorded stream
// decodes with it as the general path decodes the stream whole.
func TestFastPathSplit(t *testing.T) {
	streams := append(adaptertest.RecordedStreams(t, "bedrock"), fastStream(t))
	want := make([][]core.Event, len(streams))
	wantErr := make([]adaptertest.ErrorFacts, len(streams))
	for i, body := range streams {
		d := decodeWith(bytes.NewReader(body), false)
		want[i], wantErr[i] = d.events, factsOf(d.err)
	}
	adaptertest.CheckSplitMatches(t, streams, want, wantErr, New(WithMaxFrameSize(1<<16)).DecodeStream)
}

// converseCases are ConverseStream payloads at the edge of the fast
// path's subset, each sent as the event type it names.
var converseCases = []struct {
	event, payload string
	fast           bool
}{
	{"messageStart", `{"p":"abcd","role":"assistant"}`, true},
	{"contentBlockStart", `{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"tooluse_1","name":"get_weather"}},"p":"ab"}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"city\":"}},"p":"abcdefgh"}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":"\"Z\u00fcrich \\\"x\\\" \ud83d\ude00\"}"}}}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":{"a":[1,2]}}}}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":null}}}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":5}}}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{}}}`, true},
	{"contentBlockStop", `{"contentBlockIndex":0,"p":"abc"}`, true},
	{"contentBlockStart", `{"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"s","name":"web","type":"server_tool_use"}}}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{}"}}}`, true},
	{"contentBlockStop", `{"contentBlockIndex":1}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":2,"delta":{"text":"Hello \u00e9 \ud800 \"q\""}}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":2,"delta":{"text":null}}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":2,"delta":{"text":7}}`, true},
	{"contentBlockDelta", "{\"contentBlockIndex\":2,\"delta\":{\"text\":\"split \xe2\x82\"}}", true},
	{"contentBlockDelta", "{\"contentBlockIndex\":2,\"delta\":{\"text\":\"\xac end\"}}", true},
	{"contentBlockDelta", `{"contentBlockIndex":3,"delta":{"reasoningContent":{"text":"think"}}}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":3,"delta":{"reasoningContent":{"signature":"c2ln"}}}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":3,"delta":{"reasoningContent":{"redactedContent":"cmVk"}}}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":3,"delta":{"reasoningContent":{"signature":null}}}`, false},
	{"contentBlockDelta", `{"contentBlockIndex":3,"delta":{}}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":3}`, true},
	{"contentBlockStop", `{"contentBlockIndex":3}`, true},
	// A frame larger than the reader's first buffer, which grows it.
	{"contentBlockDelta", `{"contentBlockIndex":2,"delta":{"text":"` + strings.Repeat("a long text delta ", 300) + `"},"p":"ab"}`, true},
	// At the edge of the verbatim delta shape.
	{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"a"},"p":"abc"}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"a"}}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"a"},"p":5}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"a"},"p":"x"} `, true},
	{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text": "a"}}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"a"}}}`, false},
	{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"a"},"p":"x"`, false},
	{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"a}`, false},
	{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"a"},"p":"x","p":"y"}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"a\":"}},"text":"b"}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":"a"}}`, false},
	{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":"a"},"x":1},"p":"q"}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":0.5,"delta":{"text":"a"}}`, false},
	{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":"\u00e9\ud800"}}}`, true},
	{"contentBlockDelta", "{\"contentBlockIndex\":0,\"delta\":{\"toolUse\":{\"input\":\"\xe2\x82\"}}}", true},
	{"contentBlockDelta", "{\"contentBlockIndex\":0,\"delta\":{\"toolUse\":{\"input\":\"\xac\"}}}", true},
	{"contentBlockDelta", "{\"contentBlockIndex\":0,\"delta\":{\"text\":\"a\"},\"p\":\"\xff\"}", false},
	// InvokeModel chunk payloads at the edge of the verbatim shape.
	{"chunk", `{"bytes":"eyJ0eXBlIjoiY29udGVudF9ibG9ja19kZWx0YSIsImluZGV4IjowLCJkZWx0YSI6eyJ0eXBlIjoidGV4dF9kZWx0YSIsInRleHQiOiJoaSJ9fQ==","p":"abcd"}`, true},
	{"chunk", `{"bytes":"eyJ0eXBlIjoiY29udGVudF9ibG9ja19kZWx0YSIsImluZGV4IjowLCJkZWx0YSI6eyJ0eXBlIjoidGV4dF9kZWx0YSIsInRleHQiOiJoaSJ9fQ=="}`, true},
	{"chunk", `{"bytes":"eyJ0eXBlIjoiY29udGVudF9ibG9ja19kZWx0YSIsImluZGV4IjowLCJkZWx0YSI6eyJ0eXBlIjoidGV4dF9kZWx0YSIsInRleHQiOiJoaSJ9fQ==","p":"abcd"} `, true},
	{"chunk", `{"bytes": "eyJ0eXBlIjoiY29udGVudF9ibG9ja19kZWx0YSIsImluZGV4IjowLCJkZWx0YSI6eyJ0eXBlIjoidGV4dF9kZWx0YSIsInRleHQiOiJoaSJ9fQ=="}`, true},
	{"chunk", `{"p":"abcd","bytes":"eyJ0eXBlIjoiY29udGVudF9ibG9ja19kZWx0YSIsImluZGV4IjowLCJkZWx0YSI6eyJ0eXBlIjoidGV4dF9kZWx0YSIsInRleHQiOiJoaSJ9fQ=="}`, true},
	{"chunk", `{"bytes":"eyJ0eXBl\nIjoicGluZyJ9"}`, false},
	{"chunk", `{"bytes":"eyJ0eXBlIjoicGluZyJ9\/"}`, false},
	{"chunk", `{"bytes":"eyJ0eXBlIjoicGluZyJ9=="}`, true},
	{"chunk", `{"bytes":"!!!!"}`, true},
	{"chunk", `{"bytes":""}`, true},
	{"chunk", `{"bytes":"eyJ0eXBlIjoicGluZyJ9","p":"x","q":1}`, true},
	{"chunk", `{"bytes":"eyJ0eXBlIjoicGluZyJ9",}`, false},
	{"chunk", "{\"bytes\":\"eyJ0eXBlIjoicGluZyJ9\n\"}", false},
	{"chunk", "{\"bytes\":\"\xffeyJ0eXBlIjoicGluZyJ9\"}", false},
	// Keys and numbers outside the subset.
	{"contentBlockStart", `{"contentBlockIndex":-1,"start":{"toolUse":{"toolUseId":"n","name":"neg"}}}`, false},
	{"contentBlockStop", `{"contentBlockIndex":-1}`, false},
	{"contentBlockStart", `{"ContentBlockIndex":4,"start":{"toolUse":{"toolUseId":"f","name":"fold"}}}`, false},
	{"contentBlockStop", `{"contentBlockIndex":4,"contentBlockIndex":4}`, false},
	{"contentBlockStart", `{"contentBlockIndex":5,"start":{"toolUse":{"toolUseId":"t\u00e9","name":"esc"}}}`, true},
	{"contentBlockDelta", `{"contentBlockIndex":5,"delta":{"toolUse":{"input":"{}"}},"message":"x"}`, false},
	{"contentBlockDelta", `{"contentBlockIndex":5,"delta":{"toolUse":{"input":"{}"}},"p":"` + "\xff" + `"}`, false},
	{"contentBlockDelta", `{"contentBlockIndex":05,"delta":{"toolUse":{"input":"{}"}}}`, false},
	{"contentBlockDelta", `{"contentBlockIndex":1e0,"delta":{"toolUse":{"input":"{}"}}}`, false},
	{"contentBlockDelta", `{"contentBlockIndex":"5","delta":{"toolUse":{"input":"{}"}}}`, false},
	{"contentBlockDelta", `{"contentBlockIndex":5,"delta":{"toolUse":{"input":"{}"}}} x`, false},
	{"contentBlockDelta", `{"contentBlockIndex":5,"delta":{"toolUse":{"input":"\x"}}}`, false},
	{"contentBlockStop", `{"contentBlockIndex":5}`, true},
	{"messageStop", `{"stopReason":"tool_use","additionalModelResponseFields":null}`, true},
	{"messageStop", `{"stopReason":null}`, false},
	{"messageStop", `{"stopReason":"\u0074ool_use"}`, true},
	{"metadata", `{"usage":{"inputTokens":843,"outputTokens":28,"totalTokens":871,"cacheReadInputTokens":0},"metrics":{"latencyMs":1200}}`, true},
	{"metadata", `{"usage":{"inputTokens":-1}}`, false},
	{"metadata", `{"usage":null}`, false},
}

// anthropicCases are Anthropic events at the edge of the fast path's
// subset, each sent base64-encoded in a chunk frame; fast says that the
// fast path decodes it.
var anthropicCases = []struct {
	event string
	fast  bool
}{
	{`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"output_tokens":1}}}`, true},
	{`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`, true},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi \u00e9 \"q\""}}`, true},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\ud800"}}`, false},
	{"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\xff\"}}", false},
	{`{"type":"content_block_stop","index":0}`, true},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\"b\u00e9\n"}}`, true},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}} `, true},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"},"x":1}`, true},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","x":1}}`, true},
	{`{"type":"content_block_delta","index":00,"delta":{"type":"text_delta","text":"a"}}`, false},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text": "a"}}`, true},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\udc00"}}`, false},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}`, true},
	{`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"x"}}}`, false},
	{`{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":"","signature":""}}`, true},
	{`{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"hmm"}}`, true},
	{`{"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"c2ln"}}`, true},
	{`{"type":"content_block_stop","index":1}`, true},
	{`{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}`, true},
	{`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}`, true},
	{`{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Paris\"}"}}`, true},
	{`{"type":"content_block_stop","index":2}`, true},
	{`{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_2","name":"f","input":{"a":1}}}`, true},
	{`{"type":"content_block_stop","index":3}`, true},
	{`{"type":"content_block_start","index":4,"content_block":{"type":"tool_use","id":"toolu_3","name":"f","input":{"a":1}}}`, true},
	{`{"type":"content_block_delta","index":4,"delta":{"type":"input_json_delta","partial_json":"{\"a\":2}"}}`, true},
	{`{"type":"content_block_stop","index":4}`, true},
	{`{"type":"content_block_start","index":5,"content_block":{"type":"redacted_thinking","data":"cmVk"}}`, true},
	{`{"type":"content_block_start","index":6,"content_block":{"type":"server_tool_use","id":"s","name":"web","input":null}}`, true},
	{`{"type":"content_block_start","index":7,"content_block":{"type":"tool_result","tool_use_id":"x","content":[]}}`, false},
	{`{"type":"content_block_start","index":8,"content_block":{"type":"text","text":null}}`, false},
	{`{"type":"content_block_start","index":-1,"content_block":{"type":"text","text":"neg"}}`, false},
	{`{"type":"content_block_start","Index":9,"content_block":{"type":"text","text":"fold"}}`, false},
	{`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":20}}`, true},
	{`{"type":"message_delta","delta":{"stop_reason":null},"usage":{"output_tokens":20}}`, true},
	{`{"type":"message_delta","usage":{"output_tokens":20}}`, true},
	{`{"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":10,"outputTokenCount":20,"invocationLatency":900,"firstByteLatency":300}}`, true},
	{`{"type":"error","error":{"type":"overloaded_error","message":"busy"}}`, false},
	{`{"type":"ping"}`, true},
	{`{"type":"message_stop"} {}`, false},
	{`{"type":`, false},
}

// fastStream is one stream of the frames of every case, Converse first,
// for the cut and split tests; it ends at the first case that is an error.
func fastStream(t testing.TB) []byte {
	var pairs, chunks []string
	for _, c := range converseCases {
		pairs = append(pairs, c.event, c.payload)
	}
	for _, c := range anthropicCases {
		chunks = append(chunks, c.event)
	}
	return append(frames(t, pairs...), chunkFrames(t, chunks...)...)
}

// TestFastPathCases: each case decodes alike on both paths, and the fast
// path decodes exactly the cases marked fast.
func TestFastPathCases(t *testing.T) {
	for i, c := range converseCases {
		d := checkSame(t, fmt.Sprintf("converse case %d %s", i, c.payload), frames(t, c.event, c.payload))
		if (d.payloads == 1) != c.fast {
			t.Errorf("converse case %d %s: fast path decoded %d payloads, want fast: %t", i, c.payload, d.payloads, c.fast)
		}
	}
	for i, c := range anthropicCases {
		d := checkSame(t, fmt.Sprintf("anthropic case %d %s", i, c.event), chunkFrames(t, c.event))
		if (d.anthropic == 1) != c.fast {
			t.Errorf("anthropic case %d %s: fast path decoded %d payloads, want fast: %t", i, c.event, d.payloads, c.fast)
		}
	}
}

// rawFrame writes a frame with the given header block and payload and
// correct CRCs.
func rawFrame(headers, payload []byte) []byte {
	total := preludeLen + len(headers) + len(payload) + 4
	b := make([]byte, 8, total)
	binary.BigEndian.PutUint32(b[0:], uint32(total))
	binary.BigEndian.PutUint32(b[4:], uint32(len(headers)))
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	b = append(append(b, headers...), payload...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// header writes one header: its name, type and value bytes.
func header(name string, typ byte, value ...byte) []byte {
	return append(append([]byte{byte(len(name))}, name...), append([]byte{typ}, value...)...)
}

// str writes a string header.
func str(name, value string) []byte {
	return header(name, 7, append(binary.BigEndian.AppendUint16(nil, uint16(len(value))), value...)...)
}

// TestFastPathHeaders: frames whose headers are of every value type,
// repeated, cut or unknown, and frames with a bad message CRC, decode
// alike on both paths; the fast path reads in place only those the AWS
// decoder reads whole.
func TestFastPathHeaders(t *testing.T) {
	payload := []byte(`{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"t","name":"n"}}}`)
	et := str(hdrEventType, "contentBlockStart")
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	every := cat(header("t", 0), header("f", 1), header("b", 2, 1), header("s", 3, 0, 1), header("i", 4, 0, 0, 0, 1),
		header("l", 5, make([]byte, 8)...), header("y", 6, 0, 2, 'h', 'i'), header("ts", 8, make([]byte, 8)...), header("u", 9, make([]byte, 16)...))
	tests := []struct {
		name    string
		headers []byte
		inPlace bool
	}{
		{"every type", cat(every, et, str(hdrMessageType, "event")), true},
		{"no message type", et, true},
		{"empty name", cat(header("", 0), et), true},
		{"repeated, last wins", cat(str(hdrEventType, "other"), et), true},
		{"repeated, last not a string", cat(et, header(hdrEventType, 6, 0, 1, 'x')), true},
		{"repeated message type", cat(et, str(hdrMessageType, "exception"), str(hdrMessageType, "event")), true},
		{"exception", cat(str(hdrMessageType, "exception"), str(hdrExceptionType, "ThrottlingException")), true},
		{"error", cat(str(hdrMessageType, "error"), str(hdrErrorCode, "E1"), str(hdrErrorMessage, "bad")), true},
		{"unknown message type", cat(str(hdrMessageType, "other"), et), true},
		{"unknown type", cat(et, header("x", 10)), false},
		{"value cut", cat(et, header("x", 4, 0, 0)), false},
		{"string cut", cat(et, header("x", 7, 0, 9, 'a')), false},
		{"string length cut", cat(et, header("x", 7, 0)), false},
		{"name cut", cat(et, []byte{5, 'a', 'b'}), false},
		{"name length alone", cat(et, []byte{5}), false},
		{"name without type", cat(et, []byte{1, 'a'}), false},
		{"empty name without type", cat(et, []byte{0}), false},
	}
	for _, tt := range tests {
		body := rawFrame(tt.headers, payload)
		d := checkSame(t, tt.name, body)
		if (d.frames == 1) != tt.inPlace {
			t.Errorf("%s: fast path read %d frames, want in place: %t", tt.name, d.frames, tt.inPlace)
		}
		bad := bytes.Clone(body)
		bad[len(bad)-1] ^= 1
		if d := checkSame(t, tt.name+", bad crc", bad); d.frames != 0 {
			t.Errorf("%s, bad crc: fast path read the frame", tt.name)
		}
	}
}

// FuzzFastPath checks that the fast path changes nothing a stream yields,
// on recorded streams, the edge cases, and whatever the fuzzer makes of
// them.
func FuzzFastPath(f *testing.F) {
	adaptertest.SeedCorpus(f, "bedrock", true)
	f.Add(fastStream(f))
	for _, c := range converseCases {
		f.Add(frames(f, c.event, c.payload))
	}
	for _, c := range anthropicCases {
		f.Add(chunkFrames(f, c.event))
	}
	f.Add(rawFrame(header("x", 7, 0, 9), nil))
	f.Fuzz(func(t *testing.T, body []byte) {
		checkSame(t, "input", body)
		// The same bytes as an Anthropic event in a chunk frame.
		payload := `{"bytes":"` + base64.StdEncoding.EncodeToString(body) + `"}`
		checkSame(t, "input as a chunk", frames(t, "chunk", payload))
	})
}
