package cassettes

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// maxViewDepth bounds how deep redaction follows one encoding inside
// another (a base64 string inside JSON inside an event-stream frame inside
// a deflate body, ...).
const maxViewDepth = 8

// body redacts a request or response body by what its bytes mean: it
// undoes a gzip or deflate Content-Encoding, reads AWS event-stream frames,
// multipart and form fields, XML elements, JSON (whole, or one value a
// line as in SSE and NDJSON) down to strings that hold JSON or base64
// text, joins the strings of a stream's events to find what no one event
// shows, and masks what it finds; what it changed is encoded again as it
// was. Every secret becomes a mask of its own length where the encoding
// allows; nothing else changes.
func (r *redactor) body(where, s string, h http.Header) string {
	return r.bodyAt(where, s, h.Get("Content-Type"), h.Get("Content-Encoding"), 0)
}

// bodyAt is body for a text of the given content type and encoding, depth
// encodings deep.
func (r *redactor) bodyAt(where, s, contentType, contentEncoding string, depth int) string {
	if s == "" || depth > maxViewDepth {
		return s
	}
	if coding := strings.ToLower(strings.TrimSpace(contentEncoding)); coding != "" && coding != "identity" {
		if plain, undo, ok := decompress(s, coding); ok && r.inflated+len(plain) <= maxInflated {
			r.inflated += len(plain)
			out := r.bodyAt(where+" ("+coding+")", plain, contentType, "", depth+1)
			if out == plain {
				return s
			}
			return undo(out)
		}
	}
	r.view(s)
	ct := strings.ToLower(contentType)
	if strings.Contains(ct, "application/vnd.amazon.eventstream") || looksLikeFrames(s) {
		if out, ok := r.eventStream(where, s, depth); ok {
			return out
		}
	}
	if boundary := multipartBoundary(contentType, s); boundary != "" {
		if out, ok := r.multipart(where, s, boundary, depth); ok {
			s = out
		}
	}
	if strings.Contains(ct, "application/x-www-form-urlencoded") {
		s = r.form(where, s)
	}
	if t := strings.TrimSpace(s); strings.Contains(ct, "xml") || strings.HasPrefix(t, "<") {
		s = r.xml(where, s)
	}
	s = r.jsonText(where, s, depth)
	return r.text(where, s)
}

// text masks, in free text, key-shaped values, the values of query and
// fragment parameters named like credentials, the passwords of URLs and
// the secrets the redactor knows, each by a mask of its length.
func (r *redactor) text(where, s string) string {
	s = r.textURLs(where, s)
	s = r.textFields(where, s)
	out := bodyTokenPattern.ReplaceAllStringFunc(s, func(m string) string {
		sub := bodyTokenPattern.FindStringSubmatch(m)
		return sub[1] + mask(len(sub[2]))
	})
	if out != s {
		r.add("token in " + where)
	}
	if r.known != nil {
		if k := r.known.replaceSameLength(out); k != out {
			r.add("known secret in " + where)
			out = k
		}
	}
	return out
}

// textFieldPattern finds a JSON string field in text that need not be
// valid JSON (cut, or joined from pieces): group 1 is the name, group 2
// the raw value.
var textFieldPattern = regexp.MustCompile(`"([A-Za-z0-9_.:-]{1,64})"\s*:\s*"((?:[^"\\\n]|\\.)+)"`)

