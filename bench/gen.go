package bench

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
)

// Call is a tool call as every subject rebuilds it: the provider's call id,
// the tool name and the argument text exactly as streamed.
type Call struct {
	ID   string
	Name string
	Args string
}

// MakeArgs returns the JSON text of a deterministic argument object of at
// least n bytes: a file path, a mode and a content string of numbered lines
// holding quotes, backslashes and newlines, so that the text needs escaping
// when it travels inside a JSON string, as real arguments do. The text is
// ASCII, so splitting it at any byte keeps every delta valid UTF-8.
func MakeArgs(seed, n int) string {
	var b strings.Builder
	b.Grow(n + 64)
	fmt.Fprintf(&b, `{"path":"src/pkg%d/file_%d.go","mode":"overwrite","content":"`, seed, seed)
	for line := 1; b.Len() < n-2; line++ {
		fmt.Fprintf(&b, `line %05d of call %d: x := \"a\\tb\" // %s\n`, line, seed, strings.Repeat("ab", line%7))
	}
	b.WriteString(`"}`)
	return b.String()
}

// TinyCall is the call of the tiny stream: 20 bytes of arguments, the
// size of a typical lookup, whose cost is mostly per-stream setup.
func TinyCall() Call {
	return Call{ID: "call_000000000000000000007919", Name: "get_weather", Args: `{"city":"Paris, FR"}`}
}

// MakeCalls returns n calls with distinct ids and names whose arguments are
// at least argBytes bytes each.
func MakeCalls(n, argBytes int) []Call {
	calls := make([]Call, n)
	names := []string{"write_file", "run_tests", "search_code", "edit_file"}
	for i := range calls {
		calls[i] = Call{
			ID:   fmt.Sprintf("call_%024d", 7919*(i+1)),
			Name: names[i%len(names)],
			Args: MakeArgs(i, argBytes),
		}
	}
	return calls
}

// delta is one argument delta of one call.
type delta struct {
	call int
	text string
}

// interleave splits every call's arguments into deltas of size bytes and
// orders them round robin: call 0, 1, 2, 3, 0, 1, ... until each is spent.
func interleave(calls []Call, size int) []delta {
	var out []delta
	for off := 0; ; off += size {
		more := false
		for i, c := range calls {
			if off >= len(c.Args) {
				continue
			}
			more = true
			out = append(out, delta{call: i, text: c.Args[off:min(off+size, len(c.Args))]})
		}
		if !more {
			return out
		}
	}
}

// quote returns s as a JSON string.
func quote(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // a string always marshals
	}
	return string(b)
}

// The envelope fields every generated stream repeats, taken from the shape
// of the recorded OpenAI, Anthropic and Responses traffic.
const (
	chatID      = "chatcmpl-Bx7Rk2Qm9TzLw4VnHc8Yp1Ds6Fg0J"
	chatModel   = "gpt-4o-2024-08-06"
	fingerprint = "fp_4fa7959453"
	created     = 1782321900
	msgID       = "msg_01XFDUDYJgAACzvnptvVoYEL"
	claudeModel = "claude-sonnet-4-20250514"
	respID      = "resp_68af4030592c81938ec0a5fbab4a3e9f05438e46b5f69a3b"
)

// ChatStream writes calls as an OpenAI Chat Completions stream: a role
// chunk, a start chunk per call (id, type, name, empty arguments), the
// argument deltas of size bytes interleaved across calls, a finish chunk, a
// usage chunk and data: [DONE]. Every chunk carries the full envelope (id,
// object, created, model, system_fingerprint, choices with index, delta,
// logprobs and finish_reason), as OpenAI sends it.
func ChatStream(calls []Call, size int) []byte {
	var b strings.Builder
	head := fmt.Sprintf(`data: {"id":%q,"object":"chat.completion.chunk","created":%d,"model":%q,"service_tier":"default","system_fingerprint":%q,"usage":null,"choices":[{"index":0,"delta":`, chatID, created, chatModel, fingerprint)
	tail := `,"logprobs":null,"finish_reason":null}]}` + "\n\n"
	b.WriteString(head + `{"role":"assistant","content":null,"refusal":null}` + tail)
	for i, c := range calls {
		fmt.Fprintf(&b, `%s{"tool_calls":[{"index":%d,"id":%q,"type":"function","function":{"name":%q,"arguments":""}}]}%s`, head, i, c.ID, c.Name, tail)
	}
	for _, d := range interleave(calls, size) {
		b.WriteString(head)
		b.WriteString(`{"tool_calls":[{"index":`)
		b.WriteString(strconv.Itoa(d.call))
		b.WriteString(`,"function":{"arguments":`)
		b.WriteString(quote(d.text))
		b.WriteString(`}}]}`)
		b.WriteString(tail)
	}
	b.WriteString(head + `{},"logprobs":null,"finish_reason":"tool_calls"}]}` + "\n\n")
	fmt.Fprintf(&b, `data: {"id":%q,"object":"chat.completion.chunk","created":%d,"model":%q,"service_tier":"default","system_fingerprint":%q,"choices":[],"usage":{"prompt_tokens":1187,"completion_tokens":%d,"total_tokens":%d}}`+"\n\n", chatID, created, chatModel, fingerprint, 2000, 3187)
	b.WriteString("data: [DONE]\n\n")
	return []byte(b.String())
}

