package serve

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRefusedFollowUpGradedOnTheRest sends a Converse follow-up that serve
// refuses, as the API does, for a toolResult whose content is not a list
// (G15), and that also answers the second call under a wrong id: the
// refusal does not hide the wrong id (G02) nor the call left without its
// result (G01).
func TestRefusedFollowUpGradedOnTheRest(t *testing.T) {
	const name = "bedrock/response/D07-text-and-two-calls"
	s, ts := newServer(t, Options{})
	p := poster{t: t, ts: ts, name: name, protocol: "bedrock"}
	status, data := p.post(`{"messages":[{"role":"user","content":[{"text":"hi"}]}]}`, false)
	if status != 200 {
		t.Fatalf("first: %d %s", status, data)
	}
	var first struct {
		Output struct {
			Message struct {
				Content []json.RawMessage `json:"content"`
			} `json:"message"`
		} `json:"output"`
	}
	if err := json.Unmarshal(data, &first); err != nil {
		t.Fatal(err)
	}
	var uses, ids []string
	for _, b := range first.Output.Message.Content {
		var blk struct {
			ToolUse *struct {
				ToolUseID string `json:"toolUseId"`
			} `json:"toolUse"`
		}
		json.Unmarshal(b, &blk)
		if blk.ToolUse != nil {
			uses, ids = append(uses, string(b)), append(ids, blk.ToolUse.ToolUseID)
		}
	}
	if len(ids) != 2 {
		t.Fatalf("want two calls served, got %d: %s", len(ids), data)
	}
	results := fmt.Sprintf(`{"toolResult":{"toolUseId":%q,"content":"ok"}},{"toolResult":{"toolUseId":"tooluse_wrong","content":[{"text":"ok"}]}}`, ids[0])
	body := `{"messages":[{"role":"user","content":[{"text":"hi"}]},{"role":"assistant","content":[` + strings.Join(uses, ",") + `]},{"role":"user","content":[` + results + `]}]}`
	if status, data := p.post(body, false); status != 400 {
		t.Fatalf("follow-up: status %d, want 400: %s", status, data)
	}
	if diff := cmp.Diff([]string{"G02", "G01", "G15"}, verdictRules(t, s, name)); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
}
