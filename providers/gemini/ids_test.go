package gemini

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"pgregory.net/rapid"
)

// TestResponseCallID pins the generated id format: the same inputs give
// the same id, a responseId decides the key alone, and without one the
// call's name and arguments do, compared as JSON values.
func TestResponseCallID(t *testing.T) {
	tests := []struct {
		name       string
		responseID string
		call       string
		args       string
		k          int
		want       string
	}{
		{"by responseId", "r1", "add", `{"a":1}`, 0, "gemini_call_41fdf4b45f53_0"},
		{"by responseId, the call does not count", "r1", "other", `{"b":2}`, 0, "gemini_call_41fdf4b45f53_0"},
		{"by responseId, second call", "r1", "add", `{"a":1}`, 1, "gemini_call_41fdf4b45f53_1"},
		{"by call", "", "add", `{"a":1}`, 0, "gemini_call_525c8e103325_0"},
		{"by call, spacing does not count", "", "add", `{ "a" : 1 }`, 0, "gemini_call_525c8e103325_0"},
		{"by call, key order does not count", "", "w", `{"b":1,"a":"x"}`, 2, responseCallID("", "w", json.RawMessage(`{"a":"x","b":1}`), 2)},
		{"by call, another name", "", "sub", `{"a":1}`, 0, "gemini_call_a1190f70c921_0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := responseCallID(tt.responseID, tt.call, json.RawMessage(tt.args), tt.k); got != tt.want {
				t.Errorf("responseCallID(%q, %q, %s, %d) = %q, want %q", tt.responseID, tt.call, tt.args, tt.k, got, tt.want)
			}
		})
	}
	if responseCallID("r1", "", nil, 0) == responseCallID("r2", "", nil, 0) {
		t.Error("two responseIds give the same id")
	}
}

var idRE = regexp.MustCompile(`^gemini_call_[0-9a-f]{12}_[0-9]+$`)

// idCall is one drawn id-less call with flat arguments, which the
// partialArgs form can also carry.
type idCall struct {
	name string
	args map[string]any
}

func drawIDCalls(t *rapid.T) []idCall {
	n := rapid.IntRange(1, 4).Draw(t, "calls")
	var calls []idCall
	for i := 0; i < n; i++ {
		c := idCall{name: rapid.SampledFrom([]string{"add", "get_weather", "f"}).Draw(t, "name"), args: map[string]any{}}
		for j, m := 0, rapid.IntRange(0, 3).Draw(t, "fields"); j < m; j++ {
			k := rapid.StringMatching(`[a-z]{1,4}`).Draw(t, "key")
			switch rapid.IntRange(0, 2).Draw(t, "kind") {
			case 0:
				c.args[k] = rapid.StringMatching(`[a-zA-Z "\\é]{0,8}`).Draw(t, "s")
			case 1:
				c.args[k] = float64(rapid.IntRange(-100, 100).Draw(t, "n"))
			default:
				c.args[k] = rapid.Bool().Draw(t, "b")
			}
		}
		calls = append(calls, c)
	}
	return calls
}

