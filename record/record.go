package record

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
)

// ChunkTimesHeader is the response header of a recorded interaction that
// keeps when each piece of the body arrived: comma-separated
// "<end offset>@<milliseconds>" pairs, the byte offset in the body where a
// read ended and the time since the request was sent, in arrival order.
const ChunkTimesHeader = "X-Conform-Chunk-Times"

// DefaultMaxBody bounds a recorded response body.
const DefaultMaxBody = 64 << 20

// DefaultMaxChunks bounds the number of chunk times kept.
const DefaultMaxChunks = 100000

// Errors of Record, for callers that branch on them.
var (
	// ErrNoKey: the provider's key variable is not set.
	ErrNoKey = errors.New("no API key")
	// ErrUnsupported: the protocol cannot be recorded: its requests are
	// neither keyed nor SigV4-signed as Bedrock's are. No built-in
	// protocol is unsupported.
	ErrUnsupported = errors.New("protocol not supported by record")
	// ErrTooLarge: the response body passed Options.MaxBody.
	ErrTooLarge = errors.New("response too large")
	// ErrStatus: the API answered with a status other than 2xx; nothing
	// is recorded.
	ErrStatus = errors.New("API refused the request")
	// ErrNoRequest: the scenario holds no request and no tools to build
	// one from.
	ErrNoRequest = errors.New("scenario has no request")
)

// Options say what to record.
type Options struct {
	// Protocol is the adapter name.
	Protocol string
	// Request is the canonical request to send; its Stream field is set
	// from Stream.
	Request *core.Request
	// Stream asks for a streamed response.
	Stream bool
	// BaseURL replaces the API's base URL (a gateway, a test server).
	BaseURL string
	// Key is the API key, sent in the protocol's key header. Bedrock
	// takes none.
	Key string
	// AWS signs a Bedrock request (SigV4, service "bedrock"); it is
	// required for Bedrock and not used otherwise. With no BaseURL a
	// Bedrock request goes to BedrockBaseURL(AWS.Region).
	AWS *AWSCredentials
	// Header holds further request headers (anthropic-beta, say). They
	// are redacted like the rest.
	Header http.Header
	// Client sends the request; nil means a client with a five-minute
	// timeout.
	Client *http.Client
	// MaxBody and MaxChunks bound what is kept; 0 means the defaults.
	MaxBody   int64
	MaxChunks int
}