// textFields masks, in text, the values of JSON fields named like
// credentials, keeping their length: what scanJSON does for valid JSON,
// for text that is not.
func (r *redactor) textFields(where, s string) string {
	if !strings.Contains(s, `":`) && !strings.Contains(s, `" :`) {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range textFieldPattern.FindAllStringSubmatchIndex(s, -1) {
		name, value := s[m[2]:m[3]], s[m[4]:m[5]]
		if !secretJSONField(name) || isMask(value) {
			continue
		}
		r.add("JSON field " + name + " in " + where)
		r.remember(value)
		b.WriteString(s[last:m[4]])
		b.WriteString(mask(len(value)))
		last = m[5]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// view hands a decoded text to the check that collects them (check.go).
func (r *redactor) view(s string) {
	if r.views != nil {
		*r.views = append(*r.views, s)
	}
}

// decompress undoes a gzip or deflate (zlib-wrapped or raw) coding of at
// most MaxBodySize bytes; undo encodes a changed text the same way.
func decompress(s, coding string) (plain string, undo func(string) string, ok bool) {
	read := func(rd io.Reader) (string, bool) {
		out, err := io.ReadAll(io.LimitReader(rd, MaxBodySize+1))
		return string(out), err == nil && len(out) <= MaxBodySize
	}
	switch coding {
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(strings.NewReader(s))
		if err != nil {
			return "", nil, false
		}
		p, ok := read(zr)
		return p, func(t string) string {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write([]byte(t))
			zw.Close()
			return b.String()
		}, ok
	case "deflate":
		if zr, err := zlib.NewReader(strings.NewReader(s)); err == nil {
			if p, ok := read(zr); ok {
				return p, func(t string) string {
					var b bytes.Buffer
					zw := zlib.NewWriter(&b)
					zw.Write([]byte(t))
					zw.Close()
					return b.String()
				}, true
			}
		}
		p, ok := read(flate.NewReader(strings.NewReader(s)))
		return p, func(t string) string {
			var b bytes.Buffer
			zw, _ := flate.NewWriter(&b, flate.DefaultCompression)
			zw.Write([]byte(t))
			zw.Close()
			return b.String()
		}, ok && p != ""
	}
	return "", nil, false
}

// textParamPattern finds a query or fragment parameter in text (a signed
// URL quoted in a body): group 1 is the separator and name, group 2 the
// name, group 3 the value.
var textParamPattern = regexp.MustCompile(`([?&;#]([A-Za-z0-9_.%-]+)=)([^&;#\s"'<>\\]*)`)

// textUserinfoPattern finds the password of user information in a URL in
// text; group 1 is what comes before it.
var textUserinfoPattern = regexp.MustCompile(`((?i:[a-z][a-z0-9+.-]*)://[^/\s:@"'<>\\]*:)([^/\s@"'<>\\]+)@`)

// textURLs masks, in free text, the values of query and fragment
// parameters named like credentials and the passwords of URLs, keeping
// their length.
func (r *redactor) textURLs(where, s string) string {
	out := s
	if strings.Contains(s, "=") && strings.ContainsAny(s, "?&;#") {
		out = r.textParams(where, s)
	}
	if !strings.Contains(out, "://") || !strings.Contains(out, "@") {
		return out
	}
	return textUserinfoPattern.ReplaceAllStringFunc(out, func(m string) string {
		sub := textUserinfoPattern.FindStringSubmatch(m)
		r.add("URL user information in " + where)
		r.remember(sub[2])
		return sub[1] + mask(len(sub[2])) + "@"
	})
}

// textParams masks, in free text, the values of query and fragment
// parameters named like credentials.
func (r *redactor) textParams(where, s string) string {
	return textParamPattern.ReplaceAllStringFunc(s, func(m string) string {
		sub := textParamPattern.FindStringSubmatch(m)
		name := sub[2]
		if un, err := url.QueryUnescape(name); err == nil {
			name = un
		}
		if sub[3] == "" || !secretParam(name) {
			return m
		}
		r.add("URL query parameter " + name + " in " + where)
		r.remember(sub[3])
		return sub[1] + mask(len(sub[3]))
	})
}

// mask returns Redacted cut or padded with '*' to n bytes.
func mask(n int) string {
	m := Redacted + strings.Repeat("*", max(0, n-len(Redacted)))
	return m[:n]
}

// form redacts the fields of a form body named like credentials; the other
// fields keep their bytes.
func (r *redactor) form(where, s string) string {
	pairs := strings.Split(s, "&")
	changed := false
	for n, pair := range pairs {
		name, value, ok := strings.Cut(pair, "=")
		if !ok || value == "" {
			continue
		}
		if un, err := url.QueryUnescape(name); err == nil {
			name = un
		}
		if secretParam(name) {
			pairs[n] = pair[:len(pair)-len(value)] + mask(len(value))
			r.add("form field " + name + " in " + where)
			r.remember(value)
			changed = true
		}
	}
	if !changed {
		return s
	}
	return strings.Join(pairs, "&")
}

// multipartBoundary returns the boundary of a multipart body: the
// boundary parameter of a multipart content type, or, for a body whose
// type was not recorded, the delimiter on its first line.
func multipartBoundary(contentType, s string) string {
	if mt, params, err := mime.ParseMediaType(contentType); err == nil && strings.HasPrefix(mt, "multipart/") {
		return params["boundary"]
	}
	if !strings.HasPrefix(s, "--") {
		return ""
	}
	line, _, ok := strings.Cut(s[2:], "\n")
	line = strings.TrimSuffix(line, "\r")
	if !ok || line == "" || len(line) > 70 || strings.ContainsAny(line, " \t\"") {
		return ""
	}
	if !strings.Contains(s, "--"+line+"--") {
		return ""
	}
	return line
}

// dispositionName finds the field name of a multipart part's headers.
var dispositionName = regexp.MustCompile(`(?i)content-disposition:[^\r\n]*?\bname="([^"]*)"`)

// multipart redacts the parts of a multipart body: a part named like a
// credential is masked whole, any other is redacted as a body of its own
// content type. It reports false when the body is not well delimited.
func (r *redactor) multipart(where, s, boundary string, depth int) (string, bool) {
	delim := "--" + boundary
	pieces := strings.Split(s, delim)
	if len(pieces) < 3 {
		return s, false
	}
	changed := false
	for n := 1; n < len(pieces)-1; n++ {
		part := pieces[n]
		head, content, ok := strings.Cut(part, "\r\n\r\n")
		sep := "\r\n\r\n"
		if !ok {
			if head, content, ok = strings.Cut(part, "\n\n"); !ok {
				continue
			}
			sep = "\n\n"
		}
		// The line break before the next delimiter belongs to it.
		tail := ""
		switch {
		case strings.HasSuffix(content, "\r\n"):
			content, tail = content[:len(content)-2], "\r\n"
		case strings.HasSuffix(content, "\n"):
			content, tail = content[:len(content)-1], "\n"
		}
		name := ""
		if m := dispositionName.FindStringSubmatch(head); m != nil {
			name = m[1]
		}
		var out string
		if name != "" && secretParam(name) && content != "" {
			out = mask(len(content))
			r.add("multipart field " + name + " in " + where)
			r.remember(content)
		} else {
			h := http.Header{}
			for _, line := range strings.Split(head, "\n") {
				if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
					h.Add(k, strings.TrimSpace(v))
				}
			}
			out = r.bodyAt(where+" part "+name, content, h.Get("Content-Type"), h.Get("Content-Encoding"), depth+1)
		}
		if out != content {
			pieces[n] = head + sep + out + tail
			changed = true
		}
	}
	if !changed {
		return s, true
	}
	return strings.Join(pieces, delim), true
}

// xmlOpenTag finds an XML start tag; group 1 is its name.
var xmlOpenTag = regexp.MustCompile(`<([A-Za-z_][A-Za-z0-9_.:-]*)(?:\s[^<>]*)?>`)

// xmlAttr finds an attribute in a start tag; group 1 is its name, group 2
// its value.
var xmlAttr = regexp.MustCompile(`\s([A-Za-z_][A-Za-z0-9_.:-]*)\s*=\s*"([^"<>]*)"`)

// xml masks the text of XML elements named like credentials (an STS
// answer's <SecretAccessKey> and <SessionToken>) and the values of such
// attributes, keeping their length.
func (r *redactor) xml(where, s string) string {
	var b strings.Builder
	last := 0
	for _, m := range xmlOpenTag.FindAllStringSubmatchIndex(s, -1) {
		name := s[m[2]:m[3]]
		local := name[strings.LastIndexByte(name, ':')+1:]
		for _, a := range xmlAttr.FindAllStringSubmatchIndex(s[m[0]:m[1]], -1) {
			an := s[m[0]+a[2] : m[0]+a[3]]
			if a[5] > a[4] && !strings.HasPrefix(an, "xmlns") && secretParam(an[strings.LastIndexByte(an, ':')+1:]) {
				if m[0]+a[4] >= last {
					b.WriteString(s[last : m[0]+a[4]])
					b.WriteString(mask(a[5] - a[4]))
					r.add("XML attribute " + an + " in " + where)
					r.remember(s[m[0]+a[4] : m[0]+a[5]])
					last = m[0] + a[5]
				}
			}
		}
		if !secretParam(local) {
			continue
		}
		end := strings.IndexByte(s[m[1]:], '<')
		if end <= 0 || !strings.HasPrefix(s[m[1]+end:], "</"+name) {
			continue
		}
		if m[1] < last {
			continue
		}
		b.WriteString(s[last:m[1]])
		b.WriteString(mask(end))
		r.add("XML element " + local + " in " + where)
		r.remember(s[m[1] : m[1]+end])
		last = m[1] + end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// jsonText redacts s as one JSON value or, failing that, as lines of
// which some hold one JSON value, after an optional "data:" (SSE, NDJSON);
// the lines are one stream, whose strings are also read joined.
func (r *redactor) jsonText(where, s string, depth int) string {
	trimmed := strings.TrimSpace(s)
	if trimmed == "" || !strings.ContainsAny(trimmed[:1], "{[") && !strings.Contains(s, "\n") {
		return s
	}
	if json.Valid([]byte(s)) {
		// A top-level array is a stream too (Gemini without alt=sse).
		return r.jsonSegments(where, []string{s}, trimmed[0] == '[', depth)[0]
	}
	lines := strings.SplitAfter(s, "\n")
	var segs []string
	var at []int // the line of each segment
	var starts []int
	for n, line := range lines {
		start := 0
		if rest, ok := strings.CutPrefix(line, "data:"); ok {
			start = len(line) - len(rest)
		}
		payload := strings.TrimRight(line[start:], "\r\n")
		t := strings.TrimSpace(payload)
		if t == "" || (t[0] != '{' && t[0] != '[') || !json.Valid([]byte(payload)) {
			continue
		}
		segs, at, starts = append(segs, payload), append(at, n), append(starts, start)
	}
	if len(segs) == 0 {
		return s
	}
	out := r.jsonSegments(where, segs, true, depth)
	changed := false
	for k, n := range at {
		if out[k] != segs[k] {
			line := lines[n]
			lines[n] = line[:starts[k]] + out[k] + line[starts[k]+len(segs[k]):]
			changed = true
		}
	}
	if !changed {
		return s
	}
	return strings.Join(lines, "")
}

// jsonString is one string value of a JSON text.
type jsonString struct {
	seg        int    // the segment it is in
	start, end int    // its raw bytes, quotes included
	val        string // its value, as redaction has left it
	field      string // the object field it is the value of, or the array's
	obj, arr   int    // ids of the object or array holding it, or -1
	idx        int    // its position in that array
	group      string // field path and call indexes: the same for the pieces of one streamed text
	changed    bool
	repl       string // its raw replacement when changed
}

// jsonSegments redacts JSON texts, each valid: strings of fields named
// like credentials, of name/value objects and [name, value] pairs naming
// one, JSON and base64 text inside strings, and key-shaped values behind
// escapes. When stream is set, the texts are the events of one stream and
// the strings of each field path are also read joined, so that a key cut
// across deltas is found and masked piece by piece.
func (r *redactor) jsonSegments(where string, segs []string, stream bool, depth int) []string {
	var all []*jsonString
	for n, seg := range segs {
		all = append(all, r.scanJSON(where, n, seg, depth)...)
	}
	if stream {
		r.joinStream(where, all)
	}
	out := append([]string(nil), segs...)
	var b strings.Builder
	for n, seg := range segs {
		b.Reset()
		last := 0
		for _, js := range all {
			if js.seg != n || !js.changed {
				continue
			}
			b.WriteString(seg[last:js.start])
			b.WriteString(js.repl)
			last = js.end
		}
		if last > 0 {
			b.WriteString(seg[last:])
			out[n] = b.String()
		}
	}
	return out
}

// pairNames are the fields of a name/value object ({"name": "api-key",
// "value": "..."}, as HAR writes headers) that hold the name.
var pairNames = map[string]bool{"name": true, "key": true, "header": true, "param": true, "field": true}

// scanJSON reads the strings of one valid JSON text, without recursion
// over its nesting, and redacts them one by one.
func (r *redactor) scanJSON(where string, seg int, s string, depth int) []*jsonString {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	type level struct {
		object, wantName bool
		id               int
		field            string // what the container holds, for its elements
		name             string // the current field name of an object
		count            int    // elements of an array so far
		group            string
	}
	var stack []level
	var strs []*jsonString
	objName := map[int]string{}  // a name/value object's name
	arrFirst := map[int]string{} // an array's first element, when a string
	arrLen := map[int]int{}
	ids := 0
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil || len(stack) > 2*maxNodeDepth {
			return nil // json.Valid passed: only the depth bound ends here
		}
		end := int(dec.InputOffset())
		top := len(stack) - 1
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				field, group := "", ""
				if top >= 0 {
					field, group = stack[top].field, stack[top].group
					if stack[top].object {
						field = stack[top].name
						stack[top].wantName = true
					} else {
						stack[top].count++
					}
					group += "/" + field
				}
				ids++
				stack = append(stack, level{object: d == '{', wantName: d == '{', id: ids, field: field, group: group})
			default:
				if !stack[top].object {
					arrLen[stack[top].id] = stack[top].count
				}
				stack = stack[:top]
			}
			continue
		}
		if top >= 0 && stack[top].object && stack[top].wantName {
			stack[top].name, _ = tok.(string)
			stack[top].wantName = false
			continue
		}
		js := &jsonString{seg: seg, obj: -1, arr: -1}
		if top >= 0 {
			lv := &stack[top]
			if lv.object {
				lv.wantName = true
				js.field, js.obj = lv.name, lv.id
			} else {
				js.field, js.arr, js.idx = lv.field, lv.id, lv.count
				lv.count++
			}
			js.group = lv.group + "." + js.field
			if num, ok := tok.(json.Number); ok && lv.object && strings.Contains(strings.ToLower(lv.name), "index") {
				lv.group += "#" + num.String() // the call or block a delta belongs to
			}
		}
		str, isString := tok.(string)
		if !isString {
			continue
		}
		start := int(before)
		for start < end && s[start] != '"' {
			start++
		}
		js.start, js.end, js.val = start, end, str
		if js.obj >= 0 && pairNames[js.field] {
			objName[js.obj] = str
		}
		if js.arr >= 0 && js.idx == 0 {
			arrFirst[js.arr] = str
		}
		strs = append(strs, js)
	}
	for _, js := range strs {
		raw := s[js.start:js.end]
		named := ""
		switch {
		case js.field != "" && secretJSONField(js.field):
			named = "JSON field " + js.field
		case js.obj >= 0 && js.field == "value" && objName[js.obj] != "" && secretName(objName[js.obj]):
			named = "JSON name/value pair " + objName[js.obj]
		case js.arr >= 0 && js.idx == 1 && arrLen[js.arr] == 2 && secretName(arrFirst[js.arr]):
			named = "JSON [name, value] pair " + arrFirst[js.arr]
		}
		if named != "" {
			if len(raw) > 2 && strings.Trim(js.val, "*") != "" && !isMask(js.val) {
				r.remember(js.val)
				js.val, js.repl, js.changed = mask(len(js.val)), `"`+mask(len(raw)-2)+`"`, true
				r.add(named + " in " + where)
			}
			continue
		}
		if out := r.inString(where, js.val, depth); out != js.val {
			js.val, js.repl, js.changed = out, requote(raw, out), true
			continue
		}
		if strings.IndexByte(raw, '\\') >= 0 {
			if out := r.text(where, js.val); out != js.val {
				js.val, js.repl, js.changed = out, requote(raw, out), true
			}
		}
	}
	return strs
}

// isMask reports whether s is a mask already.
func isMask(s string) bool {
	return len(s) > 0 && mask(len(s)) == s
}

// inString redacts what a JSON string holds when it is itself an encoded
// text: JSON (a tool call's arguments), or base64 of UTF-8 text (an
// event-stream chunk's bytes).
func (r *redactor) inString(where, v string, depth int) string {
	if depth >= maxViewDepth || len(v) < 2 {
		return v
	}
	if t := strings.TrimSpace(v); t != "" && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(v)) {
		return r.bodyAt(where+" (JSON in a string)", v, "application/json", "", depth+1)
	}
	if t := strings.TrimSpace(v); strings.HasPrefix(t, "<") {
		if out := r.xml(where+" (XML in a string)", v); out != v {
			return out
		}
	}
	if formPattern.MatchString(v) {
		if out := r.form(where+" (form in a string)", v); out != v {
			return out
		}
	}
	if plain, enc, ok := base64Text(v); ok {
		out := r.bodyAt(where+" (base64)", plain, "", "", depth+1)
		if out != plain {
			return enc.EncodeToString([]byte(out))
		}
	}
	return v
}

