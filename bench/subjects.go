package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"strings"
	"unsafe"

	anthropicsdk "github.com/anthropics/anthropic-sdk-go"
	anthropicsse "github.com/anthropics/anthropic-sdk-go/packages/ssestream"
	"github.com/openai/openai-go/v3"
	openaisse "github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
	goopenai "github.com/sashabaranov/go-openai"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/anthropic"
	"github.com/toolconform/conform/providers/bedrock"
	"github.com/toolconform/conform/providers/cohere"
	"github.com/toolconform/conform/providers/gemini"
	"github.com/toolconform/conform/providers/mistral"
	"github.com/toolconform/conform/providers/ollama"
	"github.com/toolconform/conform/providers/openaichat"
	"github.com/toolconform/conform/providers/openairesponses"
)

// The protocols the benchmarks cover.
const (
	OpenAIChat      = "openai-chat"
	Anthropic       = "anthropic"
	OpenAIResponses = "openai-responses"
	Gemini          = "gemini"
	Cohere          = "cohere"
	Bedrock         = "bedrock"
	Mistral         = "mistral"
	// GeminiInteractions is Google's Interactions API
	// (/v1beta/interactions), which package gemini decodes with
	// DecodeInteractionStream; its recordings are in the cassettes'
	// "other" folder.
	GeminiInteractions = "gemini-interactions"
	// Ollama is /api/chat, which has no recorded stream: it is measured on
	// the generated ollama-4x2KB stream only, and is not among Protocols.
	Ollama = "ollama"
)

// Protocols lists the protocols the benchmarks cover, in report order.
var Protocols = []string{OpenAIChat, Anthropic, OpenAIResponses, Gemini, Cohere, Bedrock, Mistral, GeminiInteractions}

// Subject is one way of turning a streamed body into its tool calls.
type Subject struct {
	// Name names the subject in benchmark names: conform, openai-go,
	// anthropic-sdk-go, go-openai, naive.
	Name string
	// Run decodes one whole stream and appends its calls, in the order
	// they started, to dst: the benchmarks pass the slice of the run
	// before, emptied, so that the harness's list of calls costs no
	// allocation once it has grown; tests pass nil. It reads the body
	// through an io.Reader, as every subject does, so that none sees the
	// bytes in a form the others do not; the reader is the subject's own,
	// reset for each body (see overReader and memBody), so a Run is not
	// safe for concurrent use.
	Run RunFunc
}

// RunFunc is the type of Subject.Run.
type RunFunc func(dst []Call, body []byte) ([]Call, error)

// overReader returns a RunFunc that hands read every body through one
// bytes.Reader, reset for each body: a user of any subject reads the
// body it already has (an HTTP response's), so a reader per run is a cost
// of the harness, not of the subject, and no subject pays it.
func overReader(read func(dst []Call, r io.Reader) ([]Call, error)) RunFunc {
	r := new(bytes.Reader)
	return func(dst []Call, body []byte) ([]Call, error) {
		r.Reset(body)
		return read(dst, r)
	}
}

