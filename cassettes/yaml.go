package cassettes

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/toolconform/conform/core"
	"go.yaml.in/yaml/v4"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// parseYAMLRoot parses data as one YAML document whose root is a mapping.
func parseYAMLRoot(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("root is not a mapping")
	}
	return doc.Content[0], nil
}

// mapValue returns the value of key in the mapping node m, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			v := m.Content[i+1]
			if v.Kind == yaml.AliasNode && v.Alias != nil {
				return v.Alias
			}
			return v
		}
	}
	return nil
}

// detectYAML reports whether data is a go-vcr, VCR.py or Ruby VCR
// cassette: Ruby VCR has a top-level http_interactions list; go-vcr and
// VCR.py an interactions list, go-vcr requests carrying url, VCR.py
// requests uri; VCR.py's cassette dictionary as some projects persist it
// (langchain-aws) has requests and responses lists side by side. An empty list is told apart by version (2 is go-vcr). The
// parsed document is returned with the format, for the importer to use.
func detectYAML(data []byte) (Format, *yaml.Node, bool) {
	if !bytes.Contains(data, []byte("interactions:")) && !bytes.Contains(data, []byte("responses:")) {
		return "", nil, false
	}
	root, err := parseYAMLRoot(data)
	if err != nil {
		return "", nil, false
	}
	if mapValue(root, "http_interactions") != nil {
		return FormatVCR, root, true
	}
	if mapValue(root, "interactions") == nil && isList(mapValue(root, "requests")) && isList(mapValue(root, "responses")) {
		return FormatVCRPy, root, true
	}
	list := mapValue(root, "interactions")
	if list == nil {
		return "", nil, false
	}
	if list.Kind == yaml.SequenceNode && len(list.Content) > 0 {
		req := mapValue(list.Content[0], "request")
		switch {
		case mapValue(req, "uri") != nil:
			return FormatVCRPy, root, true
		case mapValue(req, "url") != nil:
			return FormatGoVCR, root, true
		}
	}
	if v := mapValue(root, "version"); v != nil && v.Value == "2" {
		return FormatGoVCR, root, true
	}
	return FormatVCRPy, root, true
}

// yamlLine finds the line in a YAML library error message ("line 3" or
// "L3.C5").
var yamlLine = regexp.MustCompile(`(?:line |\bL)(\d+)`)

// yamlErr turns a YAML syntax error into an ImportError naming its line.
func yamlErr(name string, err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		if line, convErr := strconv.Atoi(m[1]); convErr == nil && line > 0 {
			return atLine(name, line, fmt.Errorf("%w: %s", ErrMalformed, msg))
		}
	}
	return inFile(name, fmt.Errorf("%w: %s", ErrMalformed, msg))
}

// interactionsOf returns the interaction nodes of a cassette root.
func interactionsOf(name string, root *yaml.Node) ([]*yaml.Node, error) {
	list := mapValue(root, "interactions")
	if list == nil {
		return nil, atLine(name, root.Line, fmt.Errorf("%w: no interactions key", ErrMalformed))
	}
	if list.Kind != yaml.SequenceNode {
		return nil, atLine(name, list.Line, fmt.Errorf("%w: interactions is not a list", ErrMalformed))
	}
	return list.Content, nil
}

