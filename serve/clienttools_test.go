package serve

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/scenarios"
)

// TestClientTools checks which tools a client is told to declare: the
// scenario's own, else one per call name it serves, and always a JSON
// array.
func TestClientTools(t *testing.T) {
	declared := []core.ToolSpec{{Name: "get_weather", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	start := func(name string) core.Event {
		return core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{Name: name, Start: true}}
	}
	tests := []struct {
		name string
		sc   scenarios.Scenario
		want string
	}{
		{"tools.json wins", scenarios.Scenario{Tools: declared, Want: scenarios.Want{Calls: []map[string]any{{"name": "other"}}}},
			`[{"name":"get_weather","description":"d","input_schema":{"type":"object"}}]`},
		{"no calls at all is an empty array, not null", scenarios.Scenario{}, `[]`},
		{"complete, then incomplete, then event names, each once",
			scenarios.Scenario{
				Want:   scenarios.Want{Calls: []map[string]any{{"name": "a"}, {"name": "a"}}, Incomplete: []map[string]any{{"name": "b"}}},
				Events: []core.Event{start("c"), start("b"), {Kind: core.EventText, Text: "x"}, start("")},
			},
			`[{"name":"a","description":"conform test tool a","input_schema":{"type":"object"}},` +
				`{"name":"b","description":"conform test tool b","input_schema":{"type":"object"}},` +
				`{"name":"c","description":"conform test tool c","input_schema":{"type":"object"}}]`},
		{"a call only in incomplete.json is declared (B04, B09)",
			scenarios.Scenario{Want: scenarios.Want{Incomplete: []map[string]any{{"name": "web_search"}}}},
			`[{"name":"web_search","description":"conform test tool web_search","input_schema":{"type":"object"}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(ClientTools(&tt.sc))
			if err != nil {
				t.Fatal(err)
			}
			var w, g any
			if err := json.Unmarshal([]byte(tt.want), &w); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("ClientTools as JSON (-want +got):\n%s", diff)
			}
		})
	}
}