// AnthropicStream writes calls as an Anthropic Messages stream:
// message_start, a content_block_start per tool_use block, the
// input_json_delta events of size bytes interleaved across blocks (each
// names its block by index, so interleaving is expressible on this wire),
// a content_block_stop per block, message_delta with stop_reason tool_use
// and message_stop. Each event has its event: line, as Anthropic sends it.
func AnthropicStream(calls []Call, size int) []byte {
	var b strings.Builder
	ev := func(typ, data string) {
		b.WriteString("event: ")
		b.WriteString(typ)
		b.WriteString("\ndata: ")
		b.WriteString(data)
		b.WriteString("\n\n")
	}
	ev("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":%q,"type":"message","role":"assistant","model":%q,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1187,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}}}`, msgID, claudeModel))
	for i, c := range calls {
		ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, i, anthropicID(c.ID), c.Name))
	}
	for _, d := range interleave(calls, size) {
		ev("content_block_delta", `{"type":"content_block_delta","index":`+strconv.Itoa(d.call)+`,"delta":{"type":"input_json_delta","partial_json":`+quote(d.text)+`}}`)
	}
	for i := range calls {
		ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
	}
	ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":2000}}`)
	ev("message_stop", `{"type":"message_stop"}`)
	return []byte(b.String())
}

// cohereMessageID is the id of the generated Cohere response, in the
// UUID form Cohere's message-start carries.
const cohereMessageID = "35c028fc-0223-47b6-8fae-ebd3255e9a63"

// CohereStream writes calls as a Cohere v2 chat stream: message-start,
// a tool-call-start per call (id, type, name, empty arguments), the
// tool-call-delta events of size bytes interleaved across calls (each
// names its call by index, so interleaving is expressible on this wire), a
// tool-call-end per call and message-end with finish_reason TOOL_CALL and
// usage. Each event has its event: line and a payload whose type repeats
// it, as api.cohere.com sends them (the recorded streams of the corpus).
func CohereStream(calls []Call, size int) []byte {
	var b strings.Builder
	ev := func(typ, rest string) {
		b.WriteString("event: ")
		b.WriteString(typ)
		b.WriteString("\ndata: {")
		b.WriteString(rest)
		b.WriteString("}\n\n")
	}
	ev("message-start", fmt.Sprintf(`"id":%q,"type":"message-start","delta":{"message":{"role":"assistant","content":[],"tool_plan":"","tool_calls":[],"citations":[]}}`, cohereMessageID))
	for i, c := range calls {
		ev("tool-call-start", fmt.Sprintf(`"type":"tool-call-start","index":%d,"delta":{"message":{"tool_calls":{"id":%q,"type":"function","function":{"name":%q,"arguments":""}}}}`, i, c.ID, c.Name))
	}
	for _, d := range interleave(calls, size) {
		ev("tool-call-delta", `"type":"tool-call-delta","index":`+strconv.Itoa(d.call)+`,"delta":{"message":{"tool_calls":{"function":{"arguments":`+quote(d.text)+`}}}}`)
	}
	for i := range calls {
		ev("tool-call-end", fmt.Sprintf(`"type":"tool-call-end","index":%d`, i))
	}
	ev("message-end", `"type":"message-end","delta":{"finish_reason":"TOOL_CALL","usage":{"billed_units":{"input_tokens":1187,"output_tokens":2000},"tokens":{"input_tokens":1187,"output_tokens":2000}}}`)
	return []byte(b.String())
}

// anthropicID turns a generated call id into the toolu_ form Anthropic uses.
func anthropicID(id string) string { return "toolu_" + strings.TrimPrefix(id, "call_") }

// responsesItemID is the fc_ item id of call i.
func responsesItemID(i int) string { return fmt.Sprintf("fc_68af40317%040d", i) }