// argsText returns b as a string without copying it. Every subject that
// hands out its arguments as bytes (conform's Call.Arguments,
// anthropic-sdk-go's Input, the json.Marshal output of genai, ollama and
// the naive decoders) has them in memory of its own, made for this stream
// and never written again, and a user reads them there; a copy into a
// string would be the harness's cost, as large as the arguments. The
// subjects that accumulate text in a strings.Builder hand out its string,
// which is no copy either.
func argsText(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// Subjects returns the subjects that decode protocol, conform first. The
// floor (Floor) is not among them: it rebuilds no calls.
func Subjects(protocol string) []Subject {
	switch protocol {
	case OpenAIChat:
		return []Subject{
			{"conform", Conform(openaichat.New())},
			{"conform-http", ConformHTTP(openaichat.New(), "text/event-stream")},
			{"openai-go", OpenAIGoChat()},
			{"go-openai", GoOpenAI()},
			{"naive", overReader(NaiveChat)},
		}
	case Anthropic:
		return []Subject{
			{"conform", Conform(anthropic.New())},
			{"anthropic-sdk-go", AnthropicSDK()},
			{"naive", overReader(NaiveAnthropic)},
		}
	case OpenAIResponses:
		return []Subject{
			{"conform", Conform(openairesponses.New())},
			{"openai-go", OpenAIGoResponses()},
			{"naive", overReader(NaiveResponses)},
		}
	case Gemini:
		return []Subject{
			{"conform", Conform(gemini.New())},
			{"conform-http", ConformHTTP(gemini.New(), "text/event-stream")},
			{"genai", Genai()},
			{"naive", overReader(NaiveGemini)},
		}
	case Cohere:
		return []Subject{
			{"conform", Conform(cohere.New())},
			{"naive", overReader(NaiveCohere)},
		}
	case Bedrock:
		return []Subject{
			{"conform", Conform(bedrock.New())},
			{"conform-http", ConformHTTP(bedrock.New(), "application/vnd.amazon.eventstream")},
			{"aws-sdk-go-v2", BedrockSDK()},
			{"naive", overReader(NaiveBedrock)},
		}
	case Mistral:
		// Mistral streams OpenAI's chat chunk format.
		return []Subject{
			{"conform", Conform(mistral.New())},
			{"naive", overReader(NaiveChat)},
		}
	case Ollama:
		return []Subject{
			{"conform", Conform(ollama.New())},
			{"conform-http", ConformHTTP(ollama.New(), "application/x-ndjson")},
			{"ollama", OllamaClient()},
			{"naive", overReader(NaiveOllama)},
		}
	case GeminiInteractions:
		return []Subject{
			{"conform", ConformDecoder("gemini interactions", gemini.New().DecodeInteractionStream)},
			{"naive", overReader(NaiveInteractions)},
		}
	}
	return nil
}

// ArgsAsJSON reports whether protocol sends arguments as JSON values rather
// than as text, so that subjects agree when their argument texts hold the
// same JSON value, whatever the key order and spacing: Gemini and Ollama
// send arguments as an object, which the naive decoders re-encode with
// sorted keys.
func ArgsAsJSON(protocol string) bool { return protocol == Gemini || protocol == Ollama }

// GeneratedIDs reports whether protocol may send calls without an id, for
// which conform makes one up (Gemini 2): a subject that reports such a
// call with an empty id agrees with whatever id conform gave it, since the
// id is not in the bytes.
func GeneratedIDs(protocol string) bool { return protocol == Gemini }

// Conform returns the conform subject for an adapter: core.Collect over
// the adapter's DecodeStream, which feeds every call event to a core.Buffer.
// Buffer options (such as larger limits) pass through to Collect.
func Conform(a core.Adapter, opts ...core.BufferOption) RunFunc {
	return ConformDecoder(a.Name(), a.DecodeStream, opts...)
}

// ConformDecoder is Conform for a stream decoder that is not an adapter's
// DecodeStream, such as gemini's DecodeInteractionStream; name names it in
// errors.
func ConformDecoder(name string, decode func(io.Reader) core.EventStream, opts ...core.BufferOption) RunFunc {
	return overReader(func(dst []Call, r io.Reader) ([]Call, error) {
		return collect(dst, name, decode(r), opts...)
	})
}

// collect runs core.Collect over a stream and appends its calls to dst.
func collect(dst []Call, name string, stream core.EventStream, opts ...core.BufferOption) ([]Call, error) {
	resp, err := core.Collect(stream, opts...)
	if err != nil {
		return dst, fmt.Errorf("conform %s: %w", name, err)
	}
	for _, p := range resp.Message.Parts {
		if p.Kind == core.PartToolCall && p.Call != nil {
			dst = append(dst, Call{ID: p.Call.ID, Name: p.Call.Name, Args: argsText(p.Call.Arguments)})
		}
	}
	return dst, nil
}

// memBody is a response body read from memory: one per subject, reset for
// each response, as overReader's reader is.
type memBody struct{ bytes.Reader }

func (*memBody) Close() error { return nil }

// response wraps a body as an HTTP response of the given content type,
// read through m. No network is involved: the body is read from memory.
func (m *memBody) response(body []byte, contentType string) *http.Response {
	m.Reset(body)
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {contentType}},
		Body:       m,
	}
}

