package serve

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Chaos says how the server mangles what it sends, within what the wire
// format allows, to test a client's reader. The zero value sends every
// stream event in one write followed by a flush.
type Chaos struct {
	// Split cuts the bytes into writes at arbitrary boundaries, seeded by
	// Seed: inside UTF-8 characters and between CR and LF too.
	Split bool
	Seed  uint64
	// CRLF ends every SSE line with CR LF.
	CRLF bool
	// Ping puts a ": ping" comment before every SSE event.
	Ping bool
	// KeepAlive puts an event with an empty "data:" line before every SSE
	// event.
	KeepAlive bool
	// MultiLine splits each JSON data payload over several "data:" lines,
	// which an SSE reader joins with LF (valid JSON whitespace).
	MultiLine bool
	// Delay is slept after every write.
	Delay time.Duration
	// Disconnect drops the connection after half of the stream's events.
	Disconnect bool
	// Error ends the stream after half of its events with the protocol's
	// error event.
	Error bool
}

// ErrBadChaos is wrapped by the errors of ParseChaos.
var ErrBadChaos = errors.New("bad chaos option")

// chaosNames are the option names ParseChaos knows, in the order String
// writes them.
var chaosNames = []string{"split", "crlf", "ping", "keepalive", "multiline", "delay", "disconnect", "error"}

// ChaosNames returns the names of the chaos options, for help texts.
func ChaosNames() []string { return slices.Clone(chaosNames) }

// ParseChaos parses a comma-separated list of chaos options: split (or
// split=SEED), crlf, ping, keepalive, multiline, delay=DURATION,
// disconnect, error. "" and "none" mean no chaos.
func ParseChaos(s string) (Chaos, error) {
	var c Chaos
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		return c, nil
	}
	for _, item := range strings.Split(s, ",") {
		name, val, hasVal := strings.Cut(strings.TrimSpace(item), "=")
		switch name {
		case "split":
			c.Split, c.Seed = true, 1
			if hasVal {
				n, err := strconv.ParseUint(val, 10, 64)
				if err != nil {
					return Chaos{}, fmt.Errorf("parse chaos %q: %w: split seed %q is not an unsigned integer", s, ErrBadChaos, val)
				}
				c.Seed = n
			}
		case "crlf":
			c.CRLF = true
		case "ping":
			c.Ping = true
		case "keepalive":
			c.KeepAlive = true
		case "multiline":
			c.MultiLine = true
		case "delay":
			d := 10 * time.Millisecond
			if hasVal {
				var err error
				if d, err = time.ParseDuration(val); err != nil || d < 0 || d > time.Minute {
					return Chaos{}, fmt.Errorf("parse chaos %q: %w: delay %q is not a duration between 0 and 1m", s, ErrBadChaos, val)
				}
			}
			c.Delay = d
		case "disconnect":
			c.Disconnect = true
		case "error":
			c.Error = true
		default:
			return Chaos{}, fmt.Errorf("parse chaos %q: %w %q; known: %s", s, ErrBadChaos, name, strings.Join(chaosNames, ", "))
		}
		if hasVal && name != "split" && name != "delay" {
			return Chaos{}, fmt.Errorf("parse chaos %q: %w: %s takes no value", s, ErrBadChaos, name)
		}
	}
	if c.Disconnect && c.Error {
		return Chaos{}, fmt.Errorf("parse chaos %q: %w: disconnect and error both end the stream; choose one", s, ErrBadChaos)
	}
	return c, nil
}

// String returns the options in the form ParseChaos reads, "none" for
// none.
func (c Chaos) String() string {
	var parts []string
	if c.Split {
		parts = append(parts, "split="+strconv.FormatUint(c.Seed, 10))
	}
	for _, o := range []struct {
		on   bool
		name string
	}{{c.CRLF, "crlf"}, {c.Ping, "ping"}, {c.KeepAlive, "keepalive"}, {c.MultiLine, "multiline"}} {
		if o.on {
			parts = append(parts, o.name)
		}
	}
	if c.Delay > 0 {
		parts = append(parts, "delay="+c.Delay.String())
	}
	if c.Disconnect {
		parts = append(parts, "disconnect")
	}
	if c.Error {
		parts = append(parts, "error")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ",")
}

// sseOnly reports whether c asks for an option that only SSE can carry.
func (c Chaos) sseOnly() []string {
	var out []string
	if c.CRLF {
		out = append(out, "crlf")
	}
	if c.Ping {
		out = append(out, "ping")
	}
	if c.KeepAlive {
		out = append(out, "keepalive")
	}
	if c.MultiLine {
		out = append(out, "multiline")
	}
	return out
}

// reframeSSE applies the SSE options of c to one SSE event (its lines and
// the blank line that ends it).
func reframeSSE(c Chaos, event []byte) []byte {
	lines := splitLines(event)
	var b bytes.Buffer
	eol := "\n"
	if c.CRLF {
		eol = "\r\n"
	}
	if c.Ping {
		b.WriteString(": ping" + eol + eol)
	}
	if c.KeepAlive {
		b.WriteString("data:" + eol + eol)
	}
	for _, line := range lines {
		if c.MultiLine {
			if payload, ok := strings.CutPrefix(line, "data:"); ok {
				payload = strings.TrimPrefix(payload, " ")
				for _, piece := range splitJSONLines(payload) {
					b.WriteString("data: " + piece + eol)
				}
				continue
			}
		}
		b.WriteString(line + eol)
	}
	return b.Bytes()
}

// splitLines returns the lines of an SSE event without their ends; the
// blank line that ends the event is the last, empty, element.
func splitLines(event []byte) []string {
	var out []string
	s := string(event)
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i])
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
	return out
}

// splitJSONLines cuts a JSON text after every comma outside strings, so
// that the pieces joined with LF are the same JSON value. Text that is not
// JSON-looking is one piece.
func splitJSONLines(s string) []string {
	if !strings.HasPrefix(s, "{") && !strings.HasPrefix(s, "[") {
		return []string{s}
	}
	var out []string
	inStr, esc, start := false, false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case !inStr && c == ',':
			out = append(out, s[start:i+1])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// splitPieces cuts data into pieces of 1 to 16 bytes chosen by a generator
// seeded with seed, with an extra cut inside the first multi-byte UTF-8
// character and between the first CR and LF, so those boundaries are always
// exercised.
func splitPieces(data []byte, seed uint64) [][]byte {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	cuts := map[int]bool{}
	if i := bytes.IndexFunc(data, func(r rune) bool { return r >= utf8.RuneSelf }); i >= 0 {
		_, size := utf8.DecodeRune(data[i:])
		if size > 1 {
			cuts[i+1] = true
		}
	}
	if i := bytes.Index(data, []byte("\r\n")); i >= 0 {
		cuts[i+1] = true
	}
	for i := 0; i < len(data); {
		i += 1 + rng.IntN(16)
		cuts[i] = true
	}
	var out [][]byte
	start := 0
	for i := 1; i < len(data); i++ {
		if cuts[i] {
			out = append(out, data[start:i])
			start = i
		}
	}
	if start < len(data) {
		out = append(out, data[start:])
	}
	return out
}
