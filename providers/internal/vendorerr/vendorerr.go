package vendorerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toolconform/conform/core"
)

// The error bodies vendors send instead of a protocol's own, which every
// decoder recognises through FromBody when its protocol's decoding
// fails:
//
//   - {"error": {"message", "type", "code", "status"}}: OpenAI, Anthropic,
//     Gemini (google.rpc.Status with code, message, status), Ollama's
//     gateway forms;
//   - {"error": "text", "code": ...}: Ollama, llama.cpp, and xAI's
//     Responses-compatible endpoint ({"code": "invalid-argument",
//     "error": "Incorrect API key provided: ..."});
//   - {"detail": "text"}: Mistral and other FastAPI servers ("Invalid API
//     Key"), and {"detail": [{"loc", "msg", "type"}]}, FastAPI's request
//     validation errors;
//   - {"message": "text"} or {"Message": "text"}: AWS (Bedrock, with
//     "__type" or a code) and Cohere;
//   - {"errors": [...]}: a list of errors, each an error object or text
//     (Cloudflare's envelope, with success, messages and result beside it);
//   - a JSON array of any of the above: Gemini's streamGenerateContent
//     without alt=sse answers an error as [{"error": {...}}].
//
// A body with any key outside the error vocabulary is not one: a success
// body a decoder refused must stay refused, never read as an error. Nor is
// a body that is not valid UTF-8, which every decoder refuses by one rule.

// maxVendorErrorBody bounds the bytes FromBody reads and the bytes
// GuardStream keeps.
const maxVendorErrorBody = 1 << 16

// errorKeys are the keys an error body may hold, lower-cased.
var errorKeys = map[string]bool{
	"error": true, "errors": true, "detail": true, "message": true, "msg": true,
	"code": true, "type": true, "status": true, "statuscode": true, "status_code": true,
	"object": true, "param": true, "title": true, "__type": true,
	"request_id": true, "requestid": true, "error_type": true, "error_code": true,
	// Cloudflare's API envelope: {"success": false, "errors": [...],
	// "messages": [], "result": null}.
	"success": true, "result": true, "messages": true,
	// google.rpc.Status details, OpenRouter's metadata, Azure's
	// innererror.
	"details": true, "metadata": true, "innererror": true,
}

// FromBody reads body as one of the vendor error shapes and returns the
// provider error it states, or nil when body is not one.
func FromBody(body []byte) *core.ProviderError {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || len(body) > maxVendorErrorBody || !utf8.Valid(body) || !json.Valid(body) {
		return nil
	}
	if body[0] == '[' {
		var items []json.RawMessage
		if json.Unmarshal(body, &items) != nil || len(items) == 0 {
			return nil
		}
		var all []*core.ProviderError
		for _, it := range items {
			pe := errorObject(it)
			if pe == nil {
				return nil
			}
			all = append(all, pe)
		}
		return joinErrors(all)
	}
	return errorObject(body)
}

// errorObject reads one error body object.
func errorObject(raw json.RawMessage) *core.ProviderError {
	var obj map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	get := func(keys ...string) json.RawMessage {
		for _, k := range keys {
			if v, ok := obj[k]; ok {
				return v
			}
		}
		return nil
	}
	for k := range obj {
		if !errorKeys[strings.ToLower(k)] {
			return nil
		}
	}
	pe := &core.ProviderError{
		Type: textOf(get("type", "__type", "error_type", "title")),
		Code: textOf(get("code", "error_code", "status", "statusCode", "status_code")),
	}
	if t := textOf(obj["object"]); pe.Type == "" && t != "" && t != "error" {
		pe.Type = t
	}
	switch {
	case isString(get("error")):
		pe.Message = textOf(get("error"))
	case isObject(get("error")):
		inner := errorObject(get("error"))
		if inner == nil {
			return nil
		}
		mergeInto(pe, inner)
	case isArray(get("errors")):
		inner := FromBody(get("errors"))
		if inner == nil {
			inner = stringList(get("errors"))
		}
		if inner == nil {
			return nil
		}
		mergeInto(pe, inner)
	case get("detail") != nil:
		msg := detailText(get("detail"))
		if msg == "" {
			return nil
		}
		pe.Message = msg
	case isString(get("message", "Message", "msg")):
		pe.Message = textOf(get("message", "Message", "msg"))
	default:
		return nil
	}
	if pe.Message == "" {
		return nil
	}
	return pe
}

// mergeInto fills pe from an inner error; the inner error's type and code
// win, being the more specific.
func mergeInto(pe, inner *core.ProviderError) {
	pe.Message = inner.Message
	if inner.Type != "" {
		pe.Type = inner.Type
	}
	if inner.Code != "" {
		pe.Code = inner.Code
	}
}

