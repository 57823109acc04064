package cassettes

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolconform/conform/core"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// flat is the part of an interaction the table tests compare.
type flat struct {
	Method, URL, ReqBody string
	ReqHeader            http.Header
	Code                 int
	Status               string
	RespBody             string
	RespHeader           http.Header
	ContentLength        int64
	TransferEncoding     []string
}

func flatten(c *cassette.Cassette) []flat {
	var out []flat
	for _, i := range c.Interactions {
		out = append(out, flat{
			Method: i.Request.Method, URL: i.Request.URL, ReqBody: i.Request.Body, ReqHeader: i.Request.Headers,
			Code: i.Response.Code, Status: i.Response.Status, RespBody: i.Response.Body, RespHeader: i.Response.Headers,
			ContentLength: i.Response.ContentLength, TransferEncoding: i.Response.TransferEncoding,
		})
	}
	return out
}

// fixtureFlat is the interaction the importer makes of a response-only
// fixture: a made-up POST to url marked with ResponseOnlyHeader, answered
// 200 OK with body and its Content-Type. A whole body also has its
// Content-Length, length; a stream (length -1) has none.
func fixtureFlat(url, contentType, body string, length int64) flat {
	f := flat{
		Method: "POST", URL: url,
		ReqHeader: http.Header{"Content-Type": {"application/json"}, ResponseOnlyHeader: {"true"}},
		Code:      200, Status: "200 OK", RespBody: body,
		RespHeader:    http.Header{"Content-Type": {contentType}},
		ContentLength: length,
	}
	if length >= 0 {
		f.RespHeader.Set("Content-Length", strconv.FormatInt(length, 10))
	}
	return f
}

