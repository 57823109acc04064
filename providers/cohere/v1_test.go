package cohere

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
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

// TestDialectAfterWhiteSpace checks that the dialect is told from the
// first byte that is not white space however far it is and however the
// stream is read, up to maxPeek bytes, and that a v1 stream after more
// white space than that is read as v2, which does not know it.
func TestDialectAfterWhiteSpace(t *testing.T) {
	want, err := adaptertest.Drain(New().DecodeStream(strings.NewReader(v1StreamBody)))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 63, 64, 65, 511, 512, 513, 1100, maxPeek - 1} {
		body := strings.Repeat(" \n\t\r", n/4) + strings.Repeat(" ", n%4) + v1StreamBody
		for _, size := range []int{1, 7, 64, 4096} {
			got, err := adaptertest.Drain(New().DecodeStream(adaptertest.SplitReader([]byte(body), size)))
			if err != nil {
				t.Fatalf("%d bytes of white space, reads of %d: %v", n, size, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%d bytes of white space, reads of %d (-want +got):\n%s", n, size, diff)
			}
		}
	}
	_, err = adaptertest.Drain(New().DecodeStream(strings.NewReader(strings.Repeat(" ", maxPeek) + v1StreamBody)))
	if !errors.Is(err, core.ErrNotStream) {
		t.Errorf("v1 after %d spaces: error %v, want one wrapping core.ErrNotStream", maxPeek, err)
	}
}
