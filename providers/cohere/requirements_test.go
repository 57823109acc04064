package cohere_test

import (
	"bytes"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/providers/cohere"
)

// TestRequirementsByVersion checks that a recording is told to be Chat
// v1's, and so answers no v2 request, exactly when its bytes are v1's: a
// v1 body and NDJSON stream (after the v1 API reference), v2 ones written
// by the adapter, and an error body.
func TestRequirementsByVersion(t *testing.T) {
	resp := &core.Response{ID: "r1", Finish: core.FinishToolCalls, Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{
		core.CallPart(core.Call{ID: "c1", Name: "weather", Arguments: []byte(`{"city":"Oslo"}`)}),
	}}}
	v2Body, err := cohere.New().EncodeResponse(resp)
	if err != nil {
		t.Fatal(err)
	}
	var v2Stream bytes.Buffer
	if err := cohere.New().EncodeStream(&v2Stream, providers.ResponseEvents("cohere", resp)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		desc string
		body string
		v1   bool
	}{
		{"v2 body", string(v2Body), false},
		{"v2 SSE stream", v2Stream.String(), false},
		{"v1 body", `{"response_id":"r1","text":"","generation_id":"g1","finish_reason":"COMPLETE","tool_calls":[{"name":"weather","parameters":{"city":"Oslo"}}]}`, true},
		{"v1 NDJSON stream", "{\"is_finished\":false,\"event_type\":\"stream-start\",\"generation_id\":\"g1\"}\n{\"is_finished\":true,\"event_type\":\"stream-end\",\"finish_reason\":\"COMPLETE\"}\n", true},
		{"error body", `{"message":"invalid api token"}`, false},
		{"not a body", "garbage", false},
	}
	for _, tt := range tests {
		reqs := cohere.Protocol.Requirements([]byte(tt.body))
		if got := len(reqs) == 1; got != tt.v1 || len(reqs) > 1 {
			t.Errorf("%s: %d requirements, want v1 %v", tt.desc, len(reqs), tt.v1)
			continue
		}
		if tt.v1 && reqs[0].Carried != nil {
			t.Errorf("%s: a v1 recording is carried by some request; serve takes only v2 ones", tt.desc)
		}
	}
}
