package bedrock

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// TestEncodeRequestRefusesBadHistory checks that both APIs refuse what
// Bedrock answers with a 400, naming the message, the call and the guard.
func TestEncodeRequestRefusesBadHistory(t *testing.T) {
	user, calls, results := adaptertest.UserText("hi"), adaptertest.CallsMessage, adaptertest.ResultsMessage
	tests := []adaptertest.HistoryCase{
		{Name: "G01 call followed by a user turn", Msgs: []core.Message{user, calls("a"), user}, Want: `messages[1]: call "a": tool call without a result (G01)`, Is: core.ErrMissingResult},
		{Name: "G01 call at the end", Msgs: []core.Message{user, calls("a")}, Want: `messages[1]: call "a"`, Is: core.ErrMissingResult},
		{Name: "G02 orphan result", Msgs: []core.Message{user, results("x")}, Want: `messages[1]: call "x": tool result without a call (G02)`, Is: core.ErrOrphanResult},
		{Name: "G03 one of two results missing", Msgs: []core.Message{user, calls("a", "b"), results("a"), user}, Want: `messages[1]: call "b"`, Is: core.ErrMissingResult},
		{Name: "G06 result without id", Msgs: []core.Message{user, calls("a"), results("")}, Want: `messages[2]: tool result without a call id (G06)`, Is: core.ErrResultWithoutID},
	}
	for _, api := range []API{Converse, InvokeAnthropic} {
		t.Run(fmt.Sprint(api), func(t *testing.T) {
			adaptertest.CheckHistoryCases(t, "bedrock: history: ", tests, func(r *core.Request) error {
				_, err := New(WithAPI(api)).EncodeRequest(r)
				return err
			})
		})
	}
}

// TestEncodeRequestRefusesBadToolName checks E01 and E02: names outside
// ^[a-zA-Z0-9_-]{1,64}$ are refused naming the tool and its index.
func TestEncodeRequestRefusesBadToolName(t *testing.T) {
	long := strings.Repeat("a", 65)
	tests := []struct {
		name, tool, want string
	}{
		{"E01 slash and space", "fs/read file", `tools[1]: check tool name "fs/read file": character '/' at byte 2 not allowed`},
		{"E02 65 characters", long, `tools[1]: check tool name "` + long + `": 65 bytes long`},
		{"empty", "", `tools[1]: check tool name "": empty`},
	}
	for _, api := range []API{Converse, InvokeAnthropic} {
		for _, tt := range tests {
			t.Run(fmt.Sprint(api)+"/"+tt.name, func(t *testing.T) {
				req := &core.Request{
					Messages: []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}}},
					Tools:    []core.ToolSpec{{Name: "ok_name-1"}, {Name: tt.tool}},
				}
				_, err := New(WithAPI(api)).EncodeRequest(req)
				if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "NameMapper") {
					t.Fatalf("error %v, want one containing %q and naming NameMapper", err, tt.want)
				}
				if !errors.Is(err, core.ErrInvalidName) {
					t.Errorf("error %v does not wrap core.ErrInvalidName", err)
				}
			})
		}
	}
}