func gzipString(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// base64Lines wraps the base64 of s for a YAML !!binary block at indent.
func base64Lines(s, indent string) string {
	enc := base64.StdEncoding.EncodeToString([]byte(s))
	var b strings.Builder
	for len(enc) > 60 {
		b.WriteString(indent + enc[:60] + "\n")
		enc = enc[60:]
	}
	b.WriteString(indent + enc + "\n")
	return b.String()
}

func TestImportFormats(t *testing.T) {
	gz := gzipString(t, `{"ok":true}`)
	binBody := "\x00\x00\x00\x10\xff\xfe binary \x01"
	tests := []struct {
		name, file, data string
		opts             []Option
		format           Format
		protocol         string
		responseOnly     bool
		want             []flat
	}{
		{
			name:     "go-vcr v2 with binary body",
			file:     "x.yaml",
			data:     "---\nversion: 2\ninteractions:\n- id: 0\n  request:\n    proto: HTTP/1.1\n    body: '{\"a\":1}'\n    headers:\n      Authorization:\n      - Bearer sk-abcdefghijklmnopqrstuvwxyz\n      Content-Type:\n      - application/json\n    url: https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse-stream\n    method: POST\n  response:\n    content_length: -1\n    body: !!binary |\n" + base64Lines(binBody, "      ") + "    headers:\n      Content-Type:\n      - application/vnd.amazon.eventstream\n    status: 200 OK\n    code: 200\n",
			format:   FormatGoVCR,
			protocol: "bedrock",
			want: []flat{{
				Method: "POST", URL: "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse-stream", ReqBody: `{"a":1}`,
				ReqHeader: http.Header{"Content-Type": {"application/json"}},
				Code:      200, Status: "200 OK", RespBody: binBody,
				RespHeader:    http.Header{"Content-Type": {"application/vnd.amazon.eventstream"}},
				ContentLength: -1,
			}},
		},
		{
			name:     "VCR.py gzip binary body and lowercase headers",
			file:     "y.yaml",
			data:     "interactions:\n- request:\n    body: '{\"q\": 1}'\n    headers:\n      authorization:\n      - Bearer secret\n      content-type:\n      - application/json\n    method: POST\n    uri: https://api.openai.com/v1/chat/completions?key=abc&alt=sse\n  response:\n    body:\n      string: !!binary |\n" + base64Lines(gz, "        ") + "    headers:\n      content-encoding:\n      - gzip\n      Content-Length:\n      - '31'\n      set-cookie:\n      - a=b\n      Transfer-Encoding:\n      - chunked\n    status:\n      code: 200\n      message: OK\nversion: 1\n",
			format:   FormatVCRPy,
			protocol: "openai-chat",
			want: []flat{{
				Method: "POST", URL: "https://api.openai.com/v1/chat/completions?alt=sse", ReqBody: `{"q": 1}`,
				ReqHeader: http.Header{"Content-Type": {"application/json"}},
				Code:      200, Status: "200 OK", RespBody: `{"ok":true}`,
				RespHeader:       http.Header{"Content-Length": {"11"}},
				ContentLength:    -1,
				TransferEncoding: []string{"chunked"},
			}},
		},
		{
			name:     "VCR.py parsed_body beside and inside body",
			file:     "z.yml",
			data:     "interactions:\n- request:\n    parsed_body:\n      model: m\n      n: 2\n      tools: [{name: a, strict: true}]\n      x: null\n      f: 1.5\n    method: POST\n    uri: https://api.anthropic.com/v1/messages\n  response:\n    body:\n      parsed_body:\n        type: message\n        content: []\n        note: \"<b> & é\"\n    status:\n      code: 200\n      message: OK\n",
			format:   FormatVCRPy,
			protocol: "anthropic",
			want: []flat{{
				Method: "POST", URL: "https://api.anthropic.com/v1/messages",
				ReqBody:   `{"model":"m","n":2,"tools":[{"name":"a","strict":true}],"x":null,"f":1.5}`,
				ReqHeader: http.Header{},
				Code:      200, Status: "200 OK",
				RespBody:      `{"type":"message","content":[],"note":"<b> & é"}`,
				RespHeader:    http.Header{},
				ContentLength: int64(len(`{"type":"message","content":[],"note":"<b> & é"}`)),
			}},
		},
		{
			name:     "VCR.py bare status code and null body",
			file:     "b.yaml",
			data:     "interactions:\n- request:\n    body: null\n    method: GET\n    uri: https://api.cohere.com/v2/chat\n  response:\n    body: {string: ''}\n    status: 204\n",
			format:   FormatVCRPy,
			protocol: "cohere",
			want: []flat{{
				Method: "GET", URL: "https://api.cohere.com/v2/chat",
				ReqHeader: http.Header{}, RespHeader: http.Header{},
				Code: 204, Status: "204 No Content",
			}},
		},
		{
			name: "httprr with chunked response and bare LF header line",
			file: "t.httprr",
			data: httprrTrace(
				"POST https://api.openai.com/v1/chat/completions?api_key=zzz HTTP/1.1\r\nHost: api.openai.com\r\nUser-Agent: test\nAuthorization: Bearer test-api-key\r\nContent-Length: 7\r\n\r\n{\"a\":1}",
				"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n6\r\ndata: \r\n5\r\n{}\n\n\n\r\n0\r\n\r\n",
			),
			format:   FormatHTTPRR,
			protocol: "openai-chat",
			want: []flat{{
				Method: "POST", URL: "https://api.openai.com/v1/chat/completions", ReqBody: `{"a":1}`,
				ReqHeader: http.Header{"Content-Length": {"7"}, "User-Agent": {"test"}},
				Code:      200, Status: "200 OK", RespBody: "data: {}\n\n\n",
				RespHeader:       http.Header{"Content-Type": {"text/event-stream"}},
				ContentLength:    -1,
				TransferEncoding: []string{"chunked"},
			}},
		},
		{
			name:         "chunks as SSE",
			file:         "vercel-ai__mistral-tool-call.chunks.txt",
			data:         "{\"object\":\"chat.completion.chunk\",\"model\":\"m\"}\r\n\n{\"object\":\"chat.completion.chunk\"}\n",
			format:       FormatChunks,
			protocol:     "openai-chat",
			responseOnly: true,
			want: []flat{fixtureFlat("https://api.openai.com/v1/chat/completions", "text/event-stream",
				"data: {\"object\":\"chat.completion.chunk\",\"model\":\"m\"}\n\ndata: {\"object\":\"chat.completion.chunk\"}\n\n", -1)},
		},
		{
			name:         "json body, gemini model in path",
			file:         "g.json",
			data:         "{\"candidates\":[],\"modelVersion\":\"gemini-2.5-flash\"}\n",
			format:       FormatJSON,
			protocol:     "gemini",
			responseOnly: true,
			want: []flat{fixtureFlat("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent", "application/json",
				"{\"candidates\":[],\"modelVersion\":\"gemini-2.5-flash\"}\n", 52)},
		},
		{
			name:         "gemini JSON array is a stream without alt=sse",
			file:         "g.json",
			data:         `[{"candidates":[],"modelVersion":"gemini-2.5-pro"},{"candidates":[]}]`,
			format:       FormatJSON,
			protocol:     "gemini",
			responseOnly: true,
			want: []flat{fixtureFlat("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent", "application/json",
				`[{"candidates":[],"modelVersion":"gemini-2.5-pro"},{"candidates":[]}]`, 69)},
		},
		{
			name:         "sse given a protocol",
			file:         "a.sse",
			data:         "event: message_start\ndata: {\"weird\":1}\n\n",
			opts:         []Option{WithProtocol("anthropic")},
			format:       FormatSSE,
			protocol:     "anthropic",
			responseOnly: true,
			want:         []flat{fixtureFlat("https://api.anthropic.com/v1/messages", "text/event-stream", "event: message_start\ndata: {\"weird\":1}\n\n", -1)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Import(tt.file, []byte(tt.data), tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if res.Format != tt.format || res.Protocol != tt.protocol || res.ResponseOnly != tt.responseOnly {
				t.Errorf("format, protocol, response-only = %s, %s, %v; want %s, %s, %v", res.Format, res.Protocol, res.ResponseOnly, tt.format, tt.protocol, tt.responseOnly)
			}
			if diff := cmp.Diff(tt.want, flatten(res.Cassette), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("interactions (-want +got):\n%s", diff)
			}
			// What Marshal writes reads back the same.
			data, err := Marshal(res.Cassette)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, flatten(back), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("after Marshal and Parse (-want +got):\n%s", diff)
			}
		})
	}
}

// httprrTrace builds an httprr trace of request/response pairs.
func httprrTrace(wire ...string) string {
	var b strings.Builder
	b.WriteString(httprrMagic)
	for k := 0; k+1 < len(wire); k += 2 {
		b.WriteString(itoa(len(wire[k])) + " " + itoa(len(wire[k+1])) + "\n")
		b.WriteString(wire[k])
		b.WriteString(wire[k+1])
	}
	return b.String()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

func TestImportErrors(t *testing.T) {
	okReq := "GET https://api.openai.com/v1/models HTTP/1.1\r\nHost: api.openai.com\r\n\r\n"
	okResp := "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"
	tests := []struct {
		name, file, data string
		opts             []Option
		sentinel         error
		msg              string // the whole error message
	}{
		{
			name: "unknown format", file: "notes.txt", data: "hello",
			sentinel: ErrUnknownFormat,
			msg:      "import notes.txt: unknown recording format: not go-vcr, VCR.py or Ruby VCR YAML, httprr, HAR, test-agent JSON, .chunks.txt, JSON or SSE",
		},
		{
			name: "truncated httprr", file: "t.httprr",
			data:     httprrTrace(okReq, okResp) + "100 50\nGET https://x/ HTTP/1.1\r\n",
			sentinel: ErrTruncated,
			msg:      "import t.httprr: offset 140: exchange 1: want 100 request and 50 response bytes, have 25: truncated",
		},
		{
			name: "httprr response body shorter than its Content-Length", file: "t.httprr",
			data:     httprrTrace(okReq, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}"),
			sentinel: ErrTruncated,
			msg:      "import t.httprr: offset 93: exchange 0: response body: unexpected EOF: truncated",
		},
		{
			name: "httprr chunked response cut mid-chunk", file: "t.httprr",
			data:     httprrTrace(okReq, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc"),
			sentinel: ErrTruncated,
			msg:      "import t.httprr: offset 93: exchange 0: response body: unexpected EOF: truncated",
		},
		{
			name: "httprr bad length line", file: "t.httprr",
			data:     httprrMagic + "abc\n",
			sentinel: ErrMalformed,
			msg:      `import t.httprr: offset 16: exchange 0: malformed recording: length line "abc" is not "<request bytes> <response bytes>"`,
		},
		{
			name: "httprr no newline after lengths", file: "t.httprr",
			data:     httprrMagic + "12 1",
			sentinel: ErrTruncated,
			msg:      "import t.httprr: offset 16: exchange 0: length line has no newline: truncated",
		},
		{
			name: "httprr garbage request", file: "t.httprr",
			data:     httprrMagic + "5 0\nhello",
			sentinel: ErrMalformed,
			msg:      `import t.httprr: offset 20: exchange 0: malformed recording: request: malformed HTTP request "hello"`,
		},
		{
			name: "chunk line not JSON", file: "c.chunks.txt",
			data:     "{\"object\":\"chat.completion.chunk\"}\n{\"object\":\n",
			sentinel: ErrMalformed,
			msg:      "import c.chunks.txt:2: malformed recording: chunk is not JSON: unexpected EOF",
		},
		{
			name: "bedrock chunk with two keys", file: "b.chunks.txt",
			data:     "{\"messageStart\":{}}\n{\"a\":1,\"b\":2}\n",
			sentinel: ErrMalformed,
			msg:      "import b.chunks.txt:2: malformed recording: bedrock chunk is not {\"<eventType>\": {...}}",
		},
		{
			name: "json syntax error names offset", file: "r.json",
			data:     "{\"a\": [1, 2,, 3]}",
			sentinel: ErrMalformed,
			msg:      "import r.json: offset 12: malformed recording: invalid character ',' looking for beginning of value",
		},
		{
			name: "truncated json names its end", file: "r.json",
			data:     "{\"a\": [1, 2",
			sentinel: ErrMalformed,
			msg:      "import r.json: offset 11: malformed recording: unexpected EOF",
		},
		{
			name: "SSE that is not UTF-8 names the byte", file: "s.sse",
			data:     "data: {\"a\":\"\xe2\x82\xac\xff\"}\n\n",
			sentinel: ErrMalformed,
			msg:      "import s.sse: offset 15: malformed recording: SSE body is not UTF-8",
		},
		{
			name: "unknown protocol of a fixture", file: "r.json",
			data:     "{\"hello\":1}",
			sentinel: ErrUnknownProtocol,
			msg:      "import r.json: response-only fixture: unknown protocol: cannot tell it from the payload; give one (known: anthropic, bedrock, cohere, gemini, google-interactions, mistral, ollama, openai-chat, openai-responses)",
		},
		{
			name: "protocol not known", file: "r.json", data: "{}",
			opts:     []Option{WithProtocol("nope")},
			sentinel: ErrUnknownProtocol,
			msg:      `import r.json: protocol "nope": unknown protocol; known: anthropic, bedrock, cohere, gemini, google-interactions, mistral, ollama, openai-chat, openai-responses`,
		},
		{
			name: "go-vcr version 1", file: "v.yaml",
			data:     "version: 1\ninteractions:\n- request:\n    url: https://a/b\n",
			sentinel: ErrMalformed,
			msg:      "import v.yaml:1: malformed recording: go-vcr cassette version 1, want 2",
		},
		{
			name: "go-vcr relative url names the interaction line", file: "v.yaml",
			data:     "version: 2\ninteractions:\n- request:\n    url: https://a/b\n    method: GET\n  response:\n    code: 200\n- request:\n    url: /b\n    method: GET\n  response:\n    code: 200\n",
			sentinel: ErrMalformed,
			msg:      `import v.yaml:8: interaction 1: malformed recording: request url "/b" is not absolute`,
		},
		{
			name: "VCR.py missing status code", file: "p.yaml",
			data:     "interactions:\n- request:\n    method: GET\n    uri: https://a/b\n  response:\n    body: {string: ''}\n",
			sentinel: ErrMalformed,
			msg:      "import p.yaml:2: interaction 0: malformed recording: response status code 0",
		},
		{
			name: "VCR.py broken gzip", file: "p.yaml",
			data:     "interactions:\n- request:\n    method: GET\n    uri: https://a/b\n  response:\n    body: {string: !!binary H4sIAAAA}\n    headers: {Content-Encoding: [gzip]}\n    status: {code: 200}\n",
			sentinel: ErrMalformed,
			msg:      "import p.yaml:2: interaction 0: response body: malformed recording: gzip: unexpected EOF",
		},
		{
			name: "VCR.py parsed_body with .inf", file: "p.yaml",
			data:     "interactions:\n- request:\n    method: GET\n    uri: https://a/b\n    parsed_body: {x: .inf}\n  response:\n    status: {code: 200}\n",
			sentinel: ErrMalformed,
			msg:      "import p.yaml:2: interaction 0: request body: malformed recording: line 5: .inf is not a JSON number",
		},
		{
			name: "YAML syntax error names the line", file: "s.yaml",
			data:     "interactions:\n- request: [\n  a: b\n",
			sentinel: ErrMalformed,
			msg:      "import s.yaml:2: malformed recording: go-yaml load error in parser (while parsing a flow sequence) at L2.C12-L4.C1: did not find expected ',' or ']'",
		},
		{
			name: "YAML that is not a cassette", file: "s.yml",
			data:     "\nfoo: 1\n",
			sentinel: ErrUnknownFormat,
			msg:      "import s.yml:2: unknown recording format: YAML without an interactions, http_interactions or requests and responses list",
		},
		{
			name: "parsed_body nested too deeply", file: "p.yaml",
			data:     "interactions:\n- request:\n    method: GET\n    uri: https://a/b\n    parsed_body: " + strings.Repeat("[", 513) + strings.Repeat("]", 513) + "\n  response:\n    status: {code: 200}\n",
			sentinel: core.ErrTooDeep,
			msg:      "import p.yaml:2: interaction 0: request body: malformed recording: line 5: parsed_body nested deeper than 512: JSON nested too deeply",
		},
		{
			name: "parsed_body alias bomb", file: "p.yaml",
			data:     aliasBomb(),
			sentinel: ErrTooLarge,
			msg:      "import p.yaml:2: interaction 0: request body: parsed_body has more than 1048576 values or 67108864 bytes as JSON: too large",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Import(tt.file, []byte(tt.data), tt.opts...)
			if err == nil {
				t.Fatalf("Import succeeded with %d interactions, want error %q", len(res.Cassette.Interactions), tt.msg)
			}
			if !errors.Is(err, tt.sentinel) {
				t.Errorf("error %q does not wrap %v", err, tt.sentinel)
			}
			var ie *ImportError
			if !errors.As(err, &ie) {
				t.Errorf("error %q is not an *ImportError", err)
			}
			if diff := cmp.Diff(tt.msg, err.Error()); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDetectFormat(t *testing.T) {
	tests := []struct {
		file, data string
		want       Format
	}{
		{"a.httprr", httprrMagic, FormatHTTPRR},
		{"no-extension", httprrMagic + "0 0\n", FormatHTTPRR},
		{"a.chunks.txt", "{}", FormatChunks},
		{"a.SSE", "data: x\n\n", FormatSSE},
		{"a.json", "{}", FormatJSON},
		{"a.yaml", "version: 2\ninteractions: []\n", FormatGoVCR},
		{"a.yaml", "interactions:\n- request:\n    url: https://a/\n", FormatGoVCR},
		{"a.yaml", "interactions:\n- request:\n    uri: https://a/\nversion: 1\n", FormatVCRPy},
		{"body", "data: {}\n\n", FormatSSE},
		{"body", " [1, 2]", FormatJSON},
	}
	for _, tt := range tests {
		got, err := DetectFormat(tt.file, []byte(tt.data))
		if err != nil || got != tt.want {
			t.Errorf("DetectFormat(%q, %q) = %q, %v; want %q", tt.file, tt.data, got, err, tt.want)
		}
	}
}

func TestGuessProtocol(t *testing.T) {
	tests := map[string]string{
		"https://api.openai.com/v1/chat/completions":                                                              "openai-chat",
		"https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=1":                          "openai-chat",
		"https://api.openai.com/v1/responses":                                                                     "openai-responses",
		"https://api.anthropic.com/v1/messages":                                                                   "anthropic",
		"https://us-east5-aiplatform.googleapis.com/v1/projects/p/publishers/anthropic/models/c:streamRawPredict": "anthropic",
		"https://generativelanguage.googleapis.com/v1beta/models/g:streamGenerateContent?alt=sse":                 "gemini",
		"https://api.cohere.com/v2/chat":                                                                          "cohere",
		"https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse":                                        "bedrock",
		"https://api.mistral.ai/v1/chat/completions":                                                              "mistral",
		"http://localhost:11434/api/chat":                                                                         "ollama",
		"https://example.com/":                                                                                    "",
		"::not a url":                                                                                             "",
	}
	for u, want := range tests {
		if got := GuessProtocol(u); got != want {
			t.Errorf("GuessProtocol(%q) = %q, want %q", u, got, want)
		}
	}
}

// aliasBomb returns a VCR.py cassette whose parsed_body expands to 10^9
// values through nested aliases.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("interactions:\n- request:\n    method: GET\n    uri: https://a/b\n    parsed_body:\n      l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n")
	for n := 1; n < 10; n++ {
		p := "*l" + itoa(n-1)
		b.WriteString("      l" + itoa(n) + ": &l" + itoa(n) + " [" + strings.Repeat(p+", ", 9) + p + "]\n")
	}
	b.WriteString("  response:\n    status: {code: 200}\n")
	return b.String()
}
