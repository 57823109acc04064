package bedrock_test

import (
	"bytes"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/providers/bedrock"
)

// TestRequirementsByAPI checks that a recording is told to be
// InvokeModel's, and so answers no Converse request, exactly when its
// bytes are the InvokeModel API's: bodies and streams written by the
// adapter for each API, and an AWS error body.
func TestRequirementsByAPI(t *testing.T) {
	resp := &core.Response{ID: "msg_1", Model: "m", Finish: core.FinishToolCalls, Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{
		core.TextPart("Checking."), core.CallPart(core.Call{ID: "toolu_1", Name: "weather", Arguments: []byte(`{"city":"Oslo"}`)}),
	}}}
	body := func(a *bedrock.Adapter) []byte {
		b, err := a.EncodeResponse(resp)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	stream := func(a *bedrock.Adapter) []byte {
		var b bytes.Buffer
		if err := a.EncodeStream(&b, providers.ResponseEvents("bedrock", resp)); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	tests := []struct {
		desc   string
		body   []byte
		invoke bool
	}{
		{"Converse body", body(bedrock.New()), false},
		{"ConverseStream frames", stream(bedrock.New()), false},
		{"InvokeModel body", body(bedrock.New(bedrock.WithAPI(bedrock.InvokeAnthropic))), true},
		{"InvokeModelWithResponseStream chunk frames", stream(bedrock.New(bedrock.WithAPI(bedrock.InvokeAnthropic))), true},
		{"AWS error body", []byte(`{"message":"The security token included in the request is invalid."}`), false},
		{"not a body", []byte("garbage"), false},
	}
	for _, tt := range tests {
		reqs := bedrock.Protocol.Requirements(tt.body)
		if got := len(reqs) == 1; got != tt.invoke || len(reqs) > 1 {
			t.Errorf("%s: %d requirements, want InvokeModel %v", tt.desc, len(reqs), tt.invoke)
			continue
		}
		if tt.invoke && reqs[0].Carried != nil {
			t.Errorf("%s: an InvokeModel recording is carried by some request; serve takes none", tt.desc)
		}
	}
}
