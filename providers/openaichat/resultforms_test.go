package openaichat

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/core"
)

// TestResultForms checks that each other form of tool message content
// changes the body and decodes to the same request.
func TestResultForms(t *testing.T) {
	call := core.Call{ID: "call_1", Name: "add", Arguments: []byte(`{"a":1}`)}
	req := &core.Request{
		Model: "gpt-x",
		Tools: []core.ToolSpec{{Name: "add", InputSchema: []byte(`{"type":"object"}`)}},
		Messages: []core.Message{
			{Role: core.RoleUser, Parts: []core.Part{core.TextPart("go")}},
			{Role: core.RoleAssistant, Parts: []core.Part{core.CallPart(call)}},
			{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: call.ID, Content: []core.Part{core.TextPart(`{"a":1}`)}})}},
		},
	}
	a := New()
	body, err := a.EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	want, err := a.DecodeRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range Protocol.Grading.ResultForms {
		alt, err := f.Rewrite(body)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if !strings.Contains(string(alt), `"content":[{"text":"{\"a\":1}","type":"text"}]`) {
			t.Errorf("%s: the tool message's content is not a list:\n%s", f.Name, alt)
		}
		got, err := a.DecodeRequest(alt)
		if err != nil {
			t.Fatalf("%s: %v\n%s", f.Name, err, alt)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: decodes to another request (-want +got):\n%s", f.Name, diff)
		}
	}
}
