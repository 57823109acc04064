package bedrock

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/core"
)

// The Converse shapes of a provider-run tool follow the Bedrock API
// reference (ToolUseBlock and ToolUseBlockStart carry "type", whose one
// value is "server_tool_use") and the Nova web grounding and code
// interpreter examples of the Amazon Nova user guide: the toolUse of the
// system tool, then the toolResult Bedrock produced, then the answer, all
// in the assistant's message.

const serverToolResponse = `{"output":{"message":{"role":"assistant","content":[
{"text":"Let me look that up."},
{"toolUse":{"toolUseId":"tooluse_grd01","name":"nova_grounding","type":"server_tool_use","input":{"query":"tallest building 2025"}}},
{"toolResult":{"toolUseId":"tooluse_grd01","content":[{"text":"Burj Khalifa, 828 m"}],"status":"success"}},
{"text":"The Burj Khalifa is the tallest."},
{"toolUse":{"toolUseId":"tooluse_cli01","name":"get_weather","input":{"city":"Dubai"}}}]}},
"stopReason":"tool_use","usage":{"inputTokens":40,"outputTokens":30,"totalTokens":70}}`

func TestServerToolUseIsNotAClientCall(t *testing.T) {
	resp, err := New().DecodeResponse([]byte(serverToolResponse))
	if err != nil {
		t.Fatal(err)
	}
	want := []core.Part{
		core.TextPart("Let me look that up."),
		core.TextPart("The Burj Khalifa is the tallest."),
		core.CallPart(core.Call{ID: "tooluse_cli01", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Dubai"}`)}),
	}
	if diff := cmp.Diff(want, resp.Message.Parts); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}

	// A request whose history holds the same turn: the server tool's use
	// and result are neither a call nor a tool message.
	req := `{"messages":[{"role":"user","content":[{"text":"Tallest building?"}]},` +
		`{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_grd01","name":"nova_grounding","type":"server_tool_use","input":{"query":"q"}}},` +
		`{"toolResult":{"toolUseId":"tooluse_grd01","content":[{"text":"Burj Khalifa"}]}},{"text":"The Burj Khalifa."}]}]}`
	got, err := New().DecodeRequest([]byte(req))
	if err != nil {
		t.Fatal(err)
	}
	wantMsgs := []core.Message{
		{Role: core.RoleUser, Parts: []core.Part{core.TextPart("Tallest building?")}},
		{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart("The Burj Khalifa.")}},
	}
	if diff := cmp.Diff(wantMsgs, got.Messages); diff != "" {
		t.Errorf("request messages (-want +got):\n%s", diff)
	}
}

// serverToolStream is a ConverseStream turn: text, a server tool (block 1)
// with input deltas, its toolResult block (2), more text, a client call.
func serverToolStream(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := eventstream.NewEncoder()
	for _, ev := range []struct{ typ, payload string }{
		{"messageStart", `{"role":"assistant"}`},
		{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Let me look that up."}}`},
		{"contentBlockStop", `{"contentBlockIndex":0}`},
		{"contentBlockStart", `{"contentBlockIndex":1,"start":{"toolUse":{"toolUseId":"tooluse_grd01","name":"nova_grounding","type":"server_tool_use"}}}`},
		{"contentBlockDelta", `{"contentBlockIndex":1,"delta":{"toolUse":{"input":"{\"query\":\"tallest building 2025\"}"}}}`},
		{"contentBlockStop", `{"contentBlockIndex":1}`},
		{"contentBlockStart", `{"contentBlockIndex":2,"start":{"toolResult":{"toolUseId":"tooluse_grd01","type":"nova_grounding_result"}}}`},
		{"contentBlockDelta", `{"contentBlockIndex":2,"delta":{"toolResult":[{"text":"Burj Khalifa, 828 m"}]}}`},
		{"contentBlockStop", `{"contentBlockIndex":2}`},
		{"contentBlockDelta", `{"contentBlockIndex":3,"delta":{"text":"The Burj Khalifa is the tallest."}}`},
		{"contentBlockStop", `{"contentBlockIndex":3}`},
		{"contentBlockStart", `{"contentBlockIndex":4,"start":{"toolUse":{"toolUseId":"tooluse_cli01","name":"get_weather"}}}`},
		{"contentBlockDelta", `{"contentBlockIndex":4,"delta":{"toolUse":{"input":"{\"city\":\"Dubai\"}"}}}`},
		{"contentBlockStop", `{"contentBlockIndex":4}`},
		{"messageStop", `{"stopReason":"tool_use"}`},
		{"metadata", `{"usage":{"inputTokens":40,"outputTokens":30,"totalTokens":70},"metrics":{"latencyMs":900}}`},
	} {
		if err := writeFrame(enc, &buf, eventHeaders(ev.typ), []byte(ev.payload)); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func TestServerToolUseStreamedIsNotAClientCall(t *testing.T) {
	frames := serverToolStream(t)
	resp, err := core.Collect(New().DecodeStream(bytes.NewReader(frames)))
	if err != nil {
		t.Fatal(err)
	}
	want := []core.Call{{ID: "tooluse_cli01", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Dubai"}`)}}
	if diff := cmp.Diff(want, resp.Calls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if got, want := resp.Text(), "Let me look that up.The Burj Khalifa is the tallest."; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
}
