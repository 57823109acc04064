package cassettes

import (
	"bytes"
	"encoding/binary"
	"mime"
	"strings"
)

// SplitStream cuts a recorded response body into the pieces a server would
// have sent one at a time, so that a replay streams instead of sending the
// body in one write: after each SSE event (a blank line) for
// text/event-stream, after each frame (by its length prefix) for AWS
// event-stream, after each line for NDJSON. Other bodies are one piece.
// The pieces always join back to body; a malformed event-stream frame
// ends the cutting and leaves the rest in one piece.
func SplitStream(contentType string, body []byte) [][]byte {
	if len(body) == 0 {
		return nil
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(contentType))
	}
	switch mt {
	case "text/event-stream":
		return splitSSE(body)
	case "application/vnd.amazon.eventstream":
		return splitFrames(body)
	case "application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines":
		return splitAfter(body, []byte("\n"))
	}
	return [][]byte{body}
}

// splitSSE cuts after every blank line, whatever the line endings.
func splitSSE(body []byte) [][]byte {
	var out [][]byte
	start, lineStart := 0, 0
	for k := 0; k < len(body); k++ {
		c := body[k]
		if c != '\n' && c != '\r' {
			continue
		}
		end := k + 1
		if c == '\r' && end < len(body) && body[end] == '\n' {
			end++
		}
		blank := k == lineStart
		k, lineStart = end-1, end
		if blank && end > start {
			out = append(out, body[start:end])
			start = end
		}
	}
	if start < len(body) {
		out = append(out, body[start:])
	}
	return out
}

// splitAfter cuts after every sep.
func splitAfter(body, sep []byte) [][]byte {
	var out [][]byte
	for len(body) > 0 {
		k := bytes.Index(body, sep)
		if k < 0 {
			out = append(out, body)
			break
		}
		out = append(out, body[:k+len(sep)])
		body = body[k+len(sep):]
	}
	return out
}

// splitFrames cuts AWS event-stream frames by their total-length prelude.
func splitFrames(body []byte) [][]byte {
	const minFrame = 16 // prelude (12) and message CRC (4)
	var out [][]byte
	for len(body) > 0 {
		if len(body) < minFrame {
			break
		}
		n := binary.BigEndian.Uint32(body[:4])
		if n < minFrame || uint64(n) > uint64(len(body)) {
			break
		}
		out = append(out, body[:n])
		body = body[n:]
	}
	if len(body) > 0 {
		out = append(out, body)
	}
	return out
}
