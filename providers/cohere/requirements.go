package cohere

import (
	"bytes"
	"encoding/json"

	"github.com/toolconform/conform/providers/protocol"
)

// requirements reads what a recorded Cohere response depends on. A Chat
// v1 body or NDJSON stream (v1.go) is what the v1 API (/v1/chat) sends to
// a v1 request; the protocol's endpoint is /v2/chat, whose requests the
// adapter reads, so no request a fake provider takes is answered with it.
func requirements(body []byte) []protocol.Requirement {
	if !isV1Body(body) {
		return nil
	}
	return []protocol.Requirement{{What: "it is a Cohere Chat v1 recording (/v1/chat), which Cohere sends only to a v1 request; the protocol's endpoint is /v2/chat, and a v2 request is never answered with v1 bytes"}}
}

// isV1Body reports whether a recorded body is Cohere Chat v1: its first
// JSON value is a v1 response or a v1 stream event (event_type). A v2
// stream starts with an SSE line and a v2 response has a message.
func isV1Body(body []byte) bool {
	var probe map[string]json.RawMessage
	if json.NewDecoder(bytes.NewReader(body)).Decode(&probe) != nil {
		return false
	}
	_, event := probe["event_type"]
	return event || isV1Response(probe)
}