// formPattern matches a string that is a whole form body or query.
var formPattern = regexp.MustCompile(`^[A-Za-z0-9_.%-]+=[^&\s]*(?:&[A-Za-z0-9_.%-]+=[^&\s]*)*$`)

// base64Text decodes v when it is base64 (either alphabet, padded or not)
// of at least 12 bytes of valid UTF-8 text, and returns the encoding to
// write it back with.
func base64Text(v string) (string, *base64.Encoding, bool) {
	if len(v) < 16 || strings.Trim(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=") != "" {
		return "", nil, false
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		raw, err := enc.DecodeString(v)
		if err != nil {
			continue
		}
		if !utf8.Valid(raw) || bytes.ContainsFunc(raw, func(c rune) bool { return c < 0x20 && c != '\n' && c != '\r' && c != '\t' }) {
			return "", nil, false
		}
		return string(raw), enc, true
	}
	return "", nil, false
}

// joinStream reads the strings of each field path of a stream joined, in
// order, and masks what the joined text shows (a key cut across deltas, a
// credential field in streamed tool call arguments) in the pieces it came
// from.
func (r *redactor) joinStream(where string, all []*jsonString) {
	groups := map[string][]*jsonString{}
	var order []string
	for _, js := range all {
		if groups[js.group] == nil {
			order = append(order, js.group)
		}
		groups[js.group] = append(groups[js.group], js)
	}
	for _, g := range order {
		pieces := groups[g]
		if len(pieces) < 2 {
			continue
		}
		var b strings.Builder
		for _, js := range pieces {
			b.WriteString(js.val)
		}
		joined := b.String()
		r.view(joined)
		masked := r.maskText(where+" (joined across stream events)", joined)
		if masked == joined {
			continue
		}
		off := 0
		for _, js := range pieces {
			n := len(js.val)
			if piece := masked[off : off+n]; piece != js.val {
				js.val = strings.ToValidUTF8(piece, "*")
				js.repl, js.changed = requoteOver(js, js.val), true
			}
			off += n
		}
	}
}