// Record sends one request to a live API and returns it with the response
// as a cassette of one interaction, with every secret removed: what
// cassettes.RedactInteraction removes and, anywhere in the interaction,
// every encoding of the key (see Redact). A Bedrock request is SigV4-signed with
// Options.AWS over exactly the bytes sent; the access key id, the secret,
// the session token and the signature are removed like a key. The arrival times of the response's
// pieces are kept in the ChunkTimesHeader header. A non-2xx answer is an
// error wrapping ErrStatus and nothing is returned to save.
func Record(ctx context.Context, opts Options) (*cassette.Cassette, error) {
	const op = "record"
	ep, err := providers.HTTP(opts.Protocol)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	signed := ep.SigV4Service != ""
	if ep.KeyHeader == "" && !signed {
		return nil, fmt.Errorf("%s %s: %w: it has no key header and is not SigV4-signed", op, opts.Protocol, ErrUnsupported)
	}
	// Every value that must not be kept, written or shown in an error.
	secrets := []string{opts.Key}
	if signed {
		if err := opts.AWS.check(op + " " + opts.Protocol); err != nil {
			return nil, err
		}
		secrets = append(opts.AWS.secrets(), opts.Key)
	}
	if opts.Request == nil {
		return nil, fmt.Errorf("%s %s: %w", op, opts.Protocol, ErrNoRequest)
	}
	a, err := providers.Lookup(opts.Protocol)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	req := *opts.Request
	req.Stream = opts.Stream
	if req.Model == "" {
		req.Model = ep.DefaultModel
	}
	body, err := a.EncodeRequest(&req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: encode request: %w", op, opts.Protocol, err)
	}
	base := opts.BaseURL
	if base == "" {
		base = ep.BaseURL
		if signed {
			base = BedrockBaseURL(opts.AWS.Region)
		}
	}
	// A query on the base URL (Azure's api-version, say) is kept and
	// merged with the protocol's own.
	bu, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("%s %s: base URL: %w", op, opts.Protocol, scrubErr(err, secrets...))
	}
	baseQuery := bu.Query()
	bu.RawQuery = ""
	model := url.PathEscape(req.Model)
	if signed {
		// As the AWS SDKs send it: the ":" of a model id escaped.
		model = escapeLabel(req.Model)
	}
	u := ep.URL(bu.String(), model, opts.Stream)
	if len(baseQuery) > 0 {
		full, err := url.Parse(u)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", op, opts.Protocol, scrubErr(err, secrets...))
		}
		q := full.Query()
		for k, vs := range baseQuery {
			for _, v := range vs {
				q.Add(k, v)
			}
		}
		full.RawQuery = q.Encode()
		u = full.String()
	}
	hr, err := http.NewRequestWithContext(ctx, ep.Method, u, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", op, opts.Protocol, scrubErr(err, secrets...))
	}
	for k, vs := range opts.Header {
		for _, v := range vs {
			hr.Header.Add(k, v)
		}
	}
	hr.Header.Set("Content-Type", ep.ContentType)
	for k, v := range ep.ExtraHeaders {
		if hr.Header.Get(k) == "" {
			hr.Header.Set(k, v)
		}
	}
	if opts.Key != "" && ep.KeyHeader != "" {
		hr.Header.Set(ep.KeyHeader, ep.KeyPrefix+opts.Key)
	}
	if signed {
		// Signed last, over every header set above and the body as sent.
		sig, err := signSigV4(ctx, hr, body, opts.AWS, ep.SigV4Service, time.Now())
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", op, opts.Protocol, scrubErr(err, secrets...))
		}
		secrets = append(secrets, sig)
	}
	// Keep what was sent before the transport adds anything.
	sentHeader := hr.Header.Clone()
	client := opts.Client
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Minute}
	}
	maxBody, maxChunks := opts.MaxBody, opts.MaxChunks
	if maxBody <= 0 {
		maxBody = DefaultMaxBody
	}
	if maxChunks <= 0 {
		maxChunks = DefaultMaxChunks
	}

	start := time.Now()
	resp, err := client.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", op, opts.Protocol, scrubErr(err, secrets...))
	}
	defer resp.Body.Close()
	var got bytes.Buffer
	var times []string
	buf := make([]byte, 32<<10)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			if int64(got.Len()+n) > maxBody {
				return nil, fmt.Errorf("%s %s: %w: more than %d bytes", op, opts.Protocol, ErrTooLarge, maxBody)
			}
			got.Write(buf[:n])
			if len(times) >= maxChunks {
				return nil, fmt.Errorf("%s %s: %w: more than %d chunks", op, opts.Protocol, ErrTooLarge, maxChunks)
			}
			ms := float64(time.Since(start).Microseconds()) / 1000
			times = append(times, strconv.Itoa(got.Len())+"@"+strconv.FormatFloat(ms, 'f', 3, 64))
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, fmt.Errorf("%s %s: read response at byte %d: %w", op, opts.Protocol, got.Len(), scrubErr(rerr, secrets...))
		}
	}
	elapsed := time.Since(start)
	if resp.StatusCode/100 != 2 {
		// Scrubbed before it is cut, so that no part of a key is left at
		// the cut; the status line may echo the key too.
		msg := scrub(got.String(), secrets...)
		if len(msg) > 300 {
			msg = strings.ToValidUTF8(msg[:300], "") + "…"
		}
		return nil, fmt.Errorf("%s %s: %w: %s: %s", op, opts.Protocol, ErrStatus, scrub(resp.Status, secrets...), msg)
	}

	respHeader := resp.Header.Clone()
	respHeader.Set(ChunkTimesHeader, strings.Join(times, ","))
	i := &cassette.Interaction{
		Request: cassette.Request{
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			ContentLength: int64(len(body)),
			Host:          hr.URL.Host,
			Body:          string(body),
			Headers:       sentHeader,
			URL:           hr.URL.String(),
			Method:        hr.Method,
		},
		Response: cassette.Response{
			Proto: resp.Proto, ProtoMajor: resp.ProtoMajor, ProtoMinor: resp.ProtoMinor,
			ContentLength: int64(got.Len()),
			Body:          got.String(),
			Headers:       respHeader,
			Status:        resp.Status,
			Code:          resp.StatusCode,
			Duration:      elapsed,
		},
	}
	Redact(i, secrets...)
	c := cassette.New("")
	c.Matcher = cassettes.Matcher
	c.AddInteraction(i)
	return c, nil
}