// detailText reads a detail value: text, an object with a message, or
// FastAPI's list of {"loc": [...], "msg": ..., "type": ...}, each as
// "loc.path: msg", joined with "; ".
func detailText(raw json.RawMessage) string {
	switch {
	case isString(raw):
		return textOf(raw)
	case isObject(raw):
		if pe := errorObject(raw); pe != nil {
			return pe.Message
		}
		return ""
	case !isArray(raw):
		return ""
	}
	var items []struct {
		Loc     []json.RawMessage `json:"loc"`
		Msg     json.RawMessage   `json:"msg"`
		Message json.RawMessage   `json:"message"`
	}
	if json.Unmarshal(raw, &items) != nil {
		if pe := stringList(raw); pe != nil {
			return pe.Message
		}
		return ""
	}
	var parts []string
	for _, it := range items {
		msg := textOf(it.Msg)
		if msg == "" {
			msg = textOf(it.Message)
		}
		if msg == "" {
			return ""
		}
		var loc []string
		for _, l := range it.Loc {
			loc = append(loc, textOf(l))
		}
		if len(loc) > 0 {
			msg = strings.Join(loc, ".") + ": " + msg
		}
		parts = append(parts, msg)
	}
	return strings.Join(parts, "; ")
}

// stringList reads a list of texts as one error.
func stringList(raw json.RawMessage) *core.ProviderError {
	var ss []string
	if json.Unmarshal(raw, &ss) != nil || len(ss) == 0 {
		return nil
	}
	return &core.ProviderError{Message: strings.Join(ss, "; ")}
}

// joinErrors makes one error of several: the first one's type and code,
// the messages joined with "; ".
func joinErrors(all []*core.ProviderError) *core.ProviderError {
	out := *all[0]
	for _, pe := range all[1:] {
		out.Message += "; " + pe.Message
	}
	return &out
}

func isString(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '"' }
func isObject(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '{' }
func isArray(raw json.RawMessage) bool  { return len(raw) > 0 && raw[0] == '[' }

// textOf returns a JSON string's value or a number's literal; "" for
// anything else.
func textOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case c == '-' || c >= '0' && c <= '9':
		return string(raw)
	}
	return ""
}

// Fallback is deferred by a DecodeResponse with named results: when
// the protocol's decoding failed and body is a vendor error body (see
// FromBody), the response becomes that provider error and the error
// nil.
func Fallback(body []byte, resp **core.Response, err *error) {
	if *err == nil {
		return
	}
	if pe := FromBody(body); pe != nil {
		*resp = &core.Response{Message: core.Message{Role: core.RoleAssistant}, Finish: core.FinishError, Error: pe}
		*err = nil
	}
}

// GuardStream returns the stream decode gives for r, except that when the
// stream fails before its first event and the bytes it read are a vendor
// error body (see FromBody), whole or as the data of the first SSE
// event, the stream yields that provider error as an error event and ends:
// a server that answers a streaming request with a JSON error body has
// said something, which is not a malformed stream.
func GuardStream(r io.Reader, decode func(io.Reader) core.EventStream) core.EventStream {
	g := &guardedStream{}
	g.inner = decode(g.Reader(r))
	return g
}

type guardedStream struct {
	Guard
	inner core.EventStream
}

func (g *guardedStream) Next() (core.Event, error) { return g.Guard.Next(g.inner.Next) }

// Guard is GuardStream kept in a stream decoder instead of wrapped around
// it, which spares its allocation: the decoder reads its input through
// Reader(r) and its Next returns Next(next), next being its own Next.
type Guard struct {
	src io.Reader
	// kept holds the bytes read before the first event, up to the end of
	// the first unit (see firstUnit) once it is whole (whole), in first
	// while they fit.
	kept  []byte
	first [1024]byte
	whole bool
	// check is the length of kept at which Read next looks whether the
	// unit is whole: twice the last, so that the looks cost time linear
	// in what is kept whatever the sizes of the reads.
	check   int
	started bool
	ended   bool
	// spare is the pooled holder of kept once kept has outgrown first,
	// handed back to spills when the stream has started.
	spare *[]byte
}

// spills holds the buffers that kept grew into past first, of guards
// whose stream started (kept is then dropped, never read again), for the
// next guard whose first unit outgrows first.
var spills sync.Pool

// Reader returns the reader of r that the decoder must read from.
func (g *Guard) Reader(r io.Reader) io.Reader {
	g.src = r
	return g
}

// Read keeps the first bytes read, up to maxVendorErrorBody, until the
// first unit is whole in them: what vendorError reads never changes after
// that.
func (g *Guard) Read(p []byte) (int, error) {
	n, err := g.src.Read(p)
	if g.started || g.whole || len(g.kept) >= maxVendorErrorBody {
		return n, err
	}
	b := p[:min(n, maxVendorErrorBody-len(g.kept))]
	if g.kept == nil {
		g.kept = g.first[:0]
	}
	// What fits in the room left first: the first unit (a first event, a
	// small error body) is usually whole in it, and no more need be kept.
	room := min(len(b), cap(g.kept)-len(g.kept))
	g.kept = append(g.kept, b[:room]...)
	if !g.unitWhole() {
		g.spill(b[room:])
		g.unitWhole()
	}
	return n, err
}