func mustJSON(t *rapid.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// partialChunks writes a call as Vertex partialArgs chunks: the name, one
// chunk per field, and an empty closing functionCall.
func partialChunks(t *rapid.T, c idCall, meta string) []string {
	chunk := func(fc string) string {
		return `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":` + fc + `}]}}]` + meta + `}`
	}
	out := []string{chunk(`{"name":` + mustJSON(t, c.name) + `,"willContinue":true}`)}
	for k, v := range c.args {
		pa := map[string]any{"jsonPath": "$." + k}
		switch v := v.(type) {
		case string:
			pa["stringValue"] = v
		case float64:
			pa["numberValue"] = v
		case bool:
			pa["boolValue"] = v
		}
		out = append(out, chunk(`{"partialArgs":[`+mustJSON(t, pa)+`],"willContinue":true}`))
	}
	return append(out, chunk(`{}`))
}

// TestPropGeneratedIDs states, for id-less calls (D01) with and without a
// responseId: the ids are well formed and distinct within a response; the
// same body gives the same ids; the response streamed as SSE (one chunk per
// call, or Vertex partialArgs) and as a JSON array gives the ids of the
// response whole; and another responseId gives other ids.
func TestPropGeneratedIDs(t *testing.T) {
	a := New()
	rapid.Check(t, func(t *rapid.T) {
		calls := drawIDCalls(t)
		rid := rapid.SampledFrom([]string{"", "resp-A", "Oy3qZ7nZHYzO1MkPuMOQ6Ac"}).Draw(t, "responseId")
		meta := ""
		if rid != "" {
			meta = `,"responseId":` + mustJSON(t, rid)
		}
		var parts []string
		for _, c := range calls {
			parts = append(parts, `{"functionCall":{"name":`+mustJSON(t, c.name)+`,"args":`+mustJSON(t, c.args)+`}}`)
		}
		body := `{"candidates":[{"content":{"role":"model","parts":[` + strings.Join(parts, ",") + `]},"finishReason":"STOP"}]` + meta + `}`
		whole, err := a.DecodeResponse([]byte(body))
		if err != nil {
			t.Fatalf("decode %s: %v", body, err)
		}
		ids := idsOf(whole.Calls())
		seen := map[string]bool{}
		for _, id := range ids {
			if !idRE.MatchString(id) || len(id) > 40 {
				t.Fatalf("id %q is not gemini_call_<12 hex>_<k> within 40 characters", id)
			}
			if seen[id] {
				t.Fatalf("id %q repeats within the response", id)
			}
			seen[id] = true
		}
		again, _ := a.DecodeResponse([]byte(body))
		if diff := cmp.Diff(ids, idsOf(again.Calls())); diff != "" {
			t.Fatalf("same body, other ids (-first +again):\n%s", diff)
		}

		var perCall, partial []string
		for i, p := range parts {
			fin := ""
			if i == len(parts)-1 {
				fin = `,"finishReason":"STOP"`
			}
			perCall = append(perCall, `{"candidates":[{"content":{"role":"model","parts":[`+p+`]}`+fin+`}]`+meta+`}`)
			partial = append(partial, partialChunks(t, calls[i], meta)...)
		}
		partial = append(partial, `{"candidates":[{"finishReason":"STOP"}]`+meta+`}`)
		streams := map[string]string{
			"SSE, one chunk per call": sseBody(perCall...),
			"JSON array":              "[" + strings.Join(perCall, ",") + "]",
			"SSE, partialArgs":        sseBody(partial...),
		}
		for name, s := range streams {
			resp, err := core.Collect(a.DecodeStream(strings.NewReader(s)))
			if err != nil {
				t.Fatalf("%s: collect: %v\n%s", name, err, s)
			}
			if diff := cmp.Diff(ids, idsOf(resp.Calls())); diff != "" {
				t.Fatalf("%s: ids differ from the whole response's (-whole +streamed):\n%s\n%s", name, diff, s)
			}
		}

		if rid != "" {
			other, err := a.DecodeResponse([]byte(strings.Replace(body, mustJSON(t, rid), `"other-response"`, 1)))
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range idsOf(other.Calls()) {
				if seen[id] {
					t.Fatalf("id %q is given again for another responseId", id)
				}
			}
		}
	})
}

func idsOf(calls []core.Call) []string {
	var ids []string
	for _, c := range calls {
		ids = append(ids, c.ID)
	}
	return ids
}

// TestGeneratedIDsNotSentBack checks that a history of two id-less turns
// re-encodes for Gemini without the made-up ids, calls and results alike,
// and decodes back with each result paired to its call.
func TestGeneratedIDsNotSentBack(t *testing.T) {
	a := New()
	body := func(rid string) []byte {
		return []byte(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}},{"functionCall":{"name":"g","args":{}}}]},"finishReason":"STOP"}],"responseId":"` + rid + `"}`)
	}
	msgs := []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("go")}}}
	for i, rid := range []string{"t1", "t2"} {
		r, err := a.DecodeResponse(body(rid))
		if err != nil {
			t.Fatal(err)
		}
		res := core.Message{Role: core.RoleTool}
		for _, c := range r.Calls() {
			res.Parts = append(res.Parts, core.ResultPart(core.Result{CallID: c.ID, Name: c.Name, Content: []core.Part{core.TextPart("ok " + strconv.Itoa(i))}}))
		}
		msgs = append(msgs, r.Message, res)
	}
	out, err := a.EncodeRequest(&core.Request{Model: "m", Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), GeneratedIDPrefix) || strings.Contains(string(out), `"id"`) {
		t.Errorf("request carries generated ids:\n%s", out)
	}
	back, err := a.DecodeRequest(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := core.CheckHistory(back.Messages); err != nil {
		t.Errorf("decoded history does not pair results with calls: %v", err)
	}
}
