package cassettes

import (
	"bytes"
	"encoding/json"

	"github.com/toolconform/conform/providers/protocol"
)

// Protocols returns the names of the protocols the importer knows, sorted.
func Protocols() []string { return protocol.Names() }

// knownProtocol reports whether name is a protocol the importer knows.
func knownProtocol(name string) bool {
	_, err := protocol.Lookup(name)
	return err == nil
}

// GuessProtocol guesses the wire protocol of a request from its URL, and
// returns "" when the URL says nothing clear.
func GuessProtocol(rawURL string) string { return protocol.GuessURL(rawURL) }

// guessProtocolFromBody guesses the protocol of a response-only fixture
// from its first JSON payload, and returns "" when the shape is not one it
// knows. Guessing from the file name would be wrong for fixtures such as an
// Anthropic model served through an OpenAI-compatible endpoint.
func guessProtocolFromBody(first []byte) string { return protocol.GuessBody(first) }

// modelOf returns the model a fixture's first JSON payload names, looking at
// the usual fields of every protocol, or "".
func modelOf(first []byte) string {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(bytes.TrimSpace(first), &obj); err != nil {
		return ""
	}
	for _, key := range []string{"model", "modelVersion"} {
		var s string
		if raw, ok := obj[key]; ok && json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	for _, key := range []string{"message", "response", "interaction"} {
		if raw, ok := obj[key]; ok {
			if m := modelOf(raw); m != "" {
				return m
			}
		}
	}
	return ""
}