// spill appends b to kept, into a pooled buffer when kept first outgrows
// first and one large enough is free.
func (g *Guard) spill(b []byte) {
	need := len(g.kept) + len(b)
	if need <= cap(g.kept) || g.spare != nil || cap(g.kept) != len(g.first) {
		g.kept = append(g.kept, b...)
		return
	}
	if p, _ := spills.Get().(*[]byte); p != nil && cap(*p) >= need {
		g.spare = p
		g.kept = append(append((*p)[:0], g.kept...), b...)
		return
	}
	g.kept = append(g.kept, b...)
}

// unitWhole reports whether the first unit is whole in the bytes kept,
// looking again only when they have doubled since the last look.
func (g *Guard) unitWhole() bool {
	if !g.whole && len(g.kept) >= g.check {
		g.whole, g.check = unitWhole(g.kept), 2*len(g.kept)
	}
	return g.whole
}

// Passing reports whether Next(next) is next() from now on: the first
// event came and no vendor error ended the stream.
func (g *Guard) Passing() bool { return g.started && !g.ended }

// Next returns what next gives, or the vendor error that GuardStream
// yields in place of a failure before the first event.
func (g *Guard) Next(next func() (core.Event, error)) (core.Event, error) {
	if g.ended {
		return core.Event{}, io.EOF
	}
	ev, err := next()
	if err == nil {
		if cap(g.kept) > len(g.first) && cap(g.kept) <= 2*maxVendorErrorBody {
			p := g.spare
			if p == nil {
				p = new([]byte)
			}
			*p = g.kept[:0]
			spills.Put(p)
		}
		g.started, g.kept, g.spare = true, nil, nil
		return ev, nil
	}
	if g.started || errors.Is(err, io.EOF) {
		return ev, err
	}
	g.started = true
	if pe := g.vendorError(); pe != nil {
		g.ended = true
		return core.Event{Kind: core.EventError, Error: pe}, nil
	}
	return ev, err
}

// vendorError reads the first unit of the body (see firstUnit) as a vendor
// error body. The decoder that failed may have stopped reading anywhere in
// that unit, so the rest of it is read first: what is decided never depends
// on the sizes of the reads that brought the bytes.
func (g *Guard) vendorError() *core.ProviderError {
	atEOF := false
	buf := make([]byte, 4096)
	for empty := 0; ; {
		unit, done := firstUnit(g.kept, atEOF)
		if done {
			return FromBody(unit)
		}
		if len(g.kept) >= maxVendorErrorBody {
			return nil
		}
		n, err := g.src.Read(buf[:min(len(buf), maxVendorErrorBody-len(g.kept))])
		g.kept = append(g.kept, buf[:n]...)
		if n == 0 && err == nil {
			empty++
		} else {
			empty = 0
		}
		// A read error ends the body as EOF does; so do 100 reads in a
		// row that bring nothing, as io.ReadAtLeast decides.
		atEOF = err != nil || empty >= 100
	}
}

// firstUnit returns the part of body a vendor error is read from: the
// first JSON value when the body starts with { or [, else the data of the
// first SSE event (its data lines up to the blank line ending it). done
// reports that the unit is whole in body, or that no more bytes will come
// (atEOF) and it is as whole as it will be.
func firstUnit(body []byte, atEOF bool) (unit []byte, done bool) {
	return scanUnit(body, atEOF, true)
}

// unitWhole reports whether the first unit of body is whole in it, as
// firstUnit(body, false) reports done, without building the unit.
func unitWhole(body []byte) bool {
	_, done := scanUnit(body, false, false)
	return done
}

// scanUnit is firstUnit; with build unset it finds whether the unit is
// done without gathering an SSE event's data, and returns no unit for one.
func scanUnit(body []byte, atEOF, build bool) (unit []byte, done bool) {
	b := bytes.TrimLeft(body, " \t\r\n")
	if len(b) == 0 {
		return nil, atEOF
	}
	if b[0] == '{' || b[0] == '[' {
		if end := jsonValueEnd(b); end > 0 {
			return b[:end], true
		}
		return b, atEOF
	}
	var data []byte
	sawData := false
	for len(b) > 0 {
		line, rest, complete := bytes.Cut(b, []byte("\n"))
		if !complete && !atEOF {
			return nil, false
		}
		b = rest
		line = bytes.TrimRight(line, "\r")
		if len(line) == 0 && sawData {
			return data, true
		}
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			sawData = true
			if build {
				data = append(data, bytes.TrimPrefix(d, []byte(" "))...)
				data = append(data, '\n')
			}
		}
	}
	return data, atEOF
}

// jsonValueEnd returns the length of the JSON object or array b starts
// with, or 0 when it does not end in b. It counts brackets outside strings
// and checks nothing else (FromBody validates the value); a counter, not
// a recursion, so no depth bound is needed.
func jsonValueEnd(b []byte) int {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			// To the closing quote: the next one after an even run of
			// backslashes (an odd run escapes it).
			for {
				j := bytes.IndexByte(b[i+1:], '"')
				if j < 0 {
					return 0
				}
				i += 1 + j
				k := i - 1
				for b[k] == '\\' {
					k--
				}
				if (i-1-k)%2 == 0 {
					break
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return 0
}
