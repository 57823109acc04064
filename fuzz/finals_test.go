package fuzz

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"pgregory.net/rapid"
)

// TestFinalsNeverChangeDeltas is the property of issue 28 item 1 over
// every protocol that sends a call both in pieces and whole: Responses
// (argument deltas, then function_call_arguments.done and
// output_item.done), Anthropic (a tool_use start's input, then
// input_json_delta pieces), Gemini (Vertex partialArgs pieces, then
// functionCall.args) and Chat Completions (deltas, then a consolidated
// copy, B02). Random pieces of a random value and a random final, absent,
// agreeing or not, never give a complete call whose arguments differ from
// what its pieces streamed.
func TestFinalsNeverChangeDeltas(t *testing.T) {
	values := []string{`{"cmd":"rm -rf /tmp/build"}`, `{"a":1}`, `{"path":"a\"b","n":[1,2]}`, `{"cmd":"x"}`}
	finals := []string{"", `{"cmd":"rm -rf /"}`, `{}`, `{"a":1}`, `{"cmd":"rm -rf /tmp/build"}`, `{ "a" : 1 }`, `{"cmd":"x"}`}
	rapid.Check(t, func(t *rapid.T) {
		protocol := rapid.SampledFrom([]string{"openai-responses", "anthropic", "gemini", "openai-chat"}).Draw(t, "protocol")
		value := rapid.SampledFrom(values).Draw(t, "value")
		var final *string
		if rapid.Bool().Draw(t, "has final") {
			f := rapid.SampledFrom(finals).Draw(t, "final")
			final = &f
		}
		var body string
		switch protocol {
		case "openai-responses":
			body = responsesStream(t, value, final)
		case "anthropic":
			body = anthropicStream(t, value, final)
		case "gemini":
			body = geminiStream(t, value, final)
		case "openai-chat":
			body = chatStream(t, value, final)
		}
		a, err := providers.Lookup(protocol)
		if err != nil {
			t.Fatal(err)
		}
		resp, _ := core.Collect(a.DecodeStream(strings.NewReader(body)))
		for _, c := range resp.Calls() {
			if !sameJSON(c.Arguments, value) {
				t.Fatalf("%s: pieces of %s, final %v: complete with %s\n%s", protocol, value, deref(final), c.Arguments, body)
			}
		}
	})
}

func deref(s *string) any {
	if s == nil {
		return "none"
	}
	return *s
}

// sameJSON reports whether a and b are the same JSON text once compacted.
func sameJSON(a json.RawMessage, b string) bool {
	var x, y bytes.Buffer
	return json.Compact(&x, a) == nil && json.Compact(&y, []byte(b)) == nil && x.String() == y.String()
}

// split cuts s into random pieces.
func split(t *rapid.T, s string) []string {
	var out []string
	for s != "" {
		n := rapid.IntRange(1, len(s)).Draw(t, "piece")
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func sse(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString("data: " + e + "\n\n")
	}
	return b.String()
}

func quote(s string) string { return strconv.Quote(s) }

func responsesStream(t *rapid.T, value string, final *string) string {
	evs := []string{`{"type":"response.created","response":{"id":"resp_1","model":"m","status":"in_progress","output":[]}}`,
		`{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"f"}}`}
	for _, p := range split(t, value) {
		evs = append(evs, `{"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":0,"delta":`+quote(p)+`}`)
	}
	args := ""
	if final != nil {
		args = `,"arguments":` + quote(*final)
	}
	if rapid.Bool().Draw(t, "arguments done") {
		evs = append(evs, `{"type":"response.function_call_arguments.done","item_id":"fc_1","output_index":0`+args+`}`)
	}
	evs = append(evs, `{"type":"response.output_item.done","output_index":0,"item":{"id":"fc_1","type":"function_call","status":"completed","call_id":"call_1","name":"f"`+args+`}}`,
		`{"type":"response.completed","response":{"id":"resp_1","status":"completed"}}`)
	return sse(evs...)
}

func anthropicStream(t *rapid.T, value string, final *string) string {
	input := "{}"
	if final != nil && json.Valid([]byte(*final)) {
		input = *final // the whole, sent first as the start's input
	}
	evs := []string{`{"type":"message_start","message":{"id":"msg_1","model":"m","usage":{"input_tokens":1,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":` + input + `}}`}
	for _, p := range split(t, value) {
		evs = append(evs, `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":`+quote(p)+`}}`)
	}
	evs = append(evs, `{"type":"content_block_stop","index":0}`, `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":2}}`, `{"type":"message_stop"}`)
	return sse(evs...)
}

func geminiStream(t *rapid.T, value string, final *string) string {
	var v map[string]any
	if err := json.Unmarshal([]byte(value), &v); err != nil {
		t.Fatal(err)
	}
	evs := []string{`{"candidates":[{"content":{"parts":[{"functionCall":{"id":"c1","name":"f","willContinue":true}}]}}]}`}
	// The members as partialArgs pieces, a string value in pieces.
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	// Key order is the value's: pieces arrive in the order its text has.
	orderKeys(value, keys)
	for _, k := range keys {
		path := "$." + k
		switch x := v[k].(type) {
		case string:
			parts := split(t, x)
			if len(parts) == 0 {
				parts = []string{""}
			}
			for i, p := range parts {
				evs = append(evs, `{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":`+quote(path)+`,"stringValue":`+jsonString(p)+`,"willContinue":`+strconv.FormatBool(i < len(parts)-1)+`}],"willContinue":true}}]}}]}`)
			}
		case float64:
			evs = append(evs, `{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":`+quote(path)+`,"numberValue":`+strconv.FormatFloat(x, 'g', -1, 64)+`}],"willContinue":true}}]}}]}`)
		case []any:
			for i, e := range x {
				evs = append(evs, `{"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":`+quote(path+"["+strconv.Itoa(i)+"]")+`,"numberValue":`+strconv.FormatFloat(e.(float64), 'g', -1, 64)+`}],"willContinue":true}}]}}]}`)
			}
		}
	}
	last := `{"functionCall":{}}`
	if final != nil && strings.HasPrefix(strings.TrimSpace(*final), "{") {
		last = `{"functionCall":{"args":` + *final + `}}`
	}
	evs = append(evs, `{"candidates":[{"content":{"parts":[`+last+`]},"finishReason":"STOP"}]}`)
	return sse(evs...)
}

// orderKeys sorts keys by where each first appears in text.
func orderKeys(text string, keys []string) {
	pos := func(k string) int { return strings.Index(text, quote(k)+":") }
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && pos(keys[j]) < pos(keys[j-1]); j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func chatStream(t *rapid.T, value string, final *string) string {
	chunk := func(delta string, finish string) string {
		f := "null"
		if finish != "" {
			f = quote(finish)
		}
		return `{"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}`
	}
	evs := []string{chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}`, "")}
	for _, p := range split(t, value) {
		evs = append(evs, chunk(`{"tool_calls":[{"index":0,"function":{"arguments":`+quote(p)+`}}]}`, ""))
	}
	if final != nil {
		// A consolidated copy of the whole call (B02), as some servers
		// send before the finish.
		evs = append(evs, chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":`+quote(*final)+`}}]}`, ""))
	}
	evs = append(evs, chunk(`{}`, "tool_calls"))
	return sse(evs...) + "data: [DONE]\n\n"
}
