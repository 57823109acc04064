package cassettes

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// HAR 1.2 as Polly.js persists it (github.com/Netflix/pollyjs,
// packages/@pollyjs/persister/src/har: log.js, entry.js, request.js,
// response.js): {"log": {"version": "1.2", "creator": {"name": "Polly.JS"},
// "_recordingName", "entries": [...]}}, each entry with Polly's "_id" and
// "_order" beside the HAR request {method, url, httpVersion, headers
// [{name, value}], queryString, postData {mimeType, text}} and response
// {status, statusText, httpVersion, headers, content {mimeType, size,
// text, _isBinary}}. Polly's local-storage persister keeps every
// recording in one object keyed by recording id, each value a HAR. A body
// Polly marks _isBinary (a binary or content-encoded body) is base64 text,
// as is one whose HAR content.encoding is "base64".

type harFile struct {
	Log *harLog `json:"log"`
}

type harLog struct {
	Version string     `json:"version"`
	Entries []harEntry `json:"entries"`
}

type harEntry struct {
	Request  *harRequest  `json:"request"`
	Response *harResponse `json:"response"`
}

type harNV struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type harRequest struct {
	Method      string  `json:"method"`
	URL         string  `json:"url"`
	HTTPVersion string  `json:"httpVersion"`
	Headers     []harNV `json:"headers"`
	PostData    *struct {
		MimeType string  `json:"mimeType"`
		Text     *string `json:"text"`
		Params   []harNV `json:"params"`
		Encoding string  `json:"encoding"`
		IsBinary bool    `json:"_isBinary"`
	} `json:"postData"`
}

type harResponse struct {
	Status      int     `json:"status"`
	StatusText  string  `json:"statusText"`
	HTTPVersion string  `json:"httpVersion"`
	Headers     []harNV `json:"headers"`
	Content     *struct {
		MimeType string  `json:"mimeType"`
		Text     *string `json:"text"`
		Encoding string  `json:"encoding"`
		IsBinary bool    `json:"_isBinary"`
	} `json:"content"`
}

// isHAR reports whether a JSON object is a HAR ({"log": {"entries": [...]}})
// or Polly's local-storage object of HARs.
func isHAR(obj map[string]json.RawMessage) bool {
	if hasHARLog(obj["log"]) {
		return true
	}
	if len(obj) == 0 {
		return false
	}
	for _, v := range obj {
		var inner map[string]json.RawMessage
		if json.Unmarshal(v, &inner) != nil || !hasHARLog(inner["log"]) {
			return false
		}
	}
	return true
}

func hasHARLog(raw json.RawMessage) bool {
	var log map[string]json.RawMessage
	if json.Unmarshal(raw, &log) != nil {
		return false
	}
	var entries []json.RawMessage
	return json.Unmarshal(log["entries"], &entries) == nil && log["entries"] != nil
}

// importHAR reads a HAR file, or Polly's local-storage object of HARs
// (its recordings in the order of their ids).
func importHAR(name string, data []byte, res *Result) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return atOffset(name, jsonErrOffset(err, data), fmt.Errorf("%w: %v", ErrMalformed, err))
	}
	type doc struct {
		path string
		raw  json.RawMessage
	}
	var docs []doc
	if _, ok := top["log"]; ok {
		docs = append(docs, doc{"", data})
	} else {
		ids := make([]string, 0, len(top))
		for id := range top {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			docs = append(docs, doc{strconv.Quote(id) + ".", top[id]})
		}
		res.Notes = append(res.Notes, fmt.Sprintf("Polly local-storage file: %d recordings, in the order of their ids", len(ids)))
	}
	c := newCassette()
	for _, d := range docs {
		var f harFile
		if err := json.Unmarshal(d.raw, &f); err != nil {
			return inFile(name, fmt.Errorf("%w: %slog: %v", ErrMalformed, d.path, err))
		}
		if f.Log == nil {
			return inFile(name, fmt.Errorf("%w: %slog is missing", ErrMalformed, d.path))
		}
		for n, e := range f.Log.Entries {
			at := fmt.Sprintf("%slog.entries[%d]", d.path, n)
			i, err := harInteraction(e, res)
			if err != nil {
				return inFile(name, fmt.Errorf("%s: %w", at, err))
			}
			c.Interactions = append(c.Interactions, i)
		}
	}
	res.Cassette = c
	return nil
}

// harBody returns a HAR body's bytes: base64-decoded when HAR's encoding
// or Polly's _isBinary says so.
func harBody(text *string, encoding string, binary bool) (string, error) {
	if text == nil {
		return "", nil
	}
	if !binary && !strings.EqualFold(encoding, "base64") {
		return *text, nil
	}
	raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(*text), ""))
	if err != nil {
		return "", fmt.Errorf("%w: base64 body: %v", ErrMalformed, err)
	}
	return string(raw), nil
}