// requoteOver returns the raw replacement of a string: its new value
// quoted over the raw text it had.
func requoteOver(js *jsonString, v string) string {
	if js.repl != "" {
		return requote(js.repl, v)
	}
	return requote(strings.Repeat(" ", js.end-js.start), v)
}

// maskText returns text with what redaction finds in it masked byte for
// byte, so that the result has the same length: credential fields when
// the text is JSON, key-shaped values, credential parameters of URLs and
// known secrets.
func (r *redactor) maskText(where, text string) string {
	out := text
	if t := strings.TrimSpace(text); t != "" && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(text)) {
		var b strings.Builder
		last := 0
		for _, js := range r.scanJSON(where, 0, text, maxViewDepth) {
			if js.changed && len(js.repl) == js.end-js.start {
				b.WriteString(text[last:js.start])
				b.WriteString(js.repl)
				last = js.end
			}
		}
		if last > 0 {
			b.WriteString(text[last:])
			out = b.String()
		}
	}
	if t := r.text(where, out); len(t) == len(out) {
		out = t
	}
	return out
}

// requote returns the JSON string of v, padded with '*' to the length of
// raw, the string it replaces, where it is shorter: after the first mask
// when it holds one, else before the closing quote.
func requote(raw, v string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a string always encodes
	q := strings.TrimSuffix(b.String(), "\n")
	if pad := len(raw) - len(q); pad > 0 {
		at := len(q) - 1
		if i := strings.Index(q, Redacted); i >= 0 {
			at = i + len(Redacted)
		}
		q = q[:at] + strings.Repeat("*", pad) + q[at:]
	}
	return q
}