// importGoVCR reads a go-vcr v2 cassette. Its interaction layout is the one
// go-vcr v4 still writes, so interactions decode directly; bodies, including
// binary AWS event-stream bodies stored as !!binary, keep their bytes.
func importGoVCR(name string, root *yaml.Node, res *Result) error {
	if v := mapValue(root, "version"); v != nil && v.Value != "2" {
		return atLine(name, v.Line, fmt.Errorf("%w: go-vcr cassette version %s, want 2", ErrMalformed, v.Value))
	}
	items, err := interactionsOf(name, root)
	if err != nil {
		return err
	}
	c := newCassette()
	for n, item := range items {
		var i cassette.Interaction
		if err := item.Decode(&i); err != nil {
			return atLine(name, item.Line, fmt.Errorf("%w: interaction %d: %v", ErrMalformed, n, err))
		}
		if err := checkInteraction(&i); err != nil {
			return atLine(name, item.Line, fmt.Errorf("interaction %d: %w", n, err))
		}
		i.Request.Headers = canonicalHeader(i.Request.Headers)
		i.Response.Headers = canonicalHeader(i.Response.Headers)
		before := len(res.Notes)
		if i.Response.Body, err = decodeContent(i.Response.Body, i.Response.Headers, &res.Notes); err != nil {
			return atLine(name, item.Line, fmt.Errorf("interaction %d: response body: %w", n, err))
		}
		if len(res.Notes) > before {
			i.Response.Uncompressed = true
			i.Response.ContentLength = int64(len(i.Response.Body))
		}
		c.Interactions = append(c.Interactions, &i)
	}
	res.Cassette = c
	return nil
}

// canonicalHeader returns h with canonical keys, values of keys that differ
// only in case merged in order.
func canonicalHeader(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(http.Header, len(h))
	for _, k := range keys {
		for _, v := range h[k] {
			out.Add(k, v)
		}
	}
	return out
}

// checkInteraction rejects an interaction a replay could not use.
func checkInteraction(i *cassette.Interaction) error {
	if i.Request.Method == "" {
		return fmt.Errorf("%w: request has no method", ErrMalformed)
	}
	u, err := url.Parse(i.Request.URL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return fmt.Errorf("%w: request url %q is not absolute", ErrMalformed, i.Request.URL)
	}
	if i.Response.Code < 100 || i.Response.Code > 999 {
		return fmt.Errorf("%w: response status code %d", ErrMalformed, i.Response.Code)
	}
	if i.Response.Status == "" {
		i.Response.Status = fmt.Sprintf("%d %s", i.Response.Code, http.StatusText(i.Response.Code))
	}
	return nil
}

// newCassette returns an empty cassette in go-vcr's current format.
func newCassette() *cassette.Cassette {
	c := cassette.New("")
	c.Matcher = Matcher
	return c
}

// importVCRPy reads a VCR.py cassette: interactions of request {method, uri,
// headers, body} and response {status {code, message}, headers, body
// {string}}; a body may be a !!binary gzip stream, which is decompressed,
// or a JSON document stored as a YAML mapping under parsed_body (beside
// body, or inside it), which is written back as JSON.
func importVCRPy(name string, root *yaml.Node, res *Result) error {
	if mapValue(root, "interactions") == nil && isList(mapValue(root, "requests")) {
		return importVCRPyLists(name, root, res)
	}
	items, err := interactionsOf(name, root)
	if err != nil {
		return err
	}
	c := newCassette()
	for n, item := range items {
		i, err := vcrpyInteraction(name, item, res)
		if err != nil {
			return atLine(name, item.Line, fmt.Errorf("interaction %d: %w", n, err))
		}
		c.Interactions = append(c.Interactions, i)
	}
	res.Cassette = c
	return nil
}

func vcrpyInteraction(name string, item *yaml.Node, res *Result) (*cassette.Interaction, error) {
	return vcrpyPair(mapValue(item, "request"), mapValue(item, "response"), res)
}

// importVCRPyLists reads VCR.py's cassette dictionary persisted as is:
// requests and responses lists of the same length, the n-th response
// answering the n-th request.
func importVCRPyLists(name string, root *yaml.Node, res *Result) error {
	reqs, resps := mapValue(root, "requests"), mapValue(root, "responses")
	if !isList(resps) || len(reqs.Content) != len(resps.Content) {
		return atLine(name, root.Line, fmt.Errorf("%w: %d requests but not as many responses", ErrMalformed, len(reqs.Content)))
	}
	c := newCassette()
	for n, reqN := range reqs.Content {
		i, err := vcrpyPair(reqN, resps.Content[n], res)
		if err != nil {
			return atLine(name, reqN.Line, fmt.Errorf("request %d: %w", n, err))
		}
		c.Interactions = append(c.Interactions, i)
	}
	res.Cassette = c
	return nil
}

