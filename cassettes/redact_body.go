package cassettes

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// body redacts a request or response body: form fields named like
// credentials in a form body, JSON fields named like credentials and
// key-shaped values hidden by JSON escapes in JSON (whole, or one value a
// line as in SSE and NDJSON), key-shaped values anywhere, and the same in
// the payloads of AWS event-stream frames. Every secret becomes a mask of
// its own length; nothing else changes.
func (r *redactor) body(where, s, contentType string) string {
	if s == "" {
		return s
	}
	if strings.Contains(strings.ToLower(contentType), "application/vnd.amazon.eventstream") {
		if out, ok := r.eventStream(where, s); ok {
			return out
		}
	}
	if strings.Contains(strings.ToLower(contentType), "application/x-www-form-urlencoded") {
		s = r.form(where, s)
	}
	s = r.jsonText(where, s)
	s = r.textURLs(where, s)
	out := bodyTokenPattern.ReplaceAllStringFunc(s, func(m string) string {
		sub := bodyTokenPattern.FindStringSubmatch(m)
		return sub[1] + mask(len(sub[2]))
	})
	if out != s {
		r.add("token in " + where)
	}
	return out
}

// textParamPattern finds a query parameter in text (a signed URL quoted
// in a body): group 1 is the separator and name, group 2 the name, group 3
// the value.
var textParamPattern = regexp.MustCompile(`([?&;]([A-Za-z0-9_.%-]+)=)([^&;#\s"'<>\\]*)`)

// textUserinfoPattern finds the password of user information in a URL in
// text; group 1 is what comes before it.
var textUserinfoPattern = regexp.MustCompile(`((?i:[a-z][a-z0-9+.-]*)://[^/\s:@"'<>\\]*:)([^/\s@"'<>\\]+)@`)

// textURLs masks, in free text, the values of query parameters named like
// credentials and the passwords of URLs, keeping their length.
func (r *redactor) textURLs(where, s string) string {
	out := textParamPattern.ReplaceAllStringFunc(s, func(m string) string {
		sub := textParamPattern.FindStringSubmatch(m)
		name := sub[2]
		if un, err := url.QueryUnescape(name); err == nil {
			name = un
		}
		if sub[3] == "" || !secretParam(name) {
			return m
		}
		r.add("URL query parameter " + name + " in " + where)
		return sub[1] + mask(len(sub[3]))
	})
	return textUserinfoPattern.ReplaceAllStringFunc(out, func(m string) string {
		sub := textUserinfoPattern.FindStringSubmatch(m)
		r.add("URL user information in " + where)
		return sub[1] + mask(len(sub[2])) + "@"
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
			changed = true
		}
	}
	if !changed {
		return s
	}
	return strings.Join(pairs, "&")
}

// jsonText redacts s as one JSON value or, failing that, as lines of
// which some hold one JSON value, after an optional "data:" (SSE, NDJSON).
func (r *redactor) jsonText(where, s string) string {
	trimmed := strings.TrimSpace(s)
	if trimmed == "" || !strings.ContainsAny(trimmed[:1], "{[") && !strings.Contains(s, "\n") {
		return s
	}
	if json.Valid([]byte(s)) {
		return r.jsonValue(where, s)
	}
	lines := strings.SplitAfter(s, "\n")
	changed := false
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
		if out := r.jsonValue(where, payload); out != payload {
			lines[n] = line[:start] + out + line[start+len(payload):]
			changed = true
		}
	}
	if !changed {
		return s
	}
	return strings.Join(lines, "")
}

// jsonValue redacts one valid JSON text token by token, without recursion:
// a string value of a field named like a credential becomes a mask, and a
// string whose decoded value holds a key-shaped value that its escapes hid
// (\u0073k-...) is written again with the value masked. Every other byte
// is kept.
func (r *redactor) jsonValue(where, s string) string {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	// stack holds, per open container, whether it is an object whose
	// next string is a field name.
	type level struct{ object, wantName bool }
	var stack []level
	var field string
	var out strings.Builder
	last := 0 // bytes of s copied to out
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return s // json.Valid passed, so this cannot happen; keep s
		}
		end := dec.InputOffset()
		top := len(stack) - 1
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				if top >= 0 && stack[top].object {
					stack[top].wantName = true
				}
				stack = append(stack, level{object: d == '{', wantName: d == '{'})
			default:
				stack = stack[:top]
			}
			continue
		}
		str, isString := tok.(string)
		if top >= 0 && stack[top].object && stack[top].wantName {
			field = str
			stack[top].wantName = false
			continue
		}
		if top >= 0 && stack[top].object {
			stack[top].wantName = true
		}
		if !isString {
			continue
		}
		// The raw string is s[start:end], after any blanks, ':' or ','.
		start := int(before)
		for start < int(end) && s[start] != '"' {
			start++
		}
		raw := s[start:end]
		var repl string
		switch {
		case top >= 0 && stack[top].object && secretJSONField(field) && len(raw) > 2:
			repl = `"` + mask(len(raw)-2) + `"`
			r.add("JSON field " + field + " in " + where)
		case strings.IndexByte(raw, '\\') >= 0 && bodyTokenPattern.MatchString(str):
			repl = requote(raw, bodyTokenPattern.ReplaceAllStringFunc(str, func(m string) string {
				sub := bodyTokenPattern.FindStringSubmatch(m)
				return sub[1] + Redacted
			}))
			r.add("token in " + where)
		default:
			continue
		}
		out.WriteString(s[last:start])
		out.WriteString(repl)
		last = int(end)
	}
	if last == 0 {
		return s
	}
	out.WriteString(s[last:])
	return out.String()
}

// requote returns the JSON string of v, padded with '*' after its first
// mask to the length of raw, the string it replaces, where it is shorter.
func requote(raw, v string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // a string always encodes
	q := strings.TrimSuffix(b.String(), "\n")
	if pad := len(raw) - len(q); pad > 0 {
		if at := strings.Index(q, Redacted); at >= 0 {
			at += len(Redacted)
			q = q[:at] + strings.Repeat("*", pad) + q[at:]
		}
	}
	return q
}

// eventStream redacts the string headers and payloads of AWS event-stream
// frames and encodes the frames again when one changed. It reports false
// for a body that is not whole frames, which is then redacted as text.
func (r *redactor) eventStream(where, s string) (string, bool) {
	dec := eventstream.NewDecoder()
	rd := strings.NewReader(s)
	var msgs []eventstream.Message
	changed := false
	for rd.Len() > 0 {
		msg, err := dec.Decode(rd, nil)
		if err != nil {
			return s, false
		}
		// Decode reuses nothing it returns when given no buffer; copy
		// anyway, since the payload is changed below.
		msg.Payload = append([]byte(nil), msg.Payload...)
		p := r.body(where, string(msg.Payload), "application/json")
		if p != string(msg.Payload) {
			msg.Payload, changed = []byte(p), true
		}
		for n, h := range msg.Headers {
			if sv, ok := h.Value.(eventstream.StringValue); ok {
				if m := r.mask(where+" frame header "+h.Name, string(sv)); m != string(sv) {
					msg.Headers[n].Value, changed = eventstream.StringValue(m), true
				}
			}
		}
		msgs = append(msgs, msg)
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
