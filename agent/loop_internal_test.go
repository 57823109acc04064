package agent

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

// TestAssignIDs checks that every call of a step leaves with an id no
// other call of the conversation has: empty ids are filled in, ids used
// earlier in the history (by a call or a result) or earlier in the step
// are replaced and noted, and a fresh id never collides with one taken.
func TestAssignIDs(t *testing.T) {
	history := []core.Message{
		{Role: core.RoleUser, Parts: []core.Part{core.TextPart("go")}},
		{Role: core.RoleAssistant, Parts: []core.Part{core.CallPart(core.Call{ID: "gemini_call_0", Name: "a"})}},
		{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: "gemini_call_0", Name: "a"})}},
		{Role: core.RoleAssistant, Parts: []core.Part{core.CallPart(core.Call{ID: "call_3_1", Name: "a"})}},
		{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: "orphan_result", Name: "a"})}},
	}
	tests := []struct {
		name      string
		ids       []string
		wantIDs   []string
		wantNoted []bool
	}{
		{"fresh ids kept", []string{"x1", "x2"}, []string{"x1", "x2"}, []bool{false, false}},
		{"empty ids filled", []string{"", ""}, []string{"call_3_1_2", "call_3_2"}, []bool{false, false}},
		{"id from an earlier step", []string{"gemini_call_0"}, []string{"call_3_1_2"}, []bool{true}},
		{"id of a result", []string{"orphan_result"}, []string{"call_3_1_2"}, []bool{true}},
		{"repeat within the step", []string{"dup", "dup", "dup"}, []string{"dup", "call_3_2", "call_3_3"}, []bool{false, true, true}},
		{"fresh id taken later in the step", []string{"", "call_3_1_2"}, []string{"call_3_1_2", "call_3_2"}, []bool{false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := make([]core.Call, len(tt.ids))
			for i, id := range tt.ids {
				calls[i] = core.Call{ID: id, Name: "a"}
			}
			notes := assignIDs(history, calls, 3)
			var gotIDs []string
			var gotNoted []bool
			for i, c := range calls {
				gotIDs = append(gotIDs, c.ID)
				gotNoted = append(gotNoted, notes[i] != "")
			}
			if diff := cmp.Diff(tt.wantIDs, gotIDs); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantNoted, gotNoted); diff != "" {
				t.Errorf("noted in the trace (-want +got):\n%s", diff)
			}
		})
	}
}
