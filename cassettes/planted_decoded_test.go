package cassettes

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// The placements of this file hide a secret behind a name the first
// redaction lists lacked or behind an encoding: compressed bodies, base64
// inside an event-stream frame, a key cut across stream deltas, JSON
// inside a tool call's arguments string, multipart fields, XML and URL
// fragments. The leak check reads every decoded view of the cassette
// (decodedViews), worked out here independently of the redaction.

// gzipText and deflateText compress s as a Content-Encoding would.
func gzipText(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

func deflateText(s string) string {
	var b bytes.Buffer
	zw := zlib.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

// rawDeflateText is deflate without the zlib wrapper, which some servers
// send for Content-Encoding: deflate.
func rawDeflateText(s string) string {
	var b bytes.Buffer
	zw, _ := flate.NewWriter(&b, flate.DefaultCompression)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

// frames writes AWS event-stream frames with the payloads given.
func frames(payloads ...string) string {
	var b bytes.Buffer
	enc := eventstream.NewEncoder()
	for _, p := range payloads {
		enc.Encode(&b, eventstream.Message{Headers: eventstream.Headers{
			{Name: ":event-type", Value: eventstream.StringValue("chunk")},
			{Name: ":content-type", Value: eventstream.StringValue("application/json")},
			{Name: ":message-type", Value: eventstream.StringValue("event")},
		}, Payload: []byte(p)})
	}
	return b.String()
}

// contentDeltas returns SSE events carrying text in deltas of n bytes.
func contentDeltas(text string, n int) string {
	var b strings.Builder
	for len(text) > 0 {
		k := min(n, len(text))
		piece, _ := json.Marshal(text[:k])
		text = text[k:]
		b.WriteString(`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":` + string(piece) + `}}]}` + "\n\n")
	}
	return b.String()
}

// argumentDeltas returns SSE events carrying a tool call's arguments in
// deltas of n bytes.
func argumentDeltas(args string, n int) string {
	var b strings.Builder
	for len(args) > 0 {
		k := min(n, len(args))
		piece, _ := json.Marshal(args[:k])
		args = args[k:]
		b.WriteString(`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":` + string(piece) + `}}]}}]}` + "\n\n")
	}
	return b.String()
}

func setReqHeader(e *exchange, name, value string) {
	for n, h := range e.reqHeaders {
		if strings.EqualFold(h[0], name) {
			e.reqHeaders[n][1] = value
			return
		}
	}
	e.reqHeaders = append(e.reqHeaders, [2]string{name, value})
}

func setRespHeader(e *exchange, name, value string) {
	for n, h := range e.respHeaders {
		if strings.EqualFold(h[0], name) {
			e.respHeaders[n][1] = value
			return
		}
	}
	e.respHeaders = append(e.respHeaders, [2]string{name, value})
}

const testBoundary = "conformBoundary7MA4YWxk"

// multipartBody writes a multipart/form-data request body with the fields
// given, in order.
func multipartBody(fields ...[2]string) string {
	var b strings.Builder
	for _, f := range fields {
		b.WriteString("--" + testBoundary + "\r\nContent-Disposition: form-data; name=\"" + f[0] + "\"\r\n\r\n" + f[1] + "\r\n")
	}
	b.WriteString("--" + testBoundary + "--\r\n")
	return b.String()
}

// decodedPlacement is a placement whose secret may be hidden by an
// encoding, so that it is not found in the rendered file as it is.
type decodedPlacement struct {
	placement
	// noToolCall: the placement replaces the response body, so the
	// recorded tool call is not there to survive.
	noToolCall bool
}

// decodedSecretTable lists the placements of issue 28's "Secrets kept".
func decodedSecretTable() []decodedPlacement {
	const skProj = "sk-proj-PLANTEDsplit0123456789abcdefXYZ"
	op := func(n int) string { return "PLANTEDhidden" + fmt.Sprint(n) + "-x/y+z=" }
	plain := func(p placement) decodedPlacement { return decodedPlacement{placement: p} }
	toolArgs := func(args string) string {
		q, _ := json.Marshal(args)
		return `{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":` + string(q) + `}}]}}]}`
	}
	return []decodedPlacement{
		plain(placement{"request header X-Access-Key", op(1), reqHeader("X-Access-Key"), sseChunk("X-Access-Key")}),
		plain(placement{"request header X-Functions-Key", op(2), reqHeader("X-Functions-Key"), sseChunk("x-functions-key")}),
		plain(placement{"request header x-portkey-virtual-key", op(3), reqHeader("x-portkey-virtual-key"), sseChunk("x-portkey-virtual-key")}),
		plain(placement{"request header X-Authentication", op(4), reqHeader("X-Authentication"), sseChunk("authentication")}),
		plain(placement{"response header X-Upstream-Credential", op(5), respHeader("X-Upstream-Credential"), sseChunk("credential")}),
		plain(placement{"query access_key", op(6), query("access_key"), ""}),
		plain(placement{"query x-functions-key", op(7), query("x-functions-key"), ""}),
		plain(placement{"JSON body [[\"api-key\", …]] pairs", op(8), reqBody(`{"model":"gpt-4o","extra_headers":[["api-key","$S"],["x-trace","1"]],"messages":[]}`),
			`{"object":"chat.completion.chunk","headers":[["api-key","$S"]]}`}),
		plain(placement{"JSON body name/value header objects", op(9), reqBody(`{"model":"gpt-4o","headers":[{"name":"X-Access-Key","value":"$S"}],"messages":[]}`),
			`{"object":"chat.completion.chunk","headers":[{"value":"$S","name":"x-api-key"}]}`}),
		plain(placement{"JSON body accessKey", op(10), reqBody(`{"model":"gpt-4o","provider":{"accessKey":"$S"},"messages":[]}`), sseChunk("accessKey")}),
		plain(placement{"JSON body virtual_key", op(11), reqBody(`{"model":"gpt-4o","portkey":{"virtual_key":"$S"},"messages":[]}`), sseChunk("virtual_key")}),
		plain(placement{"form body access_key", op(12), formBody("q=weather&access_key=$S"), `{"object":"chat.completion.chunk","form":"q=1&access_key=$S"}`}),
		plain(placement{"form body x-functions-key", op(13), formBody("x-functions-key=$S&q=weather"), `{"object":"chat.completion.chunk","form":"x-functions-key=$S"}`}),
		plain(placement{"multipart field api_key", op(14), func(e *exchange, s string) {
			e.reqBody = multipartBody([2]string{"purpose", "fine-tune"}, [2]string{"api_key", s})
			e.reqHeaders[0][1] = "multipart/form-data; boundary=" + testBoundary
		}, sseChunk("api_key")}),
		plain(placement{"multipart field password", op(15), func(e *exchange, s string) {
			e.reqBody = multipartBody([2]string{"username", "me"}, [2]string{"password", s}, [2]string{"note", "hi"})
			e.reqHeaders[0][1] = "multipart/form-data; boundary=" + testBoundary
		}, sseChunk("password")}),
		plain(placement{"multipart field with a key-shaped value", skProj, func(e *exchange, s string) {
			e.reqBody = multipartBody([2]string{"note", "use " + s})
			e.reqHeaders[0][1] = "multipart/form-data; boundary=" + testBoundary
		}, freeText}),
		plain(placement{"tool call arguments api_key in a response", op(16), respBody(toolArgs(`{"city":"Oslo","api_key":"$S"}`)), toolArgs(`{"api_key":"$S"}`)}),
		plain(placement{"tool call arguments password in a request", op(17), func(e *exchange, s string) {
			args, _ := json.Marshal(`{"user":"me","password":"` + s + `"}`)
			e.reqBody = `{"model":"gpt-4o","messages":[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"login","arguments":` + string(args) + `}}]}]}`
		}, toolArgs(`{"user":"me","password":"$S"}`)}),
		{placement: placement{"gzip request body", op(18), func(e *exchange, s string) {
			e.reqBody = gzipText(`{"model":"gpt-4o","api_key":"` + s + `","messages":[]}`)
			e.reqHeaders = append(e.reqHeaders, [2]string{"Content-Encoding", "gzip"})
		}, sseChunk("api_key")}},
		{placement: placement{"deflate request body", op(19), func(e *exchange, s string) {
			e.reqBody = deflateText(`{"model":"gpt-4o","messages":[{"role":"user","content":"key ` + skProj + `"}],"password":"` + s + `"}`)
			e.reqHeaders = append(e.reqHeaders, [2]string{"Content-Encoding", "deflate"})
		}, sseChunk("password")}},
		{placement: placement{"gzip response body", op(20), func(e *exchange, s string) {
			e.respBody = gzipText(e.respBody + `data: {"object":"chat.completion.chunk","error":{"api_key":"` + s + `"}}` + "\n\n")
			e.respHeaders = append(e.respHeaders, [2]string{"Content-Encoding", "gzip"})
		}, sseChunk("api_key")}},
		{placement: placement{"deflate response body", skProj, func(e *exchange, s string) {
			e.respBody = deflateText(e.respBody + `data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"echo ` + s + `"}}]}` + "\n\n")
			e.respHeaders = append(e.respHeaders, [2]string{"Content-Encoding", "deflate"})
		}, freeText}},
		{placement: placement{"raw deflate response body", op(21), func(e *exchange, s string) {
			e.respBody = rawDeflateText(e.respBody + `data: {"object":"chat.completion.chunk","error":{"password":"` + s + `"}}` + "\n\n")
			e.respHeaders = append(e.respHeaders, [2]string{"Content-Encoding", "deflate"})
		}, sseChunk("password")}},
		{placement: placement{"base64 event-stream chunk", skProj, func(e *exchange, s string) {
			inner := base64.StdEncoding.EncodeToString([]byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"the key is ` + s + `"}}`))
			e.respBody = frames(toolCallLine, `{"bytes":"`+inner+`"}`)
			setRespHeader(e, "Content-Type", "application/vnd.amazon.eventstream")
		}, `{"bytes":"` + base64.StdEncoding.EncodeToString([]byte(`{"delta":{"text":"the key is `+skProj+`"}}`)) + `"}`}},
		{placement: placement{"base64 event-stream chunk with an api_key field", op(22), func(e *exchange, s string) {
			inner := base64.StdEncoding.EncodeToString([]byte(`{"type":"message_start","message":{"metadata":{"api_key":"` + s + `"}}}`))
			e.respBody = frames(toolCallLine, `{"bytes":"`+inner+`"}`)
			setRespHeader(e, "Content-Type", "application/vnd.amazon.eventstream")
		}, `{"bytes":"` + base64.StdEncoding.EncodeToString([]byte(`{"metadata":{"api_key":"`+op(22)+`"}}`)) + `"}`}},
		{placement: placement{"key in 1-byte SSE deltas", skProj, func(e *exchange, s string) { e.respBody += contentDeltas("my key is "+s+", keep it", 1) }, freeText}},
		{placement: placement{"key in 4-byte SSE deltas", skProj, func(e *exchange, s string) { e.respBody += contentDeltas("my key is "+s+", keep it", 4) }, freeText}},
		{placement: placement{"api_key in streamed tool call arguments", op(23), func(e *exchange, s string) {
			e.respBody += argumentDeltas(`{"city":"Oslo","api_key":"`+s+`"}`, 3)
		}, toolArgs(`{"api_key":"$S"}`)}},
		{placement: placement{"STS XML credentials", "PLANTEDstsSecret0123456789/abc+def", func(e *exchange, s string) {
			e.respBody = `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><Credentials>` +
				`<AccessKeyId>ASIAPLANTEDSTS123456</AccessKeyId><SecretAccessKey>` + s + `</SecretAccessKey>` +
				`<SessionToken>FwoGZXIvYXdzEPLANTEDsessionTokenValue0123456789</SessionToken><Expiration>2026-12-06T12:00:00Z</Expiration>` +
				`</Credentials></AssumeRoleResult></AssumeRoleResponse>`
			setRespHeader(e, "Content-Type", "text/xml")
		}, `{"object":"chat.completion.chunk","xml":"<Credentials><SecretAccessKey>$S</SecretAccessKey></Credentials>"}`}, noToolCall: true},
		plain(placement{"URL fragment in a Location header", op(24), func(e *exchange, s string) {
			e.respHeaders = append(e.respHeaders, [2]string{"Location", "https://app.example.com/callback#access_token=" + url.QueryEscape(s) + "&token_type=bearer"})
		}, `{"object":"chat.completion.chunk","url":"https://app.example.com/cb#access_token=$S&expires_in=3600"}`}),
		plain(placement{"URL fragment in a body", op(25), respBody(`{"object":"chat.completion.chunk","url":"https://app.example.com/cb#state=1&id_token=$S"}`),
			`{"object":"chat.completion.chunk","url":"https://app.example.com/cb#id_token=$S"}`}),
	}
}

// decodedViews returns what a body means, besides its bytes: decompressed
// by its Content-Encoding, its SSE data and event-stream payloads, every
// JSON string in them unescaped, base64-decoded and parsed again as JSON,
// the strings of each JSON path joined across the events of a stream, and
// the body URL-decoded.
func decodedViews(t *testing.T, body string, h http.Header) []string {
	t.Helper()
	views := []string{body}
	switch strings.ToLower(h.Get("Content-Encoding")) {
	case "gzip":
		zr, err := gzip.NewReader(strings.NewReader(body))
		if err == nil {
			plain, _ := io.ReadAll(zr)
			body = string(plain)
		}
	case "deflate":
		var plain []byte
		if zr, err := zlib.NewReader(strings.NewReader(body)); err == nil {
			plain, _ = io.ReadAll(zr)
		}
		if len(plain) == 0 {
			plain, _ = io.ReadAll(flate.NewReader(strings.NewReader(body)))
		}
		body = string(plain)
	}
	views = append(views, body)
	if u, err := url.QueryUnescape(body); err == nil {
		views = append(views, u)
	}
	var payloads []string
	dec := eventstream.NewDecoder()
	rd := strings.NewReader(body)
	for rd.Len() > 0 {
		msg, err := dec.Decode(rd, nil)
		if err != nil {
			break
		}
		payloads = append(payloads, string(msg.Payload))
	}
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(line, "data:"))
		payloads = append(payloads, line)
	}
	payloads = append(payloads, body)
	joined := map[string]*strings.Builder{}
	var walk func(v any, path string, depth int)
	walk = func(v any, path string, depth int) {
		if depth > 20 {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				walk(c, path+"."+k, depth+1)
			}
		case []any:
			for _, c := range x {
				walk(c, path, depth+1)
			}
		case string:
			views = append(views, x)
			if joined[path] == nil {
				joined[path] = &strings.Builder{}
			}
			joined[path].WriteString(x)
			var inner any
			if json.Unmarshal([]byte(x), &inner) == nil {
				walk(inner, path+"/json", depth+1)
			}
			for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
				if raw, err := enc.DecodeString(x); err == nil {
					views = append(views, string(raw))
					if json.Unmarshal(raw, &inner) == nil {
						walk(inner, path+"/base64", depth+1)
					}
				}
			}
		}
	}
	for _, p := range payloads {
		var v any
		if json.Unmarshal([]byte(p), &v) == nil {
			walk(v, "", 0)
		}
	}
	for _, b := range joined {
		views = append(views, b.String())
		var inner any
		if json.Unmarshal([]byte(b.String()), &inner) == nil {
			walk(inner, "/joined", 1)
		}
	}
	return views
}

// TestPlantedSecretsDecoded is TestPlantedSecrets for the placements of
// decodedSecretTable, in every import format: no decoded view of the
// cassette read back holds the secret.
func TestPlantedSecretsDecoded(t *testing.T) {
	formats := []Format{FormatGoVCR, FormatVCRPy, FormatVCR, formatVCRPyListsGzip, FormatHTTPRR, FormatHAR, FormatDDAPM, FormatChunks}
	table := decodedSecretTable()
	if len(table) < 30 {
		t.Fatalf("%d placements, want at least 30", len(table))
	}
	dir := t.TempDir()
	for n, p := range table {
		for _, format := range formats {
			t.Run(string(format)+"/"+p.name, func(t *testing.T) {
				e := baseExchange()
				p.plant(e, p.secret)
				e.extraChunkLines = []string{p.chunkLine()}
				name, data := e.render(t, format)
				res, err := Import(name, data, WithProtocol("openai-chat"))
				if err != nil {
					t.Fatalf("import: %v\n%s", err, data)
				}
				out := filepath.Join(dir, fmt.Sprintf("%d-%s.yaml", n, format))
				if err := Save(res.Cassette, out, false); err != nil {
					t.Fatal(err)
				}
				checkNoDecodedLeak(t, out, p.secret)
				if !p.noToolCall || format == FormatChunks {
					c, err := Load(out)
					if err != nil {
						t.Fatal(err)
					}
					found := false
					for _, v := range decodedViews(t, c.Interactions[0].Response.Body, c.Interactions[0].Response.Headers) {
						found = found || strings.Contains(v, toolCallLine)
					}
					if !found {
						t.Errorf("the recorded tool call did not survive:\n%q", c.Interactions[0].Response.Body)
					}
				}
				for _, note := range res.Notes {
					if len(leaksIn(note, p.secret)) > 0 {
						t.Errorf("a note shows the secret: %s", note)
					}
				}
			})
		}
	}
	t.Logf("%d placements x %d formats", len(table), len(formats))
}

// checkNoDecodedLeak fails t when any field of the cassette at path, or
// any decoded view of its bodies, holds secret in any encoding.
func checkNoDecodedLeak(t *testing.T, path, secret string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checkNoDecodedLeakData(t, data, secret)
}

// checkNoDecodedLeakData is checkNoDecodedLeak for the bytes of a
// cassette.
func checkNoDecodedLeakData(t *testing.T, data []byte, secret string) {
	t.Helper()
	texts := cassetteDataTexts(t, data)
	c, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	for n, i := range c.Interactions {
		for k, v := range decodedViews(t, i.Request.Body, i.Request.Headers) {
			texts[fmt.Sprintf("interaction %d request body view %d", n, k)] = v
		}
		for k, v := range decodedViews(t, i.Response.Body, i.Response.Headers) {
			texts[fmt.Sprintf("interaction %d response body view %d", n, k)] = v
		}
	}
	for where, text := range texts {
		if found := leaksIn(text, secret); len(found) > 0 {
			t.Errorf("the cassette's %s holds the secret as %q:\n%q", where, found, clipText(text))
		}
	}
}

func clipText(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "..."
	}
	return s
}
