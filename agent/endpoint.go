package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
)

// DefaultMaxBodyBytes bounds a provider's response body.
const DefaultMaxBodyBytes = 8 << 20

// ErrBodyTooLarge reports a response body over the endpoint's limit.
var ErrBodyTooLarge = errors.New("response body too large")

// ErrUnsupported reports a request the adapter's protocol cannot express,
// such as a response format over Bedrock Converse.
var ErrUnsupported = errors.New("unsupported by the protocol")

// ErrUnknownProtocol reports an adapter whose request path is unknown.
var ErrUnknownProtocol = errors.New("unknown protocol")

// Endpoint is where a provider listens: a base URL ("http://127.0.0.1:8080"
// or "https://api.openai.com"), the client that reaches it, and headers to
// send with every request (API keys).
type Endpoint struct {
	BaseURL string
	Client  *http.Client
	Header  http.Header
	// MaxBodyBytes bounds a response body; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
}

// HTTPError is a provider reply whose status is not 2xx.
type HTTPError struct {
	URL    string
	Status int
	// Body is the start of the reply body, for the message.
	Body string
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("post %s: status %d: %s", e.URL, e.Status, e.Body)
}

// Path returns the request path (and query) of a protocol for a model,
// streaming or not, from the shared table providers.HTTP. Gemini and
// Bedrock carry the model and the streaming choice in the path; the others
// in the body.
func Path(protocol, model string, stream bool) (string, error) {
	e, err := providers.HTTP(protocol)
	if err != nil {
		return "", fmt.Errorf("request path: %w: %w", ErrUnknownProtocol, err)
	}
	return e.URL("", url.PathEscape(strings.TrimPrefix(model, "models/")), stream), nil
}

// send encodes req with the adapter, posts it and decodes the reply:
// streamed replies through core.Collect. The context bounds the whole
// exchange, the body read included.
func send(ctx context.Context, a core.Adapter, ep Endpoint, req *core.Request) (*core.Response, error) {
	body, err := a.EncodeRequest(req)
	if err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	if req.ResponseFormat != nil {
		// An adapter whose protocol has no place for a response format
		// drops it; the request would then ask for nothing.
		back, err := a.DecodeRequest(body)
		if err != nil {
			return nil, fmt.Errorf("send: check encoded request: %w", err)
		}
		if back.ResponseFormat == nil {
			return nil, fmt.Errorf("send: %w: the %s request has no place for a response format", ErrUnsupported, a.Name())
		}
	}
	p, err := Path(a.Name(), req.Model, req.Stream)
	if err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	u := strings.TrimSuffix(ep.BaseURL, "/") + p
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	for k, vs := range ep.Header {
		for _, v := range vs {
			hr.Header.Add(k, v)
		}
	}
	hr.Header.Set("Content-Type", "application/json")
	if e, err := providers.HTTP(a.Name()); err == nil {
		for k, v := range e.ExtraHeaders {
			if hr.Header.Get(k) == "" {
				hr.Header.Set(k, v)
			}
		}
	}
	client := ep.Client
	if client == nil {
		client = http.DefaultClient
	}
	res, err := client.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	defer res.Body.Close()
	limit := ep.MaxBodyBytes
	if limit <= 0 {
		limit = DefaultMaxBodyBytes
	}
	lr := &limitedReader{r: res.Body, left: limit}
	if res.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		return nil, fmt.Errorf("send: %w", &HTTPError{URL: u, Status: res.StatusCode, Body: strings.TrimSpace(string(b))})
	}
	if req.Stream {
		resp, err := core.Collect(a.DecodeStream(lr))
		if err != nil {
			if lr.over {
				return resp, fmt.Errorf("send: stream: %w: limit %d", ErrBodyTooLarge, limit)
			}
			if cerr := ctx.Err(); cerr != nil {
				return resp, fmt.Errorf("send: stream: %w", cerr)
			}
			return resp, fmt.Errorf("send: stream: %w", err)
		}
		return resp, nil
	}
	b, err := io.ReadAll(lr)
	if lr.over {
		return nil, fmt.Errorf("send: %w: limit %d", ErrBodyTooLarge, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("send: read body: %w", err)
	}
	resp, err := a.DecodeResponse(b)
	if err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	return resp, nil
}

// limitedReader fails with ErrBodyTooLarge past its limit, where
// io.LimitReader would end the body quietly and let a cut body pass.
type limitedReader struct {
	r    io.Reader
	left int64
	over bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte
		n, err := l.r.Read(one[:])
		if n > 0 {
			l.over = true
			return 0, ErrBodyTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}
