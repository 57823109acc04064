package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/providers/protocol"
)

// maxResponseBody bounds a response body that is one JSON document, which
// decode reads whole because a decoder takes it whole. A stream is never
// read whole: its decoder pulls one event at a time from the reader, each
// bounded by the decoder's own event limit.
const maxResponseBody = 32 << 20

// sniffWindow is the most decode reads ahead to tell a stream from one JSON
// document (and a recording from a body). A body whose first JSON value is
// longer than this is no stream: every stream decoder refuses an event or
// line above 4 MiB.
const sniffWindow = 4<<20 + 4<<10

// decodedCall is one call in decode's output.
type decodedCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Repaired  bool            `json:"repaired,omitempty"`
	Original  string          `json:"original,omitempty"`
}

// decodeOutput is the JSON object decode prints.
type decodeOutput struct {
	Protocol string `json:"protocol"`
	// Interaction is the exchange's position in a recording.
	Interaction    *int                `json:"interaction,omitempty"`
	Stream         bool                `json:"stream"`
	Text           string              `json:"text"`
	Calls          []decodedCall       `json:"calls"`
	Incomplete     []decodedCall       `json:"incomplete,omitempty"`
	FinishReason   core.FinishReason   `json:"finish_reason"`
	ProviderFinish string              `json:"provider_finish_reason"`
	Usage          *core.Usage         `json:"usage"`
	Error          *core.ProviderError `json:"error"`
	// Deviations are what the decoder read although the protocol does
	// not allow it (core.Response.Deviations).
	Deviations []string `json:"deviations,omitempty"`
}

func runDecode(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "decode")
	protocol := fs.String("protocol", "", "the wire protocol of the body (one of the built-in adapters)")
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	if *protocol == "" {
		return usageError(e, fs, "decode: --protocol is required")
	}
	adapter, err := providers.Lookup(*protocol)
	if err != nil {
		return usageError(e, fs, "decode: %v", err)
	}
	var (
		name = "standard input"
		in   = e.stdin
	)
	switch fs.NArg() {
	case 0:
	case 1:
		name = fs.Arg(0)
		f, err := os.Open(name)
		if err != nil {
			e.errorf("decode: %v", err)
			return exitUsage
		}
		defer f.Close()
		in = f
	default:
		return usageError(e, fs, "decode: at most one FILE")
	}
	counted := &countingReader{r: in}
	br := bufio.NewReaderSize(counted, sniffWindow)
	prefix, err := br.Peek(sniffWindow)
	if err != nil && err != io.EOF {
		e.errorf("decode: reading %s: %v", name, err)
		return exitUsage
	}

	if fs.NArg() == 1 && looksLikeRecording(name, prefix) {
		data, err := readBounded(br, cassettes.MaxFileSize)
		if err != nil {
			e.errorf("decode: reading %s: %v", name, err)
			return exitUsage
		}
		if format, err := cassettes.DetectFormat(name, data); err == nil && isRecording(format) {
			return decodeRecording(e, adapter, name, data)
		}
		out, err := decodeBody(adapter, data, isStream(data))
		return printDecoded(e, name, out, hintOther(err, *protocol, prefix))
	}
	if isStream(prefix) {
		out, err := decodeStream(adapter, br, counted)
		return printDecoded(e, name, out, hintOther(err, *protocol, prefix))
	}
	body, err := readBounded(br, maxResponseBody)
	if err != nil {
		e.errorf("decode: reading %s: %v", name, err)
		return exitUsage
	}
	out, err := decodeBody(adapter, body, false)
	return printDecoded(e, name, out, hintOther(err, *protocol, prefix))
}

// hintOther adds to a decode error the protocol whose shape the body's
// first JSON payload has, when that is another protocol than the one asked
// for: the commonest cause of a body that does not decode.
func hintOther(err error, asked string, prefix []byte) error {
	if err == nil {
		return nil
	}
	first := firstPayload(prefix)
	if first == nil {
		return err
	}
	if guess := protocol.GuessBody(first); guess != "" && guess != asked {
		return fmt.Errorf("%w\nhint: the body looks like %s's; try --protocol %s", err, guess, guess)
	}
	return err
}

// firstPayload is the first JSON object of a body or stream: the body
// itself, the first element of a JSON array, the first SSE data line or
// the first NDJSON line.
func firstPayload(prefix []byte) []byte {
	trimmed := bytes.TrimLeft(prefix, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		trimmed = bytes.TrimLeft(trimmed[1:], " \t\r\n")
	}
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var raw json.RawMessage
		if json.NewDecoder(bytes.NewReader(trimmed)).Decode(&raw) == nil {
			return raw
		}
		return nil
	}
	for _, line := range bytes.Split(trimmed, []byte("\n")) {
		if data, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:")); ok {
			data = bytes.TrimSpace(data)
			if len(data) > 0 && data[0] == '{' && json.Valid(data) {
				return data
			}
		}
	}
	return nil
}

