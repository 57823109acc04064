package serve

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEchoes checks what GradeEcho takes for the echo of a call's
// arguments: the arguments as JSON, or wrapped in the envelopes SDKs put
// around a result the wire wants as an object, and nothing else.
func TestEchoes(t *testing.T) {
	args := json.RawMessage(`{"city":"Paris"}`)
	tests := []struct {
		text string
		args json.RawMessage
		want bool
	}{
		{`{"city":"Paris"}`, args, true},
		{`{ "city" : "Paris" }`, args, true},
		{`{"name":"get_weather","content":{"city":"Paris"}}`, args, true}, // @ai-sdk/google
		{`{"name":"get_weather","content":"{\"city\":\"Paris\"}"}`, args, true},
		{`{"output":{"city":"Paris"}}`, args, true},
		{`{"name":"get_time","content":{"city":"Paris"}}`, args, false}, // another call's name
		{`{"name":"get_weather","content":{"city":"Oslo"}}`, args, false},
		{`{"name":"get_weather","content":{"city":"Paris"},"extra":1}`, args, false},
		{`{"result":"ok"}`, args, false},
		// Gemini's functionResponse.response takes any key (anyKey below).
		{`{"result":{"city":"Paris"}}`, args, false},
		{`{"error":{"city":"Paris"}}`, args, false},
		// A call without arguments may come back as null.
		{`null`, json.RawMessage(`{}`), true},
		{`done`, args, false},
		// A call without arguments: an envelope that is not one must not
		// pass for the empty object.
		{`{}`, json.RawMessage(`{}`), true},
		{`{"name":"get_weather","content":{}}`, json.RawMessage(`{}`), true},
		{`{"name":"other","content":{}}`, json.RawMessage(`{}`), false},
		{`"error"`, json.RawMessage(`{}`), false},
	}
	for _, tt := range tests {
		if got := echoes(tt.text, "get_weather", tt.args, false); got != tt.want {
			t.Errorf("echoes(%s, get_weather, %s) = %v, want %v", tt.text, tt.args, got, tt.want)
		}
	}
	for _, tt := range []struct {
		text string
		want bool
	}{
		{`{"result":{"city":"Paris"}}`, true},
		{`{"result":"{\"city\":\"Paris\"}"}`, true},
		{`{"weather_args":{"city":"Paris"}}`, true},
		{`{"result":{"city":"Oslo"}}`, false},
		{`{"error":{"city":"Paris"}}`, false}, // a failed call, never the echo
		{`{"result":{"city":"Paris"},"extra":1}`, false},
	} {
		if got := echoes(tt.text, "get_weather", args, true); got != tt.want {
			t.Errorf("any key: echoes(%s) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestEchoGeminiAnyKey sends a Gemini follow-up whose functionResponse
// wraps each echo under a key of the client's choice, as the API reference
// allows: it passes with "result" and "output", and a changed value or an
// "error" key still fails the echo.
func TestEchoGeminiAnyKey(t *testing.T) {
	const name = "gemini/response/D03-generated-ids-match-streamed"
	first := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	followUp := func(key, oslo string) string {
		return `{"contents":[{"role":"user","parts":[{"text":"hi"}]},` +
			`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Oslo"}}},{"functionCall":{"name":"get_weather","args":{"city":"Bergen"}}}]},` +
			`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"` + key + `":` + oslo + `}}},{"functionResponse":{"name":"get_weather","response":{"` + key + `":{"city":"Bergen"}}}}]}]}`
	}
	tests := []struct {
		key, oslo string
		want      []string
	}{
		{"result", `{"city":"Oslo"}`, nil},
		{"output", `"{\"city\":\"Oslo\"}"`, nil},
		{"result", `{"city":"Paris"}`, []string{EchoRule}},
		{"error", `{"city":"Oslo"}`, []string{EchoRule, EchoRule}},
	}
	for _, tt := range tests {
		s, ts := newServer(t, Options{Echo: true})
		p := poster{t: t, ts: ts, name: name, protocol: "gemini"}
		if status, data := p.post(first, false); status != 200 {
			t.Fatalf("first: %d %s", status, data)
		}
		if status, data := p.post(followUp(tt.key, tt.oslo), false); status != 200 {
			t.Fatalf("follow-up: %d %s", status, data)
		}
		if diff := cmp.Diff(tt.want, verdictRules(t, s, name)); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.key, tt.oslo, diff)
		}
	}
}