// importRubyVCR reads a Ruby VCR cassette: http_interactions of request
// {method, uri, body {encoding, string or base64_string}, headers} and
// response {status {code, message}, headers, body}, beside recorded_with.
// Its methods are lower case (post); they are written upper case.
func importRubyVCR(name string, root *yaml.Node, res *Result) error {
	list := mapValue(root, "http_interactions")
	if !isList(list) {
		return atLine(name, root.Line, fmt.Errorf("%w: http_interactions is not a list", ErrMalformed))
	}
	c := newCassette()
	for n, item := range list.Content {
		i, err := vcrpyInteraction(name, item, res)
		if err != nil {
			return atLine(name, item.Line, fmt.Errorf("interaction %d: %w", n, err))
		}
		i.Request.Method = strings.ToUpper(i.Request.Method)
		c.Interactions = append(c.Interactions, i)
	}
	res.Cassette = c
	return nil
}

// isList reports whether n is a YAML sequence.
func isList(n *yaml.Node) bool { return n != nil && n.Kind == yaml.SequenceNode }

// vcrpyPair reads one request and its response, in the VCR.py (and Ruby
// VCR) layout.
func vcrpyPair(reqN, respN *yaml.Node, res *Result) (*cassette.Interaction, error) {
	if reqN == nil || respN == nil {
		return nil, fmt.Errorf("%w: request or response missing", ErrMalformed)
	}
	var i cassette.Interaction
	var err error
	i.Request.Method = scalar(mapValue(reqN, "method"))
	i.Request.URL = scalar(mapValue(reqN, "uri"))
	if i.Request.Headers, err = vcrpyHeaders(mapValue(reqN, "headers")); err != nil {
		return nil, fmt.Errorf("request headers: %w", err)
	}
	reqBody, err := vcrpyBody(reqN)
	if err != nil {
		return nil, fmt.Errorf("request body: %w", err)
	}
	if reqBody, err = decodeContent(reqBody, i.Request.Headers, &res.Notes); err != nil {
		return nil, fmt.Errorf("request body: %w", err)
	}
	i.Request.Body = reqBody
	i.Request.ContentLength = int64(len(reqBody))
	i.Request.Proto, i.Request.ProtoMajor, i.Request.ProtoMinor = "HTTP/1.1", 1, 1
	if u, err := url.Parse(i.Request.URL); err == nil {
		i.Request.Host = u.Host
	}

	// status is {code, message}, or a bare code in some VCR ports.
	status := mapValue(respN, "status")
	codeN := mapValue(status, "code")
	if status != nil && status.Kind == yaml.ScalarNode {
		codeN = status
	}
	code, _ := strconv.Atoi(scalar(codeN))
	i.Response.Code = code
	if msg := scalar(mapValue(status, "message")); msg != "" {
		i.Response.Status = fmt.Sprintf("%d %s", code, msg)
	}
	if i.Response.Headers, err = vcrpyHeaders(mapValue(respN, "headers")); err != nil {
		return nil, fmt.Errorf("response headers: %w", err)
	}
	body, err := vcrpyBody(respN)
	if err != nil {
		return nil, fmt.Errorf("response body: %w", err)
	}
	before := len(res.Notes)
	if body, err = decodeContent(body, i.Response.Headers, &res.Notes); err != nil {
		return nil, fmt.Errorf("response body: %w", err)
	}
	i.Response.Uncompressed = len(res.Notes) > before
	i.Response.Body = body
	i.Response.ContentLength = int64(len(body))
	// Go's client moves Transfer-Encoding out of the header and reports an
	// unknown length; a replayed response does the same.
	if te := i.Response.Headers.Values("Transfer-Encoding"); len(te) > 0 {
		i.Response.Headers.Del("Transfer-Encoding")
		i.Response.TransferEncoding = te
		i.Response.ContentLength = -1
	}
	i.Response.Proto, i.Response.ProtoMajor, i.Response.ProtoMinor = "HTTP/1.1", 1, 1
	if err := checkInteraction(&i); err != nil {
		return nil, err
	}
	return &i, nil
}