// printDecoded prints what decoding one body produced and returns the exit
// status: nothing is printed for a body that failed and yielded nothing.
func printDecoded(e *env, name string, out *decodeOutput, err error) int {
	if out != nil {
		if werr := out.write(e.stdout); werr != nil {
			e.errorf("decode: %v", werr)
			return exitFail
		}
	}
	if err != nil {
		e.errorf("decode: %s: %v", name, err)
		return exitFail
	}
	return exitOK
}

// errBodyTooLarge reports a body above the bound decode reads whole.
var errBodyTooLarge = errors.New("body too large")

// readBounded reads r to its end, refusing more than limit bytes without
// reading past them. It reads in pieces and joins them once at the end, so
// a refused body costs no more than limit bytes.
func readBounded(r io.Reader, limit int64) ([]byte, error) {
	const piece = 1 << 20
	var (
		pieces [][]byte
		total  int64
	)
	for {
		p := make([]byte, piece)
		n, err := io.ReadFull(r, p)
		total += int64(n)
		if total > limit {
			return nil, fmt.Errorf("%w: more than %d bytes", errBodyTooLarge, limit)
		}
		pieces = append(pieces, p[:n])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return bytes.Join(pieces, nil), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// looksLikeRecording reports whether the file called name, which begins
// with prefix, is a recording rather than one body.
// A YAML file is read whole to be told apart, so its name decides.
func looksLikeRecording(name string, prefix []byte) bool {
	lower := strings.ToLower(name)
	if strings.HasSuffix(lower, ".yaml") || strings.HasSuffix(lower, ".yml") {
		return true
	}
	format, err := cassettes.DetectFormat(name, prefix)
	return err == nil && isRecording(format)
}

// isRecording reports whether format holds recorded exchanges rather than
// one body as received.
func isRecording(format cassettes.Format) bool {
	switch format {
	case cassettes.FormatGoVCR, cassettes.FormatVCRPy, cassettes.FormatHTTPRR, cassettes.FormatChunks:
		return true
	}
	return false
}

// decodeRecording imports a recording (a cassette, an httprr trace or a
// fixture of chunk lines) and decodes the response body of every exchange
// with a model API in it, printing one JSON object per exchange with its
// position. Exchanges with other services (a search API called by a tool,
// say) are passed over.
func decodeRecording(e *env, adapter core.Adapter, name string, data []byte) int {
	res, err := cassettes.Import(name, data, cassettes.WithProtocol(adapter.Name()))
	if err != nil {
		e.errorf("decode: %v", err)
		return exitUsage
	}
	status := exitOK
	decoded := 0
	for i, in := range res.Cassette.Interactions {
		if cassettes.GuessProtocol(in.Request.URL) == "" {
			continue
		}
		decoded++
		body := []byte(in.Response.Body)
		stream := isStream(body)
		switch ct := strings.ToLower(in.Response.Headers.Get("Content-Type")); {
		case strings.HasPrefix(ct, "text/event-stream"), strings.Contains(ct, "eventstream"), strings.Contains(ct, "ndjson"):
			stream = true
		}
		out, err := decodeBody(adapter, body, stream)
		if out != nil {
			n := i
			out.Interaction = &n
			if werr := out.write(e.stdout); werr != nil {
				e.errorf("decode: %v", werr)
				return exitFail
			}
		}
		if err != nil {
			e.errorf("decode: %s: exchange %d: %v", name, i, err)
			status = exitFail
		}
	}
	if decoded == 0 {
		// An empty answer would read as "no calls".
		e.errorf("decode: %s: none of its %d exchanges is with a model API", name, len(res.Cassette.Interactions))
		return exitFail
	}
	return status
}

// decodeBody decodes one response body held whole: a recorded exchange or
// one JSON document. The output is nil when the body failed and yielded
// nothing; a stream that failed part way keeps what it decoded.
func decodeBody(adapter core.Adapter, body []byte, stream bool) (*decodeOutput, error) {
	if stream {
		return decodeStream(adapter, bytes.NewReader(body), &countingReader{n: int64(len(body))})
	}
	resp, err := adapter.DecodeResponse(body)
	return finishOutput(adapter, false, resp, err)
}

// decodeStream decodes a stream as it reads it from r, keeping only what
// Collect keeps. counted counts the bytes read, for the message about a
// blank body.
func decodeStream(adapter core.Adapter, r io.Reader, counted *countingReader) (*decodeOutput, error) {
	events := &countingStream{s: adapter.DecodeStream(r)}
	resp, err := core.Collect(events)
	switch {
	case errors.Is(err, core.ErrNotStream):
		// The decoder found no event of its protocol and names the
		// byte where the body stops being one: no answer.
		return nil, err
	case events.n == 0 && errors.Is(err, core.ErrTruncated):
		// A blank body, which every decoder ends as an empty stream:
		// no event at all is no answer either.
		return nil, fmt.Errorf("no %s events in %d bytes: %w", adapter.Name(), counted.n, core.ErrNotStream)
	}
	return finishOutput(adapter, true, resp, err)
}

// finishOutput turns a decoded response into decode's output. It returns
// no output when decoding failed and yielded nothing, and none when an
// argument nests deeper than core.MaxDepth, which decode does not print.
func finishOutput(adapter core.Adapter, stream bool, resp *core.Response, err error) (*decodeOutput, error) {
	if resp == nil {
		return nil, err
	}
	out := &decodeOutput{
		Protocol:       adapter.Name(),
		Stream:         stream,
		Text:           resp.Text(),
		Calls:          decodedCalls(resp.Calls()),
		Incomplete:     decodedCalls(resp.Incomplete),
		FinishReason:   resp.Finish,
		ProviderFinish: resp.ProviderFinish,
		Usage:          resp.Usage,
		Error:          resp.Error,
		Deviations:     resp.Deviations,
	}
	if err != nil && resp.Error != nil {
		// The provider reported the error in the stream: decoded.
		err = nil
	}
	if err != nil && out.empty() {
		return nil, err
	}
	for _, calls := range [][]decodedCall{out.Calls, out.Incomplete} {
		for _, c := range calls {
			if derr := core.CheckDepth(c.Arguments); derr != nil {
				return nil, fmt.Errorf("call %s (%s): arguments: %w", c.ID, c.Name, derr)
			}
		}
	}
	return out, err
}

// empty reports whether o holds nothing decoded: no text, call, finish,
// usage or provider error.
func (o *decodeOutput) empty() bool {
	return o.Text == "" && len(o.Calls) == 0 && len(o.Incomplete) == 0 && o.FinishReason == "" &&
		o.ProviderFinish == "" && o.Usage == nil && o.Error == nil
}

// countingStream counts the events it passes on.
type countingStream struct {
	s core.EventStream
	n int
}

func (c *countingStream) Next() (core.Event, error) {
	ev, err := c.s.Next()
	if err == nil {
		c.n++
	}
	return ev, err
}

// write prints o as indented JSON. The text, which may be as long as
// core.Limits.MaxTextBytes, is escaped in pieces straight to w, so that
// printing it costs no copy of it: the rest of the document is encoded with
// the text left empty and the text goes in its place.
func (o *decodeOutput) write(w io.Writer) error {
	text := o.Text
	o.Text = ""
	doc, err := json.MarshalIndent(o, "", "  ")
	o.Text = text
	if err != nil {
		return err
	}
	const field = "\n  \"text\": \"\""
	at := bytes.Index(doc, []byte(field))
	if at < 0 {
		return fmt.Errorf("decode output has no text field")
	}
	bw := bufio.NewWriter(w)
	bw.Write(doc[:at+len(field)-1])
	for len(text) > 0 {
		n := min(len(text), 32<<10)
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++
		}
		piece, _ := json.Marshal(text[:n]) // a string always marshals
		bw.Write(piece[1 : len(piece)-1])
		text = text[n:]
	}
	bw.Write(doc[at+len(field)-1:])
	bw.WriteByte('\n')
	return bw.Flush()
}

func decodedCalls(calls []core.Call) []decodedCall {
	out := make([]decodedCall, 0, len(calls))
	for _, c := range calls {
		args := c.Arguments
		if !json.Valid(args) {
			// An incomplete call keeps its text as a JSON string.
			args, _ = json.Marshal(string(args))
		}
		out = append(out, decodedCall{ID: c.ID, Name: c.Name, Arguments: args, Repaired: c.Repaired, Original: c.Original})
	}
	return out
}

// isStream reports whether a body beginning with prefix is a streamed
// response rather than one JSON document: SSE text, a JSON array (Gemini's
// streamed form), several JSON values one after another (NDJSON), or
// binary frames (AWS event-stream). A first JSON value that does not end
// within prefix is one document.
func isStream(prefix []byte) bool {
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(prefix, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return true
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	var first json.RawMessage
	if err := dec.Decode(&first); err != nil {
		return false // one malformed or long document: let the adapter name the fault
	}
	_, err := dec.Token()
	return err != io.EOF
}
