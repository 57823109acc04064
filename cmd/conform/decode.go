package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
)

// maxBodySize bounds the body decode reads, so that a wrong file given by
// mistake does not exhaust memory.
const maxBodySize = 256 << 20

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
	body, err := io.ReadAll(io.LimitReader(in, maxBodySize+1))
	if err != nil {
		e.errorf("decode: reading %s: %v", name, err)
		return exitUsage
	}
	if len(body) > maxBodySize {
		e.errorf("decode: %s: body larger than %d bytes", name, maxBodySize)
		return exitUsage
	}

	if fs.NArg() == 1 {
		if format, err := cassettes.DetectFormat(name, body); err == nil && isRecording(format) {
			return decodeRecording(e, adapter, name, body)
		}
	}
	out, err := decodeBody(adapter, body, isStream(body))
	if out != nil {
		if werr := writeJSON(e.stdout, out); werr != nil {
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
			if werr := writeJSON(e.stdout, out); werr != nil {
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

// decodeBody decodes one response body. The output is nil only when nothing
// could be decoded; a stream that failed part way keeps what it decoded.
func decodeBody(adapter core.Adapter, body []byte, stream bool) (*decodeOutput, error) {
	out := &decodeOutput{Protocol: adapter.Name(), Stream: stream}
	var (
		resp *core.Response
		err  error
	)
	if stream {
		counted := &countingStream{s: adapter.DecodeStream(bytes.NewReader(body))}
		resp, err = core.Collect(counted)
		switch {
		case errors.Is(err, core.ErrNotStream):
			// The decoder found no event of its protocol and names
			// the byte where the body stops being one: no answer.
			return nil, err
		case counted.n == 0 && errors.Is(err, core.ErrNoFinish):
			// A blank body, which every decoder ends as an empty
			// stream: no event at all is no answer either.
			return nil, fmt.Errorf("no %s events in %d bytes: %w", adapter.Name(), len(body), core.ErrNotStream)
		}
	} else {
		resp, err = adapter.DecodeResponse(body)
	}
	if resp == nil {
		return nil, err
	}
	out.Text = resp.Text()
	out.Calls = decodedCalls(resp.Calls())
	out.Incomplete = decodedCalls(resp.Incomplete)
	out.FinishReason = resp.Finish
	out.ProviderFinish = resp.ProviderFinish
	out.Usage = resp.Usage
	out.Error = resp.Error
	if err != nil && resp.Error != nil {
		// The provider reported the error in the stream: decoded.
		err = nil
	}
	return out, err
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

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
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

// isStream reports whether body is a streamed response rather than one JSON
// document: SSE text, a JSON array (Gemini's streamed form), several JSON
// values one after another (NDJSON), or binary frames (AWS event-stream).
func isStream(body []byte) bool {
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")))
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return true
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	var first json.RawMessage
	if err := dec.Decode(&first); err != nil {
		return false // one malformed document: let the adapter name the fault
	}
	_, err := dec.Token()
	return err != io.EOF
}
