package bedrock

import (
	"bytes"
	"encoding/json"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/toolconform/conform/providers/protocol"
)

// requirements reads what a recorded Bedrock response depends on. An
// InvokeModel body (an Anthropic message) or InvokeModelWithResponseStream
// body ("chunk" frames) is what Bedrock sends to a request to
// /model/{model}/invoke or /invoke-with-response-stream; the protocol's
// endpoints are Converse and ConverseStream, so no request a fake provider
// takes is answered with it.
func requirements(body []byte) []protocol.Requirement {
	if !isInvokeBody(body) {
		return nil
	}
	return []protocol.Requirement{{What: "it is an InvokeModel recording (/model/{model}/invoke or /invoke-with-response-stream), which Bedrock sends only to an InvokeModel request; the protocol's endpoints are Converse and ConverseStream, and a Converse request is never answered with InvokeModel bytes"}}
}

// isInvokeBody reports whether a recorded body is InvokeModel's: a JSON
// object with content and no output (decoded as an Anthropic message by
// DecodeResponse), or an event stream whose first frame is a "chunk".
func isInvokeBody(body []byte) bool {
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '{' {
		var probe map[string]json.RawMessage
		if json.Unmarshal(t, &probe) != nil {
			return false
		}
		_, output := probe["output"]
		_, content := probe["content"]
		return content && !output
	}
	msg, err := eventstream.NewDecoder().Decode(bytes.NewReader(body), nil)
	if err != nil {
		return false
	}
	et := msg.Headers.Get(hdrEventType)
	return et != nil && et.String() == "chunk"
}
