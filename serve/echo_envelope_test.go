package serve

import (
	"encoding/json"
	"testing"
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
		{`done`, args, false},
		// A call without arguments: an envelope that is not one must not
		// pass for the empty object.
		{`{}`, json.RawMessage(`{}`), true},
		{`{"name":"get_weather","content":{}}`, json.RawMessage(`{}`), true},
		{`{"name":"other","content":{}}`, json.RawMessage(`{}`), false},
		{`"error"`, json.RawMessage(`{}`), false},
	}
	for _, tt := range tests {
		if got := echoes(tt.text, "get_weather", tt.args); got != tt.want {
			t.Errorf("echoes(%s, get_weather, %s) = %v, want %v", tt.text, tt.args, got, tt.want)
		}
	}
}
