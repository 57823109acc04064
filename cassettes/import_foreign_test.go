package cassettes

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pollyHAR is a recording in the shape Polly.js persists (HAR 1.2 with
// Polly's _recordingName, _id and _order; see har.go for the source): a
// streamed Chat Completions call, and a whole one whose gzip body Polly
// kept as base64 marked _isBinary beside its Content-Encoding.
const pollyHAR = `{
  "log": {
    "_recordingName": "weather/tool call",
    "browser": {"name": "Node.js", "version": "20.11.0"},
    "creator": {"comment": "persister:fs", "name": "Polly.JS", "version": "6.0.6"},
    "entries": [
      {
        "_id": "5f7e0a4c8b1d2e3f4a5b6c7d8e9f0a1b",
        "_order": 0,
        "cache": {},
        "request": {
          "bodySize": 85,
          "cookies": [],
          "headers": [
            {"_fromType": "array", "name": "content-type", "value": "application/json"},
            {"name": "authorization", "value": "Bearer sk-proj-POLLYsecret0123456789abcdef"},
            {"name": ":authority", "value": "api.openai.com"}
          ],
          "headersSize": 321,
          "httpVersion": "HTTP/1.1",
          "method": "POST",
          "postData": {"mimeType": "application/json", "params": [], "text": "{\"model\":\"gpt-4o\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"Oslo?\"}]}"},
          "queryString": [],
          "url": "https://api.openai.com/v1/chat/completions"
        },
        "response": {
          "bodySize": 0,
          "content": {"mimeType": "text/event-stream", "size": 0, "text": "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n"},
          "cookies": [],
          "headers": [
            {"name": "content-type", "value": "text/event-stream"},
            {"name": "transfer-encoding", "value": "chunked"}
          ],
          "headersSize": 90,
          "httpVersion": "HTTP/1.1",
          "redirectURL": "",
          "status": 200,
          "statusText": "OK"
        },
        "startedDateTime": "2026-12-06T12:00:00.000Z",
        "time": 512,
        "timings": {"blocked": -1, "connect": -1, "dns": -1, "receive": 0, "send": 0, "ssl": -1, "wait": 512}
      },
      {
        "_id": "0a1b2c3d4e5f60718293a4b5c6d7e8f9",
        "_order": 0,
        "cache": {},
        "request": {
          "headers": [{"name": "content-type", "value": "application/json"}],
          "httpVersion": "HTTP/1.1",
          "method": "post",
          "postData": {"mimeType": "application/json", "text": "{\"model\":\"gpt-4o\",\"messages\":[]}"},
          "queryString": [],
          "url": "https://api.openai.com/v1/chat/completions"
        },
        "response": {
          "content": {"_isBinary": true, "mimeType": "application/json", "size": 0, "text": "GZIP"},
          "headers": [{"name": "content-type", "value": "application/json"}, {"name": "content-encoding", "value": "gzip"}],
          "httpVersion": "HTTP/1.1",
          "status": 200,
          "statusText": "OK"
        },
        "startedDateTime": "2026-12-06T12:00:01.000Z",
        "time": 10,
        "timings": {"wait": 10}
      }
    ],
    "pages": [],
    "version": "1.2"
  }
}`

const harWholeBody = `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`

func pollyHARFile() string {
	return strings.Replace(pollyHAR, `"GZIP"`, `"`+base64.StdEncoding.EncodeToString([]byte(gzipText(harWholeBody)))+`"`, 1)
}

// ddapmCassette is a cassette in the shape the Datadog APM test agent's
// VCR proxy writes (see har.go for the source), with a Bedrock
// event-stream body written as "base64:".
func ddapmCassette(body string) string {
	return `{
  "request": {
    "method": "POST",
    "url": "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse-stream",
    "headers": {"Content-Type": "application/json", "User-Agent": "Boto3/1.35.0"},
    "body": "{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"Oslo?\"}]}]}"
  },
  "response": {
    "status": {"code": 200, "message": "OK"},
    "headers": {"Content-Type": "application/vnd.amazon.eventstream", "x-amzn-RequestId": "5d2c"},
    "body": "base64:` + base64.StdEncoding.EncodeToString([]byte(body)) + `"
  }
}`
}

// TestImportForeignFormats imports a Polly.js HAR, Polly's local-storage
// object of HARs, a Datadog test-agent cassette and a Ruby VCR cassette
// with a !binary body, and checks what each interaction says.
func TestImportForeignFormats(t *testing.T) {
	frame := frames(`{"contentBlockIndex":0,"delta":{"text":"hi"}}`)
	type got struct {
		Method, URL, Status, ReqBody, RespBody string
		ReqHeaders, RespHeaders                http.Header
		TransferEncoding                       []string
	}
	tests := []struct {
		name, file, data string
		format           Format
		protocol         string
		want             []got
	}{
		{
			name: "Polly.js HAR", file: "weather.har", data: pollyHARFile(), format: FormatHAR, protocol: "openai-chat",
			want: []got{{
				Method: "POST", URL: "https://api.openai.com/v1/chat/completions", Status: "200 OK",
				ReqBody:          `{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"Oslo?"}]}`,
				RespBody:         "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n",
				ReqHeaders:       http.Header{"Content-Type": {"application/json"}},
				RespHeaders:      http.Header{"Content-Type": {"text/event-stream"}},
				TransferEncoding: []string{"chunked"},
			}, {
				Method: "POST", URL: "https://api.openai.com/v1/chat/completions", Status: "200 OK",
				ReqBody: `{"model":"gpt-4o","messages":[]}`, RespBody: harWholeBody,
				ReqHeaders: http.Header{"Content-Type": {"application/json"}}, RespHeaders: http.Header{"Content-Type": {"application/json"}},
			}},
		},
		{
			name: "Polly.js local-storage object", file: "polly.json", format: FormatHAR, protocol: "openai-chat",
			data: `{"weather_1": ` + pollyHARFile() + `}`,
		},
		{
			name: "HAR 1.2 content.encoding base64", file: "devtools.har", format: FormatHAR, protocol: "anthropic",
			data: `{"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},"entries":[{"request":{"method":"POST",` +
				`"url":"https://api.anthropic.com/v1/messages","httpVersion":"http/2.0","headers":[{"name":":method","value":"POST"},{"name":"x-api-key","value":"sk-ant-api03-HARsecret0123456789abcdef"}],` +
				`"postData":{"mimeType":"application/json","text":"{\"model\":\"claude\"}"}},"response":{"status":200,"statusText":"","httpVersion":"http/2.0",` +
				`"headers":[{"name":"content-type","value":"application/json"}],"content":{"size":2,"mimeType":"application/json","text":"` +
				base64.StdEncoding.EncodeToString([]byte(`{"type":"message"}`)) + `","encoding":"base64"}}}]}}`,
			want: []got{{
				Method: "POST", URL: "https://api.anthropic.com/v1/messages", Status: "200 OK",
				ReqBody: `{"model":"claude"}`, RespBody: `{"type":"message"}`,
				ReqHeaders: http.Header{"Content-Type": {"application/json"}}, RespHeaders: http.Header{"Content-Type": {"application/json"}},
			}},
		},
		{
			name: "Datadog test agent", file: "bedrock-runtime_model_converse-stream_post_1a2b3c4d.json", data: ddapmCassette(frame), format: FormatDDAPM, protocol: "bedrock",
			want: []got{{
				Method: "POST", URL: "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse-stream", Status: "200 OK",
				ReqBody:     `{"messages":[{"role":"user","content":[{"text":"Oslo?"}]}]}`,
				RespBody:    frame,
				ReqHeaders:  http.Header{"Content-Type": {"application/json"}, "User-Agent": {"Boto3/1.35.0"}},
				RespHeaders: http.Header{"Content-Type": {"application/vnd.amazon.eventstream"}, "X-Amzn-Requestid": {"5d2c"}},
			}},
		},
		{
			name: "Ruby VCR !binary body", file: "ruby.yml", format: FormatVCR, protocol: "bedrock",
			data: "---\nhttp_interactions:\n- request:\n    method: post\n    uri: https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse-stream\n" +
				"    body:\n      encoding: UTF-8\n      string: '{\"messages\":[]}'\n    headers:\n      Content-Type:\n      - application/json\n" +
				"  response:\n    status:\n      code: 200\n      message: OK\n    headers:\n      Content-Type:\n      - application/vnd.amazon.eventstream\n" +
				"    body:\n      encoding: ASCII-8BIT\n      string: !binary |-\n        " + base64.StdEncoding.EncodeToString([]byte(frame)) + "\n" +
				"  recorded_at: Sun, 06 Dec 2026 12:00:00 GMT\nrecorded_with: VCR 6.3.1\n",
			want: []got{{
				Method: "POST", URL: "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse-stream", Status: "200 OK",
				ReqBody: `{"messages":[]}`, RespBody: frame,
				ReqHeaders: http.Header{"Content-Type": {"application/json"}}, RespHeaders: http.Header{"Content-Type": {"application/vnd.amazon.eventstream"}},
			}},
		},
	}
	tests[1].want = tests[0].want
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Import(tc.file, []byte(tc.data))
			if err != nil {
				t.Fatalf("import: %v", err)
			}
			if res.Format != tc.format || res.Protocol != tc.protocol || res.ResponseOnly {
				t.Errorf("format %s, protocol %q, response only %v; want %s, %q, false", res.Format, res.Protocol, res.ResponseOnly, tc.format, tc.protocol)
			}
			var out []got
			for _, i := range res.Cassette.Interactions {
				out = append(out, got{
					Method: i.Request.Method, URL: i.Request.URL, Status: i.Response.Status,
					ReqBody: i.Request.Body, RespBody: i.Response.Body,
					ReqHeaders: i.Request.Headers, RespHeaders: i.Response.Headers, TransferEncoding: i.Response.TransferEncoding,
				})
			}
			if diff := cmp.Diff(tc.want, out); diff != "" {
				t.Errorf("interactions (-want +got):\n%s", diff)
			}
			if strings.Contains(strings.Join(res.Notes, "\n"), "POLLYsecret") {
				t.Errorf("a note shows the key: %q", res.Notes)
			}
		})
	}
}