// ResponsesStream writes calls as an OpenAI Responses stream:
// response.created, an output_item.added per function_call item, the
// function_call_arguments.delta events of size bytes interleaved across
// items (each names its item id and output index), then per item
// function_call_arguments.done and output_item.done with the whole
// arguments, and response.completed with the output, as OpenAI sends it.
// Every event has its event: line and a sequence_number.
func ResponsesStream(calls []Call, size int) []byte {
	seq := 0
	var s strings.Builder
	emit := func(typ, rest string) {
		s.WriteString("event: ")
		s.WriteString(typ)
		s.WriteString("\ndata: {\"type\":\"")
		s.WriteString(typ)
		s.WriteString("\",\"sequence_number\":")
		s.WriteString(strconv.Itoa(seq))
		s.WriteString(rest)
		s.WriteString("}\n\n")
		seq++
	}
	resp := func(status, output string) string {
		return fmt.Sprintf(`{"id":%q,"object":"response","created_at":%d,"status":%q,"model":"gpt-4.1-2025-04-14","output":[%s],"parallel_tool_calls":true,"tool_choice":"auto","usage":%s}`, respID, created, status, output, map[bool]string{true: `{"input_tokens":1187,"output_tokens":2000,"total_tokens":3187}`, false: "null"}[status == "completed"])
	}
	item := func(i int, c Call, status, args string) string {
		return fmt.Sprintf(`{"id":%q,"type":"function_call","status":%q,"arguments":%s,"call_id":%q,"name":%q}`, responsesItemID(i), status, quote(args), c.ID, c.Name)
	}
	emit("response.created", `,"response":`+resp("in_progress", ""))
	for i, c := range calls {
		emit("response.output_item.added", fmt.Sprintf(`,"output_index":%d,"item":%s`, i, item(i, c, "in_progress", "")))
	}
	for _, d := range interleave(calls, size) {
		emit("response.function_call_arguments.delta", `,"item_id":"`+responsesItemID(d.call)+`","output_index":`+strconv.Itoa(d.call)+`,"delta":`+quote(d.text))
	}
	var out []string
	for i, c := range calls {
		emit("response.function_call_arguments.done", fmt.Sprintf(`,"item_id":%q,"output_index":%d,"arguments":%s`, responsesItemID(i), i, quote(c.Args)))
		it := item(i, c, "completed", c.Args)
		emit("response.output_item.done", fmt.Sprintf(`,"output_index":%d,"item":%s`, i, it))
		out = append(out, it)
	}
	emit("response.completed", `,"response":`+resp("completed", strings.Join(out, ",")))
	return []byte(s.String())
}

// BedrockStream writes calls as a Bedrock ConverseStream body, in AWS
// event-stream frames: messageStart, a contentBlockStart per toolUse
// block, the toolUse input deltas of size bytes interleaved across blocks
// (each names its block by contentBlockIndex), a contentBlockStop per
// block, messageStop with stopReason tool_use and metadata with usage.
// Every payload carries the "p" padding field Bedrock adds, and every
// frame the :event-type, :content-type and :message-type headers.
func BedrockStream(calls []Call, size int) []byte {
	var b []byte
	pad := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	ev := func(typ, payload string, n int) {
		p := `,"p":"` + pad[:8+n%50] + `"}`
		b = appendFrame(b, typ, payload+p)
	}
	ev("messageStart", `{"role":"assistant"`, 0)
	for i, c := range calls {
		ev("contentBlockStart", fmt.Sprintf(`{"contentBlockIndex":%d,"start":{"toolUse":{"toolUseId":%q,"name":%q}}`, i, c.ID, c.Name), i)
	}
	for n, d := range interleave(calls, size) {
		ev("contentBlockDelta", `{"contentBlockIndex":`+strconv.Itoa(d.call)+`,"delta":{"toolUse":{"input":`+quote(d.text)+`}}`, n)
	}
	for i := range calls {
		ev("contentBlockStop", fmt.Sprintf(`{"contentBlockIndex":%d`, i), i)
	}
	ev("messageStop", `{"stopReason":"tool_use"`, 1)
	ev("metadata", `{"usage":{"inputTokens":1187,"outputTokens":2000,"totalTokens":3187},"metrics":{"latencyMs":2314}`, 2)
	return b
}