// looksLikeFrames reports whether s starts like an AWS event-stream
// frame: a total length that fits s and a headers length below it.
func looksLikeFrames(s string) bool {
	if len(s) < 16 {
		return false
	}
	total := int(s[0])<<24 | int(s[1])<<16 | int(s[2])<<8 | int(s[3])
	headers := int(s[4])<<24 | int(s[5])<<16 | int(s[6])<<8 | int(s[7])
	return total >= 16 && total <= len(s) && headers <= total-16
}

// eventStream redacts the string headers and payloads of AWS event-stream
// frames, the payloads also read as one stream, and encodes the frames
// again when one changed. It reports false for a body that is not whole
// frames, which is then redacted as text.
func (r *redactor) eventStream(where string, s string, depth int) (string, bool) {
	dec := eventstream.NewDecoder()
	rd := strings.NewReader(s)
	var msgs []eventstream.Message
	var payloads []string
	for rd.Len() > 0 {
		msg, err := dec.Decode(rd, nil)
		if err != nil {
			return s, false
		}
		msg.Payload = append([]byte(nil), msg.Payload...)
		msgs = append(msgs, msg)
		payloads = append(payloads, string(msg.Payload))
	}
	changed := false
	// Each payload as a body of its own, then the JSON ones as one stream.
	for n, p := range payloads {
		if out := r.bodyAt(where+" frame", p, "application/json", "", depth+1); out != p {
			payloads[n], changed = out, true
		}
	}
	var segs []string
	var at []int
	for n, p := range payloads {
		if t := strings.TrimSpace(p); t != "" && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(p)) {
			segs, at = append(segs, p), append(at, n)
		}
	}
	if len(segs) > 1 {
		for k, out := range r.jsonSegments(where, segs, true, depth+1) {
			if out != segs[k] {
				payloads[at[k]], changed = out, true
			}
		}
	}
	for n := range msgs {
		msgs[n].Payload = []byte(payloads[n])
		for k, h := range msgs[n].Headers {
			if sv, ok := h.Value.(eventstream.StringValue); ok {
				if m := r.mask(where+" frame header "+h.Name, string(sv)); m != string(sv) {
					msgs[n].Headers[k].Value, changed = eventstream.StringValue(m), true
				}
			}
		}
	}
	if !changed {
		return s, true
	}
	var b bytes.Buffer
	enc := eventstream.NewEncoder()
	for _, msg := range msgs {
		if err := enc.Encode(&b, msg); err != nil {
			return s, false
		}
	}
	return b.String(), true
}
