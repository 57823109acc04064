package serve

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
)

// frameRecorded returns a recorded stream body with the framing its
// protocol defines, and whether it had to change it. Recordings that
// arrived as a chunk fixture (one JSON payload per line, cassette
// x.chunks.txt) lost their framing: their events get back their names
// (nameEvents), and a Chat Completions or Mistral stream its [DONE]
// terminator. An SSE recording whose last event lacks the blank line that
// ends it (a fixture file trimmed at its end) gets it, unless the scenario
// expects a broken stream: an SSE reader never dispatches an unterminated
// event. Every other recording is sent as recorded, however odd.
func frameRecorded(protocol string, sc *scenarios.Scenario, isSSE bool) ([]byte, bool) {
	body, changed := sc.Body, false
	if !isSSE {
		return body, false
	}
	if strings.Contains(sc.Cassette, ".chunks.txt") {
		body, changed = nameEvents(protocol, body)
		if descriptor(protocol).SSE.Done && !bytes.Contains(body, []byte("data: [DONE]")) {
			body = append(slices.Clip(body), "data: [DONE]\n\n"...)
			changed = true
		}
	}
	if !sc.Want.ExpectsError() && len(body) > 0 {
		if end := bytes.ReplaceAll(body[max(0, len(body)-4):], []byte("\r\n"), []byte("\n")); !bytes.HasSuffix(end, []byte("\n\n")) {
			if !bytes.HasSuffix(end, []byte("\n")) {
				body = append(slices.Clip(body), '\n')
			}
			body = append(slices.Clip(body), '\n')
			changed = true
		}
	}
	return body, changed
}

// nameEvents returns a recorded SSE body with the framing its protocol
// defines: every data event of a protocol whose events are named
// (SSE.NamedEvents) that has no "event:"
// line gets one, named by its JSON payload's "type", in the event's own
// line ending. Recordings that arrived as one JSON payload per line (the
// chunk fixtures) lost their names; the rest of the bytes are kept as
// recorded. It reports whether any event was renamed.
func nameEvents(protocol string, body []byte) ([]byte, bool) {
	if !descriptor(protocol).SSE.NamedEvents {
		return body, false
	}
	frames := cassettes.SplitStream("text/event-stream", body)
	changed := false
	var out bytes.Buffer
	for _, f := range frames {
		name, eol := unnamedType(f)
		if name == "" {
			out.Write(f)
			continue
		}
		changed = true
		out.WriteString("event: " + name + eol)
		out.Write(f)
	}
	if !changed {
		return body, false
	}
	return out.Bytes(), true
}

// unnamedType returns the payload type of an SSE event that has data but
// no "event:" line, and the line ending of its first line; "" when the
// event is named, has no data, or its payload has no type.
func unnamedType(frame []byte) (name, eol string) {
	var data [][]byte
	for i, line := range bytes.SplitAfter(frame, []byte("\n")) {
		trimmed := bytes.TrimRight(line, "\r\n")
		if i == 0 {
			eol = string(line[len(trimmed):])
			if eol == "" {
				eol = "\n"
			}
		}
		switch {
		case bytes.HasPrefix(trimmed, []byte("event:")):
			return "", ""
		case bytes.HasPrefix(trimmed, []byte("data:")):
			d := bytes.TrimPrefix(trimmed, []byte("data:"))
			data = append(data, bytes.TrimPrefix(d, []byte(" ")))
		}
	}
	if len(data) == 0 {
		return "", ""
	}
	var p struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(bytes.Join(data, []byte("\n")), &p) != nil || !validEventName(p.Type) {
		return "", ""
	}
	return p.Type, eol
}

// validEventName reports whether a payload type can be an SSE event name:
// non-empty, with no line break.
func validEventName(s string) bool {
	return s != "" && !bytes.ContainsAny([]byte(s), "\r\n")
}

// descriptor returns the descriptor of a built-in protocol; an unknown name
// gives the zero descriptor, which asks for no framing and no rules.
func descriptor(name string) providers.Protocol {
	p, _ := providers.Describe(name)
	return p
}