// OpenAIGoChat returns the openai-go v3 subject: its SSE decoder
// (packages/ssestream) over an *http.Response built in memory, and
// ChatCompletionAccumulator, as its documentation shows them.
func OpenAIGoChat() RunFunc {
	var body memBody
	return func(calls []Call, data []byte) ([]Call, error) {
		stream := openaisse.NewStream[openai.ChatCompletionChunk](openaisse.NewDecoder(body.response(data, "text/event-stream")), nil)
		var acc openai.ChatCompletionAccumulator
		for stream.Next() {
			if !acc.AddChunk(stream.Current()) {
				return calls, errors.New("openai-go: accumulator refused a chunk")
			}
		}
		if err := stream.Err(); err != nil {
			return calls, fmt.Errorf("openai-go: %w", err)
		}
		if len(acc.Choices) > 0 {
			for _, tc := range acc.Choices[0].Message.ToolCalls {
				calls = append(calls, Call{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
			}
		}
		return calls, nil
	}
}

// OpenAIGoResponses returns the subject of openai-go v3's SSE decoder into
// its Responses stream event union, with the calls accumulated by hand
// (the SDK has no Responses accumulator): output_item.added opens a
// function_call item, function_call_arguments.delta appends to it by item
// id.
func OpenAIGoResponses() RunFunc {
	var body memBody
	return func(dst []Call, data []byte) ([]Call, error) {
		stream := openaisse.NewStream[responses.ResponseStreamEventUnion](openaisse.NewDecoder(body.response(data, "text/event-stream")), nil)
		var acc accumulator[string]
		for stream.Next() {
			ev := stream.Current()
			switch ev.Type {
			case "response.output_item.added":
				if ev.Item.Type == "function_call" {
					acc.open(ev.Item.ID, ev.Item.CallID, ev.Item.Name)
				}
			case "response.function_call_arguments.delta":
				acc.add(ev.ItemID, ev.Delta)
			}
		}
		if err := stream.Err(); err != nil {
			return dst, fmt.Errorf("openai-go responses: %w", err)
		}
		return acc.calls(dst), nil
	}
}

// AnthropicSDK returns the anthropic-sdk-go subject: its SSE decoder and
// Message.Accumulate, as its documentation shows them.
func AnthropicSDK() RunFunc {
	var body memBody
	return func(calls []Call, data []byte) ([]Call, error) {
		stream := anthropicsse.NewStream[anthropicsdk.MessageStreamEventUnion](anthropicsse.NewDecoder(body.response(data, "text/event-stream")), nil)
		var msg anthropicsdk.Message
		for stream.Next() {
			if err := msg.Accumulate(stream.Current()); err != nil {
				return calls, fmt.Errorf("anthropic-sdk-go: %w", err)
			}
		}
		if err := stream.Err(); err != nil {
			return calls, fmt.Errorf("anthropic-sdk-go: %w", err)
		}
		for _, b := range msg.Content {
			if b.Type == "tool_use" {
				calls = append(calls, Call{ID: b.ID, Name: b.Name, Args: argsText(b.Input)})
			}
		}
		return calls, nil
	}
}

// memTransport is an http.RoundTripper that answers every request with the
// body it holds, from memory: go-openai builds its stream reader only from
// an HTTP response, and an in-memory transport keeps sockets and goroutines
// out of the figures. The request go-openai encodes and the response it
// wraps are part of what is measured; they are a few hundred bytes against
// a stream of hundreds of kilobytes. The response's content type is
// contentType, text/event-stream when empty.
type memTransport struct {
	body        []byte
	contentType string
	reader      memBody
}

func (t *memTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	ct := t.contentType
	if ct == "" {
		ct = "text/event-stream"
	}
	res := t.reader.response(t.body, ct)
	res.Request = req
	return res, nil
}

// GoOpenAI returns the sashabaranov/go-openai subject: a client whose
// transport is a memTransport, CreateChatCompletionStream, Recv until
// io.EOF, and the calls accumulated by hand by tool call index. One client
// serves every run; the body it answers with is set per run.
func GoOpenAI() RunFunc {
	tr := &memTransport{}
	cfg := goopenai.DefaultConfig("sk-bench")
	cfg.BaseURL = "http://bench.invalid/v1"
	cfg.HTTPClient = &http.Client{Transport: tr}
	client := goopenai.NewClientWithConfig(cfg)
	req := goopenai.ChatCompletionRequest{
		Model:    "gpt-4o",
		Messages: []goopenai.ChatCompletionMessage{{Role: goopenai.ChatMessageRoleUser, Content: "go"}},
		Stream:   true,
	}
	return func(dst []Call, body []byte) ([]Call, error) {
		tr.body = body
		stream, err := client.CreateChatCompletionStream(context.Background(), req)
		if err != nil {
			return dst, fmt.Errorf("go-openai: %w", err)
		}
		defer stream.Close()
		var acc accumulator[int]
		for {
			resp, err := stream.Recv()
			if err == io.EOF {
				break
			}
			if err != nil {
				return dst, fmt.Errorf("go-openai: %w", err)
			}
			for _, ch := range resp.Choices {
				if ch.Index != 0 {
					continue
				}
				for _, tc := range ch.Delta.ToolCalls {
					idx := acc.last
					if tc.Index != nil {
						idx = *tc.Index
					}
					if tc.ID != "" || tc.Function.Name != "" {
						acc.open(idx, tc.ID, tc.Function.Name)
					}
					acc.add(idx, tc.Function.Arguments)
				}
			}
		}
		return acc.calls(dst), nil
	}
}

// accumulator gathers calls keyed by K (a tool call index or an item id)
// in the order they opened, for the subjects that accumulate by hand.
type accumulator[K comparable] struct {
	keys  map[K]int
	order []*naiveCall
	last  K
}

type naiveCall struct {
	id, name string
	args     strings.Builder
}

// open starts the call keyed k, or updates its id and name if it exists.
func (a *accumulator[K]) open(k K, id, name string) {
	if a.keys == nil {
		a.keys = make(map[K]int)
	}
	a.last = k
	i, ok := a.keys[k]
	if !ok {
		a.keys[k] = len(a.order)
		a.order = append(a.order, &naiveCall{id: id, name: name})
		return
	}
	if id != "" {
		a.order[i].id = id
	}
	if name != "" {
		a.order[i].name = name
	}
}

// add appends argument text to the call keyed k, opening it if needed.
func (a *accumulator[K]) add(k K, s string) {
	i, ok := a.keys[k]
	if !ok {
		a.open(k, "", "")
		i = a.keys[k]
	}
	a.order[i].args.WriteString(s)
}

// calls appends the calls to dst.
func (a *accumulator[K]) calls(dst []Call) []Call {
	for _, c := range a.order {
		dst = append(dst, Call{ID: c.id, Name: c.name, Args: c.args.String()})
	}
	return dst
}

// dataLines calls fn with the payload of every "data:" line of an SSE body,
// split with bufio.Scanner: the naive reading of a stream, which ignores
// multi-line data and event: lines.
func dataLines(body io.Reader, fn func(payload []byte) error) error {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		payload, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		payload = bytes.TrimSpace(payload)
		if len(payload) == 0 || string(payload) == "[DONE]" {
			continue
		}
		if err := fn(payload); err != nil {
			return err
		}
	}
	return sc.Err()
}

// Map helpers for the naive subjects: a missing or mistyped field reads as
// its zero value.
func obj(v any, key string) map[string]any {
	m, _ := v.(map[string]any)
	o, _ := m[key].(map[string]any)
	return o
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

func num(m map[string]any, key string) (int, bool) {
	f, ok := m[key].(float64)
	return int(f), ok
}

// NaiveChat splits lines, decodes each payload with encoding/json into a
// map and accumulates calls in maps by tool call index.
func NaiveChat(dst []Call, body io.Reader) ([]Call, error) {
	var acc accumulator[int]
	err := dataLines(body, func(p []byte) error {
		var m map[string]any
		if err := json.Unmarshal(p, &m); err != nil {
			return fmt.Errorf("naive: %w", err)
		}
		choices, _ := m["choices"].([]any)
		for _, c := range choices {
			cm, _ := c.(map[string]any)
			if i, _ := num(cm, "index"); i != 0 {
				continue
			}
			tcs, _ := obj(cm, "delta")["tool_calls"].([]any)
			for _, tc := range tcs {
				tm, _ := tc.(map[string]any)
				idx, ok := num(tm, "index")
				if !ok {
					idx = acc.last
				}
				fn := obj(tm, "function")
				if id, name := str(tm, "id"), str(fn, "name"); id != "" || name != "" {
					acc.open(idx, id, name)
				}
				acc.add(idx, str(fn, "arguments"))
			}
		}
		return nil
	})
	return acc.calls(dst), err
}

// NaiveAnthropic is NaiveChat for Anthropic events: content_block_start of
// a tool_use block opens a call by block index, input_json_delta appends.
func NaiveAnthropic(dst []Call, body io.Reader) ([]Call, error) {
	var acc accumulator[int]
	err := dataLines(body, func(p []byte) error {
		var m map[string]any
		if err := json.Unmarshal(p, &m); err != nil {
			return fmt.Errorf("naive: %w", err)
		}
		anthropicEvent(&acc, m)
		return nil
	})
	return acc.calls(dst), err
}

// anthropicEvent adds one decoded Anthropic stream event to acc.
func anthropicEvent(acc *accumulator[int], m map[string]any) {
	idx, _ := num(m, "index")
	switch str(m, "type") {
	case "content_block_start":
		if cb := obj(m, "content_block"); str(cb, "type") == "tool_use" {
			acc.open(idx, str(cb, "id"), str(cb, "name"))
		}
	case "content_block_delta":
		if d := obj(m, "delta"); str(d, "type") == "input_json_delta" {
			acc.add(idx, str(d, "partial_json"))
		}
	}
}

// NaiveResponses is NaiveChat for Responses events: output_item.added of a
// function_call item opens a call by item id, function_call_arguments.delta
// appends.
func NaiveResponses(dst []Call, body io.Reader) ([]Call, error) {
	var acc accumulator[string]
	err := dataLines(body, func(p []byte) error {
		var m map[string]any
		if err := json.Unmarshal(p, &m); err != nil {
			return fmt.Errorf("naive: %w", err)
		}
		switch str(m, "type") {
		case "response.output_item.added":
			if it := obj(m, "item"); str(it, "type") == "function_call" {
				acc.open(str(it, "id"), str(it, "call_id"), str(it, "name"))
			}
		case "response.function_call_arguments.delta":
			acc.add(str(m, "item_id"), str(m, "delta"))
		}
		return nil
	})
	return acc.calls(dst), err
}

// Floor splits a body into lines with bytes.IndexByte and does nothing
// else: no subject that reads every line can be faster. It returns the
// number of lines, so that the work cannot be optimised away.
func Floor(body []byte) int {
	n := 0
	for {
		i := bytes.IndexByte(body, '\n')
		if i < 0 {
			if len(body) > 0 {
				n++
			}
			return n
		}
		n++
		body = body[i+1:]
	}
}

// NaiveGemini decodes each SSE payload with encoding/json into a map and
// takes every named functionCall part of the first candidate as one whole
// call, its args re-encoded with json.Marshal; a call sent without an id
// keeps an empty one (see GeneratedIDs). It does not read the
// one-JSON-array form (streamGenerateContent without alt=sse) or Vertex
// partialArgs.
func NaiveGemini(calls []Call, body io.Reader) ([]Call, error) {
	err := dataLines(body, func(p []byte) error {
		var m map[string]any
		if err := json.Unmarshal(p, &m); err != nil {
			return fmt.Errorf("naive: %w", err)
		}
		var err error
		calls, err = geminiCalls(m, calls)
		return err
	})
	return calls, err
}

// geminiCalls appends the named functionCall parts of one decoded
// streamGenerateContent chunk to calls.
func geminiCalls(m map[string]any, calls []Call) ([]Call, error) {
	cands, _ := m["candidates"].([]any)
	if len(cands) == 0 {
		return calls, nil
	}
	c0, _ := cands[0].(map[string]any)
	parts, _ := obj(c0, "content")["parts"].([]any)
	for _, part := range parts {
		fc := obj(part, "functionCall")
		name := str(fc, "name")
		if name == "" {
			continue
		}
		id := str(fc, "id")
		args := []byte("{}")
		if a, ok := fc["args"]; ok && a != nil {
			var err error
			if args, err = json.Marshal(a); err != nil {
				return calls, fmt.Errorf("naive: %w", err)
			}
		}
		calls = append(calls, Call{ID: id, Name: name, Args: argsText(args)})
	}
	return calls, nil
}

// NaiveOllama splits NDJSON lines, decodes each with encoding/json into a
// map and takes every tool call of its message as one whole call, its
// arguments re-encoded with json.Marshal.
func NaiveOllama(calls []Call, body io.Reader) ([]Call, error) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			return calls, fmt.Errorf("naive: %w", err)
		}
		tcs, _ := obj(m, "message")["tool_calls"].([]any)
		for _, tc := range tcs {
			fn := obj(tc, "function")
			args, err := json.Marshal(fn["arguments"])
			if err != nil {
				return calls, fmt.Errorf("naive: %w", err)
			}
			id, _ := tc.(map[string]any)["id"].(string)
			calls = append(calls, Call{ID: id, Name: str(fn, "name"), Args: argsText(args)})
		}
	}
	return calls, sc.Err()
}

