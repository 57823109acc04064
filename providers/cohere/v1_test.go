package cohere

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/core"
)

// Bytes after the v1 Chat API reference and the v1 "Tool use" and
// "Streaming" guides: tool_calls of {name, parameters} with no id,
// finish_reason COMPLETE, meta.billed_units; NDJSON stream events.

const v1Body = `{"response_id":"a29b5c8e","text":"","generation_id":"f1d3","chat_history":[],"finish_reason":"COMPLETE",
"tool_calls":[{"name":"query_daily_sales_report","parameters":{"day":"2023-09-29"}},{"name":"query_product_catalog","parameters":{"category":"Electronics"}}],
"meta":{"api_version":{"version":"1"},"billed_units":{"input_tokens":692,"output_tokens":66}}}`

const v1StreamBody = `{"is_finished":false,"event_type":"stream-start","generation_id":"f1d3"}
{"is_finished":false,"event_type":"tool-calls-chunk","tool_call_delta":{"index":0,"name":"query_daily_sales_report"}}
{"is_finished":false,"event_type":"tool-calls-chunk","tool_call_delta":{"index":0,"parameters":"{\"day\": \"2023-09-29\"}"}}
{"is_finished":false,"event_type":"tool-calls-generation","text":"I will look up the sales report.","tool_calls":[{"name":"query_daily_sales_report","parameters":{"day":"2023-09-29"}},{"name":"query_product_catalog","parameters":{"category":"Electronics"}}]}
{"is_finished":true,"event_type":"stream-end","response":{"response_id":"a29b5c8e","text":"","generation_id":"f1d3","finish_reason":"COMPLETE","meta":{"billed_units":{"input_tokens":692,"output_tokens":66}}},"finish_reason":"COMPLETE"}
`

func TestDecodeV1(t *testing.T) {
	want := []core.Call{
		{ID: "cohere_v1_call_0", Name: "query_daily_sales_report", Arguments: json.RawMessage(`{"day":"2023-09-29"}`)},
		{ID: "cohere_v1_call_1", Name: "query_product_catalog", Arguments: json.RawMessage(`{"category":"Electronics"}`)},
	}
	resp, err := New().DecodeResponse([]byte(v1Body))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, resp.Calls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if resp.Finish != core.FinishToolCalls || resp.ProviderFinish != "COMPLETE" || resp.Usage == nil || resp.Usage.InputTokens != 692 {
		t.Errorf("finish %q (%q), usage %+v; want tool_calls (COMPLETE), 692 input tokens", resp.Finish, resp.ProviderFinish, resp.Usage)
	}

	got, err := core.Collect(New().DecodeStream(strings.NewReader(v1StreamBody)))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got.Calls()); diff != "" {
		t.Errorf("streamed calls (-want +got):\n%s", diff)
	}
	if got.Finish != core.FinishToolCalls || got.ID != "f1d3" {
		t.Errorf("streamed finish %q, id %q; want tool_calls, f1d3", got.Finish, got.ID)
	}

	text := `{"event_type":"stream-start","generation_id":"g"}` + "\n" +
		`{"event_type":"text-generation","text":"Hel"}` + "\n" + `{"event_type":"text-generation","text":"lo"}` + "\n" +
		`{"event_type":"stream-end","finish_reason":"COMPLETE","response":{"text":"Hello"}}` + "\n"
	got, err = core.Collect(New().DecodeStream(strings.NewReader(text)))
	if err != nil {
		t.Fatal(err)
	}
	if got.Text() != "Hello" || got.Finish != core.FinishStop {
		t.Errorf("text %q, finish %q; want Hello, stop", got.Text(), got.Finish)
	}
}

func TestDecodeV1Errors(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"parameters not an object", `{"text":"","tool_calls":[{"name":"f","parameters":[1]}],"finish_reason":"COMPLETE"}`, "tool_calls[0].parameters"},
		{"call without a name", `{"text":"","tool_calls":[{"parameters":{}}],"finish_reason":"COMPLETE"}`, "tool_calls[0].name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New().DecodeResponse([]byte(tc.body))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one naming %s", err, tc.want)
			}
		})
	}
	// A stream line that is not JSON names its offset.
	_, err := core.Collect(New().DecodeStream(strings.NewReader(`{"event_type":"stream-start"}` + "\n" + `{"event_type":"text-gen`)))
	if err == nil || !strings.Contains(err.Error(), "at byte 30") {
		t.Errorf("err = %v, want one at byte 30", err)
	}
}