// scalar returns the value of a scalar node, or "".
func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return ""
	}
	return n.Value
}

// vcrpyHeaders decodes a header mapping whose values are lists of strings
// or single strings.
func vcrpyHeaders(n *yaml.Node) (http.Header, error) {
	h := http.Header{}
	if n == nil || n.Tag == "!!null" {
		return h, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%w: line %d: headers are not a mapping", ErrMalformed, n.Line)
	}
	for k := 0; k+1 < len(n.Content); k += 2 {
		key, val := n.Content[k].Value, n.Content[k+1]
		switch val.Kind {
		case yaml.ScalarNode:
			h.Add(key, val.Value)
		case yaml.SequenceNode:
			for _, v := range val.Content {
				if v.Kind != yaml.ScalarNode {
					return nil, fmt.Errorf("%w: line %d: header %s value is not a string", ErrMalformed, v.Line, key)
				}
				h.Add(key, v.Value)
			}
		default:
			return nil, fmt.Errorf("%w: line %d: header %s value is not a string", ErrMalformed, val.Line, key)
		}
	}
	return h, nil
}

// vcrpyBody returns the body of a VCR.py request or response node: body as
// a string, body.string, or a parsed_body mapping (beside body or inside it)
// re-encoded as JSON in document order.
func vcrpyBody(n *yaml.Node) (string, error) {
	if pb := mapValue(n, "parsed_body"); pb != nil {
		return nodeJSON(pb)
	}
	b := mapValue(n, "body")
	if b == nil {
		return "", nil
	}
	switch b.Kind {
	case yaml.ScalarNode:
		return decodeScalarString(b)
	case yaml.MappingNode:
		if pb := mapValue(b, "parsed_body"); pb != nil {
			return nodeJSON(pb)
		}
		if b64 := mapValue(b, "base64_string"); b64 != nil {
			// Ruby VCR's form of a body that is not UTF-8 (or, with
			// preserve_exact_body_bytes, any body): base64 with line
			// breaks.
			raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(scalar(b64)), ""))
			if err != nil {
				return "", fmt.Errorf("%w: line %d: base64_string: %v", ErrMalformed, b64.Line, err)
			}
			return string(raw), nil
		}
		s := mapValue(b, "string")
		if s == nil {
			return "", nil
		}
		if s.Kind != yaml.ScalarNode {
			return "", fmt.Errorf("%w: line %d: body string is not a scalar", ErrMalformed, s.Line)
		}
		return decodeScalarString(s)
	}
	return "", fmt.Errorf("%w: line %d: body is neither a string nor a mapping", ErrMalformed, b.Line)
}

// decodeScalarString decodes a scalar, including !!binary, into its bytes.
func decodeScalarString(n *yaml.Node) (string, error) {
	if n.Tag == "!!null" {
		return "", nil
	}
	if n.Tag == "!binary" {
		// Ruby's Psych writes a string that is not UTF-8 (VCR's
		// encoding: ASCII-8BIT bodies) as !binary and base64.
		raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(n.Value), ""))
		if err != nil {
			return "", fmt.Errorf("%w: line %d: !binary: %v", ErrMalformed, n.Line, err)
		}
		return string(raw), nil
	}
	var s string
	if err := n.Decode(&s); err != nil {
		return "", fmt.Errorf("%w: line %d: %v", ErrMalformed, n.Line, err)
	}
	return s, nil
}

// nodeJSON writes a YAML node as compact JSON, keeping mapping order.
func nodeJSON(n *yaml.Node) (string, error) {
	w := nodeWriter{}
	if err := w.write(n, 0); err != nil {
		return "", err
	}
	return w.b.String(), nil
}