// Redact removes secrets from an interaction in place: what
// cassettes.RedactInteraction removes, then every encoding of each key
// (raw, URL-escaped, JSON-escaped with \u or \/, base64 in either
// alphabet, and mixtures of these) from the URL, request URI, host,
// status line, header names (in any case; such a header is dropped) and
// values, form names and values, and both bodies. In bodies a key becomes a
// mask of its own length ("REDACTED***") so that byte offsets, such as
// those of the chunk times, stay true. Keys shorter than four bytes are
// left to the header and query redaction, since they cannot be told apart
// from ordinary text.
func Redact(i *cassette.Interaction, keys ...string) {
	cassettes.RedactInteractionWith(i, keys...)
}

// scrub replaces every encoding of each key of four bytes or more by
// cassettes.Redacted.
func scrub(s string, keys ...string) string {
	return cassettes.ScrubSecrets(s, keys...)
}

// scrubbedError is an error whose text had the key removed; it still
// unwraps to the original.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

func scrubErr(err error, keys ...string) error {
	msg := scrub(err.Error(), keys...)
	if msg == err.Error() {
		return err
	}
	return &scrubbedError{msg: msg, err: err}
}

// KeyFromEnv returns the API key of a protocol from the first of its
// usual environment variables that is set (providers.Endpoint.KeyEnv), and
// that variable's name. Ollama needs no key; for it an unset variable is
// not an error. Bedrock takes no key: for it the error wraps ErrNotKeyed
// (its credentials come from AWSFromEnv).
func KeyFromEnv(protocol string, getenv func(string) string) (key, variable string, err error) {
	ep, err := providers.HTTP(protocol)
	if err != nil {
		return "", "", fmt.Errorf("record: %w", err)
	}
	if ep.KeyHeader == "" {
		return "", "", fmt.Errorf("record %s: %w: its requests are SigV4-signed with AWS credentials (AWSFromEnv)", protocol, ErrNotKeyed)
	}
	for _, v := range ep.KeyEnv {
		if key := strings.TrimSpace(getenv(v)); key != "" {
			return key, v, nil
		}
	}
	if ep.KeyOptional {
		return "", "", nil
	}
	return "", "", fmt.Errorf("record %s: %w: set %s", protocol, ErrNoKey, strings.Join(ep.KeyEnv, " or "))
}

// RequestFor returns the canonical request to record for a scenario, the
// first that exists of: its request.json; the request of the recording it
// was generated from (decoded with the protocol's adapter); a user message
// (the scenario's comment) offering one tool per distinct call name of
// want/calls.json, each with the permissive schema {"type":"object"}. A
// scenario with none of these is an error wrapping ErrNoRequest.
func RequestFor(sc *scenarios.Scenario, protocol string) (*core.Request, error) {
	if sc.Request != nil {
		r := *sc.Request
		return &r, nil
	}
	if sc.Cassette != "" {
		if r, err := cassetteRequest(sc.Cassette, protocol); err == nil {
			return r, nil
		}
	}
	tools := sc.Tools
	if len(tools) == 0 {
		seen := map[string]bool{}
		for _, c := range sc.Want.Calls {
			name, _ := c["name"].(string)
			if name == "" || seen[name] {
				continue
			}
			seen[name] = true
			tools = append(tools, core.ToolSpec{Name: name, Description: "Tool " + name + " of conform scenario " + sc.Name, InputSchema: []byte(`{"type":"object"}`)})
		}
	}
	if len(tools) == 0 {
		return nil, fmt.Errorf("record %s: %w: it has no request.json, no recorded request and no calls to offer as tools", sc.Name, ErrNoRequest)
	}
	text := sc.Comment
	if text == "" {
		text = "Call the tools."
	}
	return &core.Request{
		Messages:  []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart(text)}}},
		Tools:     tools,
		MaxTokens: 1024,
	}, nil
}

// cassetteRequest decodes the request of a "path#interaction" reference,
// unless the importer made the request up (response-only recordings).
func cassetteRequest(ref, protocol string) (*core.Request, error) {
	file, num, _ := strings.Cut(ref, "#")
	n, err := strconv.Atoi(num)
	if err != nil {
		return nil, err
	}
	c, err := cassettes.Load(file)
	if err != nil {
		return nil, err
	}
	if n < 0 || n >= len(c.Interactions) {
		return nil, fmt.Errorf("interaction %d out of range", n)
	}
	i := c.Interactions[n]
	if i.Request.Headers.Get(cassettes.ResponseOnlyHeader) != "" || strings.TrimSpace(i.Request.Body) == "" {
		return nil, errors.New("response-only recording")
	}
	a, err := providers.Lookup(protocol)
	if err != nil {
		return nil, err
	}
	return a.DecodeRequest([]byte(i.Request.Body))
}