// appendFrame appends one AWS event-stream event frame: the prelude
// (total length, headers length, their CRC-32), the string headers
// :event-type, :content-type and :message-type, the payload and the
// CRC-32 of everything before it.
func appendFrame(b []byte, eventType, payload string) []byte {
	var h []byte
	for _, kv := range [][2]string{{":event-type", eventType}, {":content-type", "application/json"}, {":message-type", "event"}} {
		h = append(h, byte(len(kv[0])))
		h = append(h, kv[0]...)
		h = append(h, 7) // string
		h = binary.BigEndian.AppendUint16(h, uint16(len(kv[1])))
		h = append(h, kv[1]...)
	}
	start := len(b)
	b = binary.BigEndian.AppendUint32(b, uint32(12+len(h)+len(payload)+4))
	b = binary.BigEndian.AppendUint32(b, uint32(len(h)))
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
	b = append(append(b, h...), payload...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// The envelope of the generated Gemini and Ollama streams.
const (
	geminiModel  = "gemini-2.5-flash"
	geminiRespID = "ZmVkY2JhOTg3NjU0MzIxMA"
	ollamaModel  = "qwen3:8b"
)

// GeminiStream writes calls as a Gemini streamGenerateContent SSE stream
// (alt=sse): Gemini sends each call whole, one functionCall part with its
// args object, so the stream is one chunk per call, the last with
// finishReason STOP. Every chunk carries usageMetadata, modelVersion and
// responseId, as Gemini sends them; each call carries its id.
func GeminiStream(calls []Call) []byte {
	var b strings.Builder
	for i, c := range calls {
		finish := ""
		if i == len(calls)-1 {
			finish = `,"finishReason":"STOP"`
		}
		fmt.Fprintf(&b, `data: {"candidates":[{"content":{"parts":[{"functionCall":{"id":%q,"name":%q,"args":%s}}],"role":"model"}%s,"index":0}],"usageMetadata":{"promptTokenCount":1187,"candidatesTokenCount":%d,"totalTokenCount":%d,"promptTokensDetails":[{"modality":"TEXT","tokenCount":1187}]},"modelVersion":%q,"responseId":%q}`+"\r\n\r\n",
			c.ID, c.Name, c.Args, finish, 500*(i+1), 1187+500*(i+1), geminiModel, geminiRespID)
	}
	return []byte(b.String())
}

// OllamaStream writes calls as an Ollama /api/chat NDJSON stream: Ollama
// sends each call whole (its arguments an object, with the id and
// function.index newer versions add), one line per call, then the done
// line with done_reason, durations and counts. Every line carries model
// and created_at, as Ollama sends them.
func OllamaStream(calls []Call) []byte {
	var b strings.Builder
	for i, c := range calls {
		fmt.Fprintf(&b, `{"model":%q,"created_at":"2026-05-27T22:54:57.%06dZ","message":{"role":"assistant","content":"","tool_calls":[{"id":%q,"function":{"index":%d,"name":%q,"arguments":%s}}]},"done":false}`+"\n",
			ollamaModel, 641643+i*32000, c.ID, i, c.Name, c.Args)
	}
	fmt.Fprintf(&b, `{"model":%q,"created_at":"2026-05-27T22:54:57.873559Z","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"total_duration":2574817166,"load_duration":1381166750,"prompt_eval_count":1187,"prompt_eval_duration":683174792,"eval_count":2000,"eval_duration":509125708}`+"\n", ollamaModel)
	return []byte(b.String())
}

// Lines counts the lines of an NDJSON stream that hold more than white
// space: its events.
func Lines(body []byte) int {
	n := 0
	for line := range bytes.SplitSeq(body, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 {
			n++
		}
	}
	return n
}

// Events counts the SSE events of a stream: the blocks that hold a data
// line.
func Events(body []byte) int {
	n := 0
	inData := false
	for _, line := range strings.Split(string(body), "\n") {
		line = strings.TrimSuffix(line, "\r")
		switch {
		case line == "":
			if inData {
				n++
			}
			inData = false
		case strings.HasPrefix(line, "data:"):
			inData = true
		}
	}
	if inData {
		n++
	}
	return n
}

// Frames counts the AWS event-stream frames of a Bedrock stream by their
// total-length preludes. It stops at the first length that is too short
// for a frame or runs past the end of the body, counting what is left as
// one frame, so that a cut body still counts its whole frames.
func Frames(body []byte) int {
	const minFrame = 16 // prelude (12 bytes) and message CRC (4 bytes)
	n := 0
	for len(body) > 0 {
		if len(body) < minFrame {
			return n + 1
		}
		size := binary.BigEndian.Uint32(body[:4])
		if size < minFrame || uint64(size) > uint64(len(body)) {
			return n + 1
		}
		n++
		body = body[size:]
	}
	return n
}

// ArrayElements counts the elements of a JSON array body, the form of a
// Gemini streamGenerateContent response sent without alt=sse, in which
// each element is one chunk. It counts the elements read before the first
// syntax error, and 0 for a body that is not an array.
func ArrayElements(body []byte) int {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return 0
	}
	n := 0
	for dec.More() {
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			break
		}
		n++
	}
	return n
}

// StreamEvents counts the events of a recorded stream of protocol, the
// unit of the allocs/event figure: AWS event-stream frames for Bedrock,
// array elements for a Gemini body in the one-JSON-array form, lines for
// Ollama's NDJSON, SSE events otherwise.
func StreamEvents(protocol string, body []byte) int {
	switch {
	case protocol == Bedrock:
		return Frames(body)
	case protocol == Gemini && bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")):
		return ArrayElements(body)
	case protocol == Ollama:
		return Lines(body)
	}
	return Events(body)
}
