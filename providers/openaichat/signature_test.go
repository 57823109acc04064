package openaichat

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/toolconform/conform/core"
)

// gemSSE frames Gemini OpenAI-compatible chunk payloads as an SSE stream.
func gemSSE(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// gemDelta is one chunk whose first choice's delta holds the tool_calls
// JSON array calls, with the finish reason fin when not empty.
func gemDelta(calls, fin string) string {
	f := "null"
	if fin != "" {
		f = `"` + fin + `"`
	}
	return `{"choices":[{"delta":{"role":"assistant","tool_calls":` + calls + `},"finish_reason":` + f + `,"index":0}],"created":1,"id":"g1","model":"gemini-3-flash-preview","object":"chat.completion.chunk"}`
}

type sigOf struct{ ID, Signature string }

func signatures(calls []core.Call) []sigOf {
	var out []sigOf
	for _, c := range calls {
		out = append(out, sigOf{c.ID, c.Signature})
	}
	return out
}

// TestDecodeStreamSignatures checks G13 in streams: the thought signature
// of a tool call's extra_content ends up on the collected call, whether it
// comes with the call, in a later metadata-only delta naming the call by id
// or by index, under "vertex", or one byte at a time.
func TestDecodeStreamSignatures(t *testing.T) {
	call := func(id, city, extra string) string {
		s := `{"function":{"arguments":"{\"city\":\"` + city + `\"}","name":"get_weather"},"id":"` + id + `","type":"function"`
		if extra != "" {
			s += `,"extra_content":` + extra
		}
		return s + "}"
	}
	google := func(sig string) string { return `{"google":{"thought_signature":"` + sig + `"}}` }
	tests := []struct {
		name   string
		stream string
		want   []sigOf
	}{
		{"signature with each call, no index",
			gemSSE(gemDelta("["+call("a1", "Oslo", google("SIGa"))+"]", ""), gemDelta("["+call("b2", "Bergen", google("SIGb"))+"]", "stop")),
			[]sigOf{{"a1", "SIGa"}, {"b2", "SIGb"}}},
		{"only the first call signed",
			gemSSE(gemDelta("["+call("a1", "Oslo", google("SIGa"))+","+call("b2", "Bergen", "")+"]", "stop")),
			[]sigOf{{"a1", "SIGa"}, {"b2", ""}}},
		{"vertex namespace",
			gemSSE(gemDelta("["+call("a1", "Oslo", `{"vertex":{"thought_signature":"SIGv"}}`)+"]", "stop")),
			[]sigOf{{"a1", "SIGv"}}},
		{"metadata-only delta by id after the call",
			gemSSE(gemDelta("["+call("a1", "Oslo", "")+"]", ""), gemDelta(`[{"id":"a1","extra_content":`+google("SIGlate")+`}]`, ""), gemDelta("[]", "stop")),
			[]sigOf{{"a1", "SIGlate"}}},
		{"metadata-only delta by index after indexed fragments",
			gemSSE(
				gemDelta(`[{"index":0,"id":"a1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":"}}]`, ""),
				gemDelta(`[{"index":0,"function":{"arguments":"\"Oslo\"}"}}]`, ""),
				gemDelta(`[{"index":0,"extra_content":`+google("SIGi")+`}]`, "tool_calls")),
			[]sigOf{{"a1", "SIGi"}}},
		{"no extra_content at all",
			gemSSE(gemDelta("["+call("a1", "Oslo", "")+"]", "stop")),
			[]sigOf{{"a1", ""}}},
	}
	for _, tt := range tests {
		for _, oneByte := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/one-byte=%v", tt.name, oneByte), func(t *testing.T) {
				r := strings.NewReader(tt.stream)
				var s core.EventStream
				if oneByte {
					s = New().DecodeStream(iotest.OneByteReader(r))
				} else {
					s = New().DecodeStream(r)
				}
				resp, err := core.Collect(s)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, signatures(resp.Calls())); diff != "" {
					t.Errorf("calls (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestDecodeResponseSignatures checks G13 in bodies, and that an
// extra_content of the wrong shape is an error naming its byte and path.
func TestDecodeResponseSignatures(t *testing.T) {
	body := func(extra1, extra2 string) string {
		return `{"choices":[{"finish_reason":"tool_calls","index":0,"message":{"role":"assistant","tool_calls":[` +
			`{"function":{"arguments":"{}","name":"f"},"id":"a1","type":"function"` + extra1 + `},` +
			`{"function":{"arguments":"{}","name":"f"},"id":"b2","type":"function"` + extra2 + `}]}}],"id":"r","model":"gemini-3-flash-preview","object":"chat.completion"}`
	}
	tests := []struct {
		name    string
		body    string
		want    []sigOf
		wantErr string
	}{
		{"google and vertex", body(`,"extra_content":{"google":{"thought_signature":"S1"}}`, `,"extra_content":{"vertex":{"thought_signature":"S2"}}`),
			[]sigOf{{"a1", "S1"}, {"b2", "S2"}}, ""},
		{"one signed", body(`,"extra_content":{"google":{"thought_signature":"S1"}}`, ""), []sigOf{{"a1", "S1"}, {"b2", ""}}, ""},
		{"none", body("", ""), []sigOf{{"a1", ""}, {"b2", ""}}, ""},
		{"signature not a string", body(`,"extra_content":{"google":{"thought_signature":5}}`, ""), nil,
			"extra_content.google.thought_signature"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := New().DecodeResponse([]byte(tt.body))
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), "openai-chat: decode response: at byte ") || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, core.ErrMalformed) {
					t.Fatalf("error %v, want one naming the byte and %q, wrapping core.ErrMalformed", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, signatures(resp.Calls())); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEncodeRequestSignatures checks that a call's Signature is echoed as
// extra_content.google.thought_signature on its own tool call, also when
// the call id is mapped (D04), and that DecodeRequest reads it back.
func TestEncodeRequestSignatures(t *testing.T) {
	long := "fc_68f0c2a6e4f4819da8b5b1b0a6f0e9a10d3c5e7f9b2a4c6e"
	req := &core.Request{Model: "gemini-3-flash-preview", Messages: []core.Message{
		{Role: core.RoleUser, Parts: []core.Part{core.TextPart("Weather in Oslo and Bergen?")}},
		{Role: core.RoleAssistant, Parts: []core.Part{
			core.CallPart(core.Call{ID: "a1", Name: "f", Arguments: json.RawMessage(`{"city":"Oslo"}`), Signature: "SIGa"}),
			core.CallPart(core.Call{ID: "b2", Name: "f", Arguments: json.RawMessage(`{"city":"Bergen"}`)}),
			core.CallPart(core.Call{ID: long, Name: "f", Arguments: json.RawMessage(`{"city":"Molde"}`), Signature: "SIGc"}),
		}},
		{Role: core.RoleTool, Parts: []core.Part{
			core.ResultPart(core.Result{CallID: "a1", Content: []core.Part{core.TextPart("12")}}),
			core.ResultPart(core.Result{CallID: "b2", Content: []core.Part{core.TextPart("9")}}),
			core.ResultPart(core.Result{CallID: long, Content: []core.Part{core.TextPart("7")}}),
		}},
	}}
	a := New()
	body, err := a.EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	var w struct {
		Messages []struct {
			ToolCalls []struct {
				ID    string          `json:"id"`
				Extra json.RawMessage `json:"extra_content"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatal(err)
	}
	mapped, err := a.IDMap.ToWire(long)
	if err != nil {
		t.Fatal(err)
	}
	type wireCall struct{ ID, Extra string }
	var got []wireCall
	for _, tc := range w.Messages[1].ToolCalls {
		got = append(got, wireCall{tc.ID, string(tc.Extra)})
	}
	want := []wireCall{
		{"a1", `{"google":{"thought_signature":"SIGa"}}`},
		{"b2", ""},
		{mapped, `{"google":{"thought_signature":"SIGc"}}`},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tool_calls (-want +got):\n%s", diff)
	}
	back, err := a.DecodeRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]sigOf{{"a1", "SIGa"}, {"b2", ""}, {long, "SIGc"}}, signatures(back.Messages[1].Calls())); diff != "" {
		t.Errorf("decoded calls (-want +got):\n%s", diff)
	}

	// Without signatures the codec's body is returned byte for byte.
	req.Messages[1].Parts[0].Call.Signature, req.Messages[1].Parts[2].Call.Signature = "", ""
	plain, err := New().EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(plain), "extra_content") {
		t.Errorf("unsigned request has extra_content: %s", plain)
	}
}

// TestDecodeStreamSignaturesSplit is a property: for streams built from
// Gemini-style call deltas, signed or not, and signature-only deltas naming
// their call by id or by index, the calls and signatures collected do not
// depend on how the stream is cut into reads, and every signature sent for
// a call that exists ends up on that call.
func TestDecodeStreamSignaturesSplit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 4).Draw(t, "calls")
		want := make([]sigOf, n)
		var chunks []string
		for k := 0; k < n; k++ {
			id := fmt.Sprintf("c%d", k)
			want[k].ID = id
			extra := ""
			switch rapid.IntRange(0, 3).Draw(t, "sign") {
			case 1: // on the call
				want[k].Signature = "S" + id
				extra = `,"extra_content":{"google":{"thought_signature":"S` + id + `"}}`
			}
			chunks = append(chunks, gemDelta(fmt.Sprintf(`[{"index":%d,"id":%q,"type":"function","function":{"name":"f","arguments":"{}"}%s}]`, k, id, extra), ""))
		}
		for k := 0; k < n; k++ {
			if want[k].Signature != "" || !rapid.Bool().Draw(t, "late") {
				continue
			}
			want[k].Signature = fmt.Sprintf("L%d", k)
			ref := fmt.Sprintf(`"id":"c%d"`, k)
			if rapid.Bool().Draw(t, "by-index") {
				ref = fmt.Sprintf(`"index":%d`, k)
			}
			chunks = append(chunks, gemDelta(`[{`+ref+`,"extra_content":{"google":{"thought_signature":"`+want[k].Signature+`"}}}]`, ""))
		}
		chunks = append(chunks, gemDelta("[]", "tool_calls"))
		stream := gemSSE(chunks...)
		sizes := rapid.SliceOfN(rapid.IntRange(1, 64), 1, 32).Draw(t, "reads")
		for _, r := range []io.Reader{strings.NewReader(stream), &cutReader{s: stream, sizes: sizes}} {
			resp, err := core.Collect(New().DecodeStream(r))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, signatures(resp.Calls())); diff != "" {
				t.Fatalf("calls (-want +got):\n%s", diff)
			}
		}
	})
}

// cutReader returns s in reads of the given sizes, cycling through them.
type cutReader struct {
	s     string
	sizes []int
	i     int
}

func (r *cutReader) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	n := min(r.sizes[r.i%len(r.sizes)], len(p), len(r.s))
	r.i++
	copy(p, r.s[:n])
	r.s = r.s[n:]
	return n, nil
}