// TestImportRefusesWhatItCannotRead checks that a recording conform does
// not read is never written out as one response body, even with a
// protocol given, that a protocol contradicting the recorded URLs is an
// error, and that each message names the file and the place.
func TestImportRefusesWhatItCannotRead(t *testing.T) {
	goVCR := func(u string) string {
		return "version: 2\ninteractions:\n- request:\n    url: " + u + "\n    method: POST\n    body: '{}'\n  response:\n    code: 200\n    status: 200 OK\n    body: '{}'\n"
	}
	tests := []struct {
		name, file, data, protocol string
		sentinel                   error
		msg                        string
	}{
		{"a JSON cassette of another tool", "other.json", `{"interactions":[{"request":{"uri":"https://api.openai.com/v1/chat/completions"}}]}`, "openai-chat",
			ErrUnknownFormat, `import other.json: unknown recording format: a JSON recording (a top-level "interactions" key) of a format conform does not read, not a response body`},
		{"a request/response pair of another tool", "pair.json", `{"request":{"path":"/v1/messages"},"response":{"code":200,"body":"{}"}}`, "anthropic",
			ErrUnknownFormat, `import pair.json: unknown recording format: a JSON recording (a request and a response) of a format conform does not read, not a response body`},
		{"a list of exchanges", "list.json", `[{"request":{},"response":{}}]`, "openai-chat",
			ErrUnknownFormat, `import list.json: unknown recording format: a JSON recording (a request and a response) of a format conform does not read, not a response body`},
		{"a HAR entry without a request", "broken.har", `{"log":{"version":"1.2","entries":[{"response":{"status":200}}]}}`, "",
			ErrMalformed, `import broken.har: log.entries[0]: malformed recording: request or response missing`},
		{"a test-agent body that is not base64", "agent.json", `{"request":{"method":"POST","url":"https://api.openai.com/v1/chat/completions","headers":{},"body":""},"response":{"status":{"code":200,"message":"OK"},"headers":{},"body":"base64:@@"}}`, "",
			ErrMalformed, `import agent.json: response.body: malformed recording: base64 body: illegal base64 data at input byte 0`},
		{"a protocol the URL contradicts", "anthropic.yaml", goVCR("https://api.anthropic.com/v1/messages"), "openai-chat",
			ErrProtocolMismatch, `import anthropic.yaml: protocol contradicts the recording: protocol "openai-chat" given, but the recorded URL https://api.anthropic.com/v1/messages is anthropic`},
		{"a protocol a HAR's URL contradicts", "w.har", pollyHARFile(), "gemini",
			ErrProtocolMismatch, `import w.har: protocol contradicts the recording: protocol "gemini" given, but the recorded URL https://api.openai.com/v1/chat/completions is openai-chat`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opts []Option
			if tc.protocol != "" {
				opts = append(opts, WithProtocol(tc.protocol))
			}
			_, err := Import(tc.file, []byte(tc.data), opts...)
			if !errors.Is(err, tc.sentinel) {
				t.Fatalf("error %v, want %v", err, tc.sentinel)
			}
			var ie *ImportError
			if !errors.As(err, &ie) || ie.File != tc.file {
				t.Errorf("error %v does not name the file %s", err, tc.file)
			}
			if diff := cmp.Diff(tc.msg, err.Error()); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
	// What agrees is accepted: the given protocol matches, or the URL
	// says nothing (a gateway's host and path).
	for _, ok := range []struct{ u, protocol string }{
		{"https://api.anthropic.com/v1/messages", "anthropic"},
		{"https://gateway.example.com/llm/route", "anthropic"},
	} {
		if _, err := Import("ok.yaml", []byte(goVCR(ok.u)), WithProtocol(ok.protocol)); err != nil {
			t.Errorf("%s as %s: %v", ok.u, ok.protocol, err)
		}
	}
}