// TestEncodeRequestResultsAndEmptyText checks that results are sent in the
// order of the calls (G05), whether in one tool message or several, and that
// empty and white-space-only text blocks are left out of a request (G11).
func TestEncodeRequestResultsAndEmptyText(t *testing.T) {
	call := func(id string) core.Part {
		return core.CallPart(core.Call{ID: id, Name: "f", Arguments: json.RawMessage(`{}`)})
	}
	result := func(id string) core.Part {
		return core.ResultPart(core.Result{CallID: id, Content: []core.Part{core.TextPart(id + "!")}})
	}
	user := core.Message{Role: core.RoleUser, Parts: []core.Part{core.TextPart("go")}}
	tests := []struct {
		name string
		msgs []core.Message
		want []string // wire blocks of the last message, as keys and ids
	}{
		{
			name: "G05 results of one message reordered",
			msgs: []core.Message{user, {Role: core.RoleAssistant, Parts: []core.Part{call("a"), call("b"), call("c")}},
				{Role: core.RoleTool, Parts: []core.Part{result("c"), result("a"), result("b")}}},
			want: []string{"result a", "result b", "result c"},
		},
		{
			name: "G05 results of several messages reordered, user text after them kept last",
			msgs: []core.Message{user, {Role: core.RoleAssistant, Parts: []core.Part{call("a"), call("b")}},
				{Role: core.RoleTool, Parts: []core.Part{result("b")}}, {Role: core.RoleTool, Parts: []core.Part{result("a")}}, user},
			want: []string{"result a", "result b", "text go"},
		},
		{
			name: "results already in order kept",
			msgs: []core.Message{user, {Role: core.RoleAssistant, Parts: []core.Part{call("a"), call("b")}},
				{Role: core.RoleTool, Parts: []core.Part{result("a"), result("b")}}},
			want: []string{"result a", "result b"},
		},
		{
			name: "G11 empty text beside a toolUse left out",
			msgs: []core.Message{user, {Role: core.RoleAssistant, Parts: []core.Part{core.TextPart(""), call("a"), core.TextPart("")}}},
			want: []string{"use a"},
		},
		{
			name: "G11 white-space-only text beside a toolUse left out",
			msgs: []core.Message{user, {Role: core.RoleAssistant, Parts: []core.Part{core.TextPart(" "), call("a"), core.TextPart("\n\t")}}},
			want: []string{"use a"},
		},
		{
			name: "G11 white-space-only user text after results left out",
			msgs: []core.Message{user, {Role: core.RoleAssistant, Parts: []core.Part{call("a")}},
				{Role: core.RoleTool, Parts: []core.Part{result("a")}}, {Role: core.RoleUser, Parts: []core.Part{core.TextPart(" \u00a0")}}},
			want: []string{"result a"},
		},
		{
			name: "text with white space around it kept as given",
			msgs: []core.Message{user, {Role: core.RoleAssistant, Parts: []core.Part{core.TextPart(" x\n"), call("a")}}},
			want: []string{"text  x\n", "use a"},
		},
	}
	for _, api := range []API{Converse, InvokeAnthropic} {
		for _, tt := range tests {
			t.Run(fmt.Sprint(api)+"/"+tt.name, func(t *testing.T) {
				msgs := tt.msgs
				k := 1 // wire message counted from the end
				if last := msgs[len(msgs)-1]; last.Role == core.RoleAssistant {
					// Answer the calls so that the history is sound.
					var rs []core.Part
					for _, c := range last.Calls() {
						rs = append(rs, result(c.ID))
					}
					msgs = append(append([]core.Message(nil), msgs...), core.Message{Role: core.RoleTool, Parts: rs})
					k = 2
				}
				body, err := New(WithAPI(api)).EncodeRequest(&core.Request{Messages: msgs, MaxTokens: 10})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, blockSummary(t, body, k)); diff != "" {
					t.Errorf("blocks (-want +got):\n%s\nbody %s", diff, body)
				}
			})
		}
	}
}

// blockSummary lists the blocks of the k-th wire message from the end of a
// Converse or Anthropic Messages body as "text T", "use ID", "result ID".
func blockSummary(t *testing.T, body []byte, k int) []string {
	t.Helper()
	var out struct {
		Messages []struct {
			Content []map[string]json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	str := func(raw json.RawMessage) string {
		var s string
		_ = json.Unmarshal(raw, &s)
		return s
	}
	field := func(raw json.RawMessage, name string) string {
		var m map[string]json.RawMessage
		_ = json.Unmarshal(raw, &m)
		return str(m[name])
	}
	var got []string
	for _, b := range out.Messages[len(out.Messages)-k].Content {
		typ := str(b["type"])
		switch {
		case b["text"] != nil:
			got = append(got, "text "+str(b["text"]))
		case b["toolUse"] != nil:
			got = append(got, "use "+field(b["toolUse"], "toolUseId"))
		case typ == "tool_use":
			got = append(got, "use "+str(b["id"]))
		case b["toolResult"] != nil:
			got = append(got, "result "+field(b["toolResult"], "toolUseId"))
		case typ == "tool_result":
			got = append(got, "result "+str(b["tool_use_id"]))
		default:
			got = append(got, "other")
		}
	}
	return got
}
