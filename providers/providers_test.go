package providers

import (
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
)

func TestEveryAdapterNamesItself(t *testing.T) {
	for _, name := range Names() {
		a, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if a.Name() != name {
			t.Errorf("Lookup(%q).Name() = %q", name, a.Name())
		}
	}
	if got, want := len(All()), len(Names()); got != want {
		t.Errorf("All() has %d adapters, Names() %d", got, want)
	}
}

func TestLookupUnknownListsKnown(t *testing.T) {
	_, err := Lookup("openai")
	if err == nil {
		t.Fatal("Lookup(openai) succeeded")
	}
	for _, name := range Names() {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not list %q", err, name)
		}
	}
}

// TestNotAResponseIsAnError checks that no adapter turns a body that is not
// a response of its protocol into an empty answer: a stream chunk, another
// protocol's shape, or JSON that is no response at all is an error naming
// the field that is missing.
func TestNotAResponseIsAnError(t *testing.T) {
	everywhere := []string{`{}`, `{"foo":1}`, `[]`, `null`, `"text"`, `42`}
	near := []struct{ adapter, body, field string }{
		{"openai-chat", `{"choices":[{}]}`, "choices[0].message"},
		{"openai-chat", `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"}}]}`, "choices[0].message"},
		{"mistral", `{"choices":[{"index":0,"delta":{"content":"hi"}}]}`, "choices[0].message"},
		{"openai-responses", `{"id":"resp_1","object":"response","status":"completed"}`, "output"},
		{"anthropic", `{"id":"msg_1","type":"message","role":"assistant","stop_reason":"end_turn"}`, "content"},
		{"gemini", `{"usageMetadata":{"promptTokenCount":3}}`, "candidates"},
		{"ollama", `{"model":"m","done":true}`, "message"},
		{"bedrock", `{"content":null,"stop_reason":"end_turn"}`, "content"},
		{"bedrock", `{"stopReason":"end_turn"}`, "output.message"},
		{"cohere", `{"finish_reason":"COMPLETE"}`, "message"},
	}
	for _, a := range All() {
		for _, b := range everywhere {
			if resp, err := a.DecodeResponse([]byte(b)); err == nil {
				t.Errorf("%s: DecodeResponse(%s) = %d parts, finish %q, and no error", a.Name(), b, len(resp.Message.Parts), resp.Finish)
			}
		}
	}
	for _, c := range near {
		a, err := Lookup(c.adapter)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := a.DecodeResponse([]byte(c.body))
		if err == nil {
			t.Errorf("%s: DecodeResponse(%s) = %d parts, finish %q, and no error", c.adapter, c.body, len(resp.Message.Parts), resp.Finish)
			continue
		}
		if !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: DecodeResponse(%s): error %q does not name %s", c.adapter, c.body, err, c.field)
		}
	}
}

// TestFeatures checks that every built-in adapter declares its protocol's
// features, each one known and listed once, and that an unknown protocol
// is an error.
func TestFeatures(t *testing.T) {
	for _, name := range Names() {
		fs, err := Features(name)
		if err != nil {
			t.Errorf("Features(%q): %v", name, err)
			continue
		}
		seen := map[core.Feature]bool{}
		for _, f := range fs {
			if _, err := core.ParseFeature(string(f)); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			if seen[f] {
				t.Errorf("%s declares %q twice", name, f)
			}
			seen[f] = true
		}
	}
	if _, err := Features("nosuch"); err == nil || !strings.Contains(err.Error(), "openai-chat") {
		t.Errorf("Features(nosuch) = %v, want an error listing the known adapters", err)
	}
}