// harHeaders turns HAR's name/value list into a header, leaving out the
// HTTP/2 pseudo-headers (":authority") that browsers record.
func harHeaders(nvs []harNV) http.Header {
	h := http.Header{}
	for _, nv := range nvs {
		if nv.Name == "" || strings.HasPrefix(nv.Name, ":") {
			continue
		}
		h.Add(nv.Name, nv.Value)
	}
	return h
}

func harInteraction(e harEntry, res *Result) (*cassette.Interaction, error) {
	if e.Request == nil || e.Response == nil {
		return nil, fmt.Errorf("%w: request or response missing", ErrMalformed)
	}
	var i cassette.Interaction
	rq, rs := e.Request, e.Response
	i.Request.Method = strings.ToUpper(rq.Method)
	i.Request.URL = rq.URL
	i.Request.Headers = harHeaders(rq.Headers)
	if pd := rq.PostData; pd != nil {
		body, err := harBody(pd.Text, pd.Encoding, pd.IsBinary)
		if err != nil {
			return nil, fmt.Errorf("request.postData: %w", err)
		}
		if pd.Text == nil && len(pd.Params) > 0 {
			form := url.Values{}
			for _, p := range pd.Params {
				form.Add(p.Name, p.Value)
			}
			body = form.Encode()
		}
		if i.Request.Body, err = decodeContent(body, i.Request.Headers, &res.Notes); err != nil {
			return nil, fmt.Errorf("request body: %w", err)
		}
		if pd.MimeType != "" && i.Request.Headers.Get("Content-Type") == "" {
			i.Request.Headers.Set("Content-Type", pd.MimeType)
		}
	}
	i.Request.ContentLength = int64(len(i.Request.Body))
	i.Request.Proto, i.Request.ProtoMajor, i.Request.ProtoMinor = "HTTP/1.1", 1, 1
	if u, err := url.Parse(rq.URL); err == nil {
		i.Request.Host = u.Host
	}
	i.Response.Code = rs.Status
	if rs.StatusText != "" {
		i.Response.Status = fmt.Sprintf("%d %s", rs.Status, rs.StatusText)
	}
	i.Response.Headers = harHeaders(rs.Headers)
	if ct := rs.Content; ct != nil {
		body, err := harBody(ct.Text, ct.Encoding, ct.IsBinary)
		if err != nil {
			return nil, fmt.Errorf("response.content: %w", err)
		}
		before := len(res.Notes)
		if body, err = decodeContent(body, i.Response.Headers, &res.Notes); err != nil {
			return nil, fmt.Errorf("response body: %w", err)
		}
		i.Response.Uncompressed = len(res.Notes) > before
		i.Response.Body = body
	}
	finishResponse(&i)
	if err := checkInteraction(&i); err != nil {
		return nil, err
	}
	return &i, nil
}

// finishResponse sets what a replayed response reports: its length, and
// Transfer-Encoding moved out of the header as Go's client moves it.
func finishResponse(i *cassette.Interaction) {
	i.Response.ContentLength = int64(len(i.Response.Body))
	if te := i.Response.Headers.Values("Transfer-Encoding"); len(te) > 0 {
		i.Response.Headers.Del("Transfer-Encoding")
		i.Response.TransferEncoding = te
		i.Response.ContentLength = -1
	}
	i.Response.Proto, i.Response.ProtoMajor, i.Response.ProtoMinor = "HTTP/1.1", 1, 1
}

// The Datadog APM test agent's VCR proxy (github.com/DataDog/dd-apm-test-agent,
// ddapm_test_agent/vcr_proxy.py, _write_cassette_file) writes one JSON
// file per exchange: {"request": {"method", "url", "headers": {name:
// value}, "body"}, "response": {"status": {"code", "message"}, "headers",
// "body"}}, a body that is not UTF-8 (or holds a NUL byte, as AWS
// event-stream frames do) written as "base64:" and its base64.