// Limits of nodeJSON: nesting of mappings and sequences, core.MaxDepth as
// for all JSON (alias loops end here, since every loop passes through one),
// and values written (alias bombs end here).
const (
	maxNodeDepth  = core.MaxDepth
	maxNodeValues = 1 << 20
)

// nodeWriter writes YAML nodes as JSON, counting the values written.
type nodeWriter struct {
	b      bytes.Buffer
	values int
}

func (w *nodeWriter) write(n *yaml.Node, depth int) error {
	if w.values++; w.values > maxNodeValues || w.b.Len() > MaxBodySize {
		return fmt.Errorf("parsed_body has more than %d values or %d bytes as JSON: %w", maxNodeValues, MaxBodySize, ErrTooLarge)
	}
	if (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && depth >= maxNodeDepth {
		return fmt.Errorf("%w: line %d: parsed_body nested deeper than %d: %w", ErrMalformed, n.Line, maxNodeDepth, core.ErrTooDeep)
	}
	b := &w.b
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return fmt.Errorf("%w: line %d: unresolved alias", ErrMalformed, n.Line)
		}
		w.values--
		return w.write(n.Alias, depth)
	case yaml.MappingNode:
		b.WriteByte('{')
		for k := 0; k+1 < len(n.Content); k += 2 {
			if k > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, n.Content[k].Value)
			b.WriteByte(':')
			if err := w.write(n.Content[k+1], depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for k, v := range n.Content {
			if k > 0 {
				b.WriteByte(',')
			}
			if err := w.write(v, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str", "!!binary", "!!timestamp":
			writeJSONString(b, n.Value)
			return nil
		case "!!null":
			b.WriteString("null")
			return nil
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return fmt.Errorf("%w: line %d: %v", ErrMalformed, n.Line, err)
		}
		if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
			return fmt.Errorf("%w: line %d: %s is not a JSON number", ErrMalformed, n.Line, n.Value)
		}
		data, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("%w: line %d: %v", ErrMalformed, n.Line, err)
		}
		b.Write(data)
	default:
		return fmt.Errorf("%w: line %d: unexpected YAML node in parsed_body", ErrMalformed, n.Line)
	}
	return nil
}

// writeJSONString writes s as a JSON string without HTML escaping.
func writeJSONString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // a string always encodes
	b.Truncate(b.Len() - 1) // the encoder's newline
}

// decodeContent undoes a gzip content-encoding: a gzip body is
// decompressed (up to MaxBodySize) and the Content-Encoding header dropped;
// a Content-Length header is set to the new length. A header that claims
// gzip over a body that is not gzip is dropped too, since the body is plain.
// Each change is appended to notes.
func decodeContent(body string, h http.Header, notes *[]string) (string, error) {
	enc := strings.ToLower(strings.TrimSpace(h.Get("Content-Encoding")))
	if enc == "" || enc == "identity" {
		return body, nil
	}
	if enc != "gzip" && enc != "x-gzip" {
		*notes = append(*notes, fmt.Sprintf("content-encoding %q kept as recorded", enc))
		return body, nil
	}
	if !strings.HasPrefix(body, "\x1f\x8b") {
		h.Del("Content-Encoding")
		*notes = append(*notes, "content-encoding gzip over a plain body dropped")
		return body, nil
	}
	zr, err := gzip.NewReader(strings.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("%w: gzip: %v", ErrMalformed, err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, MaxBodySize+1))
	if err != nil {
		return "", fmt.Errorf("%w: gzip: %v", ErrMalformed, err)
	}
	if len(out) > MaxBodySize {
		return "", fmt.Errorf("gzip body larger than %d bytes: %w", MaxBodySize, ErrTooLarge)
	}
	h.Del("Content-Encoding")
	if h.Get("Content-Length") != "" {
		h.Set("Content-Length", strconv.Itoa(len(out)))
	}
	*notes = append(*notes, fmt.Sprintf("gzip body decompressed (%d to %d bytes)", len(body), len(out)))
	return string(out), nil
}