// NaiveCohere is NaiveChat for Cohere v2 events: tool-call-start opens a
// call by index with its id, name and first arguments, tool-call-delta
// appends.
func NaiveCohere(dst []Call, body io.Reader) ([]Call, error) {
	var acc accumulator[int]
	err := dataLines(body, func(p []byte) error {
		var m map[string]any
		if err := json.Unmarshal(p, &m); err != nil {
			return fmt.Errorf("naive: %w", err)
		}
		idx, _ := num(m, "index")
		tc := obj(obj(obj(m, "delta"), "message"), "tool_calls")
		fn := obj(tc, "function")
		switch str(m, "type") {
		case "tool-call-start":
			acc.open(idx, str(tc, "id"), str(fn, "name"))
			acc.add(idx, str(fn, "arguments"))
		case "tool-call-delta":
			acc.add(idx, str(fn, "arguments"))
		}
		return nil
	})
	return acc.calls(dst), err
}

// NaiveBedrock reads AWS event-stream frames the straightforward way: the
// prelude with encoding/binary, its CRC-32 and the frame's checked with
// hash/crc32, each frame read into a new slice, its headers into a map,
// its payload with encoding/json into map[string]any. A ConverseStream
// contentBlockStart of a toolUse opens a call by contentBlockIndex and a
// toolUse input delta appends to it; an InvokeModel chunk frame's "bytes"
// is base64-decoded and read as an Anthropic event (anthropicEvent).
func NaiveBedrock(dst []Call, body io.Reader) ([]Call, error) {
	var acc accumulator[int]
	r := bufio.NewReader(body)
	for {
		var prelude struct{ Total, Headers, CRC uint32 }
		if err := binary.Read(r, binary.BigEndian, &prelude); err == io.EOF {
			return acc.calls(dst), nil
		} else if err != nil {
			return nil, fmt.Errorf("naive: prelude: %w", err)
		}
		if prelude.Total < 16 || prelude.Headers > prelude.Total-16 || prelude.Total > 16<<20 {
			return nil, fmt.Errorf("naive: frame lengths %d, %d", prelude.Total, prelude.Headers)
		}
		frame := make([]byte, prelude.Total)
		binary.BigEndian.PutUint32(frame[0:], prelude.Total)
		binary.BigEndian.PutUint32(frame[4:], prelude.Headers)
		binary.BigEndian.PutUint32(frame[8:], prelude.CRC)
		if _, err := io.ReadFull(r, frame[12:]); err != nil {
			return nil, fmt.Errorf("naive: frame: %w", err)
		}
		end := len(frame) - 4
		if crc32.ChecksumIEEE(frame[:8]) != prelude.CRC || crc32.ChecksumIEEE(frame[:end]) != binary.BigEndian.Uint32(frame[end:]) {
			return nil, errors.New("naive: checksum mismatch")
		}
		headers := map[string]string{}
		for h := frame[12 : 12+prelude.Headers]; len(h) > 0; {
			n := int(h[0])
			if len(h) < 1+n+3 || h[1+n] != 7 { // only string headers
				return nil, errors.New("naive: header")
			}
			name, l := string(h[1:1+n]), int(binary.BigEndian.Uint16(h[2+n:]))
			if len(h) < 4+n+l {
				return nil, errors.New("naive: header value")
			}
			headers[name] = string(h[4+n : 4+n+l])
			h = h[4+n+l:]
		}
		var m map[string]any
		if err := json.Unmarshal(frame[12+prelude.Headers:end], &m); err != nil {
			return nil, fmt.Errorf("naive: payload: %w", err)
		}
		idx, _ := num(m, "contentBlockIndex")
		switch headers[":event-type"] {
		case "contentBlockStart":
			if tu := obj(obj(m, "start"), "toolUse"); tu != nil {
				acc.open(idx, str(tu, "toolUseId"), str(tu, "name"))
			}
		case "contentBlockDelta":
			if tu := obj(obj(m, "delta"), "toolUse"); tu != nil {
				acc.add(idx, str(tu, "input"))
			}
		case "chunk":
			event, err := base64.StdEncoding.DecodeString(str(m, "bytes"))
			if err != nil {
				return nil, fmt.Errorf("naive: chunk: %w", err)
			}
			var an map[string]any
			if err := json.Unmarshal(event, &an); err != nil {
				return nil, fmt.Errorf("naive: chunk: %w", err)
			}
			anthropicEvent(&acc, an)
		}
	}
}

// NaiveInteractions is NaiveChat for Gemini Interactions events: a
// step.start whose step is a function_call opens a call by step index with
// its id, name and any arguments object, a step.delta of type
// arguments_delta appends its arguments text.
func NaiveInteractions(dst []Call, body io.Reader) ([]Call, error) {
	var acc accumulator[int]
	err := dataLines(body, func(p []byte) error {
		var m map[string]any
		if err := json.Unmarshal(p, &m); err != nil {
			return fmt.Errorf("naive: %w", err)
		}
		idx, _ := num(m, "index")
		switch str(m, "event_type") {
		case "step.start":
			if st := obj(m, "step"); str(st, "type") == "function_call" {
				acc.open(idx, str(st, "id"), str(st, "name"))
				if a := obj(st, "arguments"); len(a) > 0 {
					b, err := json.Marshal(a)
					if err != nil {
						return fmt.Errorf("naive: %w", err)
					}
					acc.add(idx, string(b))
				}
			}
		case "step.delta":
			if d := obj(m, "delta"); str(d, "type") == "arguments_delta" {
				acc.add(idx, str(d, "arguments"))
			}
		}
		return nil
	})
	return acc.calls(dst), err
}