type ddapmFile struct {
	Request *struct {
		Method  string                     `json:"method"`
		URL     string                     `json:"url"`
		Headers map[string]json.RawMessage `json:"headers"`
		Body    string                     `json:"body"`
	} `json:"request"`
	Response *struct {
		Status *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"status"`
		Headers map[string]json.RawMessage `json:"headers"`
		Body    string                     `json:"body"`
	} `json:"response"`
}

// isDDAPM reports whether a JSON object has the test agent's shape.
func isDDAPM(obj map[string]json.RawMessage) bool {
	var f ddapmFile
	if len(obj) != 2 || json.Unmarshal(mustJSON(obj), &f) != nil {
		return false
	}
	return f.Request != nil && f.Request.URL != "" && f.Request.Method != "" && f.Response != nil && f.Response.Status != nil
}

func mustJSON(v any) []byte {
	data, _ := json.Marshal(v)
	return data
}

// ddapmBody decodes a test-agent body: "base64:" and base64, or text.
func ddapmBody(s string) (string, error) {
	b64, ok := strings.CutPrefix(s, "base64:")
	if !ok {
		return s, nil
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return "", fmt.Errorf("%w: base64 body: %v", ErrMalformed, err)
	}
	return string(raw), nil
}

// ddapmHeaders reads a header object whose values are strings (or lists
// of strings), in the order of their names.
func ddapmHeaders(m map[string]json.RawMessage) (http.Header, error) {
	h := http.Header{}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		var one string
		var many []string
		switch {
		case json.Unmarshal(m[k], &one) == nil:
			h.Add(k, one)
		case json.Unmarshal(m[k], &many) == nil:
			for _, v := range many {
				h.Add(k, v)
			}
		default:
			return nil, fmt.Errorf("%w: header %s is not a string", ErrMalformed, k)
		}
	}
	return h, nil
}

// importDDAPM reads one test-agent cassette.
func importDDAPM(name string, data []byte, res *Result) error {
	var f ddapmFile
	if err := json.Unmarshal(data, &f); err != nil {
		return atOffset(name, jsonErrOffset(err, data), fmt.Errorf("%w: %v", ErrMalformed, err))
	}
	if f.Request == nil || f.Response == nil || f.Response.Status == nil {
		return inFile(name, fmt.Errorf("%w: request, response or response.status missing", ErrMalformed))
	}
	var i cassette.Interaction
	var err error
	i.Request.Method = strings.ToUpper(f.Request.Method)
	i.Request.URL = f.Request.URL
	if i.Request.Headers, err = ddapmHeaders(f.Request.Headers); err != nil {
		return inFile(name, fmt.Errorf("request.headers: %w", err))
	}
	if i.Request.Body, err = ddapmBody(f.Request.Body); err != nil {
		return inFile(name, fmt.Errorf("request.body: %w", err))
	}
	if i.Request.Body, err = decodeContent(i.Request.Body, i.Request.Headers, &res.Notes); err != nil {
		return inFile(name, fmt.Errorf("request.body: %w", err))
	}
	i.Request.ContentLength = int64(len(i.Request.Body))
	i.Request.Proto, i.Request.ProtoMajor, i.Request.ProtoMinor = "HTTP/1.1", 1, 1
	if u, err := url.Parse(f.Request.URL); err == nil {
		i.Request.Host = u.Host
	}
	i.Response.Code = f.Response.Status.Code
	if f.Response.Status.Message != "" {
		i.Response.Status = fmt.Sprintf("%d %s", f.Response.Status.Code, f.Response.Status.Message)
	}
	if i.Response.Headers, err = ddapmHeaders(f.Response.Headers); err != nil {
		return inFile(name, fmt.Errorf("response.headers: %w", err))
	}
	body, err := ddapmBody(f.Response.Body)
	if err != nil {
		return inFile(name, fmt.Errorf("response.body: %w", err))
	}
	before := len(res.Notes)
	if body, err = decodeContent(body, i.Response.Headers, &res.Notes); err != nil {
		return inFile(name, fmt.Errorf("response.body: %w", err))
	}
	i.Response.Uncompressed = len(res.Notes) > before
	i.Response.Body = body
	finishResponse(&i)
	if err := checkInteraction(&i); err != nil {
		return inFile(name, err)
	}
	c := newCassette()
	c.Interactions = append(c.Interactions, &i)
	res.Cassette = c
	return nil
}

// recordingKeys are top-level keys of recordings in formats conform does
// not read; no response body of a protocol has them.
var recordingKeys = []string{"interactions", "http_interactions", "entries", "log", "requests", "responses", "recordings", "cassette", "episodes"}

// looksLikeRecording reports why a JSON document is a recording rather
// than a response body: a top-level key of recordings, or both a request
// and a response, at the top or in the first element of an array.
func looksLikeRecording(data []byte) (string, bool) {
	data = bytes.TrimSpace(data)
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil {
		var arr []json.RawMessage
		if json.Unmarshal(data, &arr) != nil || len(arr) == 0 || json.Unmarshal(arr[0], &obj) != nil {
			return "", false
		}
	}
	for _, k := range recordingKeys {
		if _, ok := obj[k]; ok {
			return fmt.Sprintf("a top-level %q key", k), true
		}
	}
	_, req := obj["request"]
	_, resp := obj["response"]
	if req && resp {
		return "a request and a response", true
	}
	return "", false
}
