package cassettes

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
)

// rubyVCR is a Ruby VCR cassette in the shape ruby_llm records (VCR 6,
// lower-case method, body.encoding and body.string, headers as lists,
// recorded_at, recorded_with).
const rubyVCR = `---
http_interactions:
- request:
    method: post
    uri: https://api.openai.com/v1/chat/completions
    body:
      encoding: UTF-8
      string: '{"model":"gpt-4.1-nano","messages":[{"role":"user","content":"Weather in Oslo?"}],"stream":false}'
    headers:
      User-Agent:
      - Faraday v2.13.1
      Authorization:
      - Bearer <OPENAI_API_KEY>
      Content-Type:
      - application/json
  response:
    status:
      code: 200
      message: OK
    headers:
      Content-Type:
      - application/json
    body:
      encoding: ASCII-8BIT
      string: '{"id":"chatcmpl-rb1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_rb1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Oslo\"}"}}]},"finish_reason":"tool_calls"}]}'
  recorded_at: Thu, 26 Nov 2026 12:00:00 GMT
recorded_with: VCR 6.3.1
`

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestImportSniffsContent(t *testing.T) {
	geminiSSE := "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"weather\",\"args\":{\"city\":\"Oslo\"}}}]},\"finishReason\":\"STOP\"}]}\r\n\r\n"
	tests := []struct {
		name     string
		file     string
		data     []byte
		protocol string
		format   Format
		// in is text the first interaction's response body must hold.
		in string
	}{
		{"ruby VCR", "weather.yml", []byte(rubyVCR), "", FormatVCR, `"call_rb1"`},
		{"ruby VCR gzip-compressed", "weather.yml.gz", gz(t, []byte(rubyVCR)), "", FormatVCR, `"call_rb1"`},
		{"gemini SSE named .json", "stream_tool_call.json", []byte(geminiSSE), "gemini", FormatSSE, `"functionCall"`},
		{"JSON named .sse", "body.sse", []byte(`{"id":"chatcmpl-x","choices":[]}`), "openai-chat", FormatJSON, `"chatcmpl-x"`},
		{"ruby VCR with no extension", "weather", []byte(rubyVCR), "", FormatVCR, `"call_rb1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []Option
			if tt.protocol != "" {
				opts = append(opts, WithProtocol(tt.protocol))
			}
			res, err := Import(tt.file, tt.data, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if res.Format != tt.format {
				t.Errorf("format %s, want %s", res.Format, tt.format)
			}
			if len(res.Cassette.Interactions) != 1 {
				t.Fatalf("%d interactions, want 1", len(res.Cassette.Interactions))
			}
			i := res.Cassette.Interactions[0]
			if !strings.Contains(i.Response.Body, tt.in) {
				t.Errorf("response body %q does not hold %s", i.Response.Body, tt.in)
			}
			if tt.format == FormatVCR {
				if i.Request.Method != "POST" || res.Protocol != "openai-chat" {
					t.Errorf("method %q, protocol %q; want POST, openai-chat", i.Request.Method, res.Protocol)
				}
				if strings.HasSuffix(tt.file, ".gz") && (res.Cassette.Name != "weather" || !strings.Contains(strings.Join(res.Notes, "\n"), "gzip file decompressed")) {
					t.Errorf("name %q, notes %q: want weather and a note of the decompression", res.Cassette.Name, res.Notes)
				}
			}
		})
	}
}

func TestImportRefusesBadNewFormats(t *testing.T) {
	tests := []struct{ name, file, data, msg string }{
		{"http_interactions not a list", "a.yml", "http_interactions: {}\nrecorded_with: VCR 6\n", "http_interactions is not a list"},
		{"bad base64_string", "a.yml", "http_interactions:\n- request: {method: post, uri: 'https://api.openai.com/v1/chat/completions'}\n  response:\n    status: {code: 200}\n    body: {base64_string: '@@@'}\n", "a.yml:2: interaction 0: response body: malformed recording: line 5: base64_string"},
		{"requests without as many responses", "b.yaml", "requests: [{method: POST, uri: 'https://x/v1/chat/completions'}]\nresponses: []\n", "1 requests but not as many responses"},
		{"gzip cut short", "c.yaml.gz", "\x1f\x8b\x08\x00\x00\x00", "gzip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Import(tt.file, []byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want one saying %q", err, tt.msg)
			}
		})
	}
}
