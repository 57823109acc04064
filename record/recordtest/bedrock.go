// Package recordtest provides a loopback stand-in for the Bedrock runtime
// API that checks every request's SigV4 signature, for testing the
// recorder (package record) and the conform record command without AWS.
//
// The stand-in recomputes the signature of each request from what it
// received, with its own SigV4 code (VerifySigV4) rather than the AWS
// SDK's, and answers a mismatch with 403 and an InvalidSignatureException
// body, as AWS does. A request that checks gets a recorded body: the
// Converse JSON, or the ConverseStream event-stream frames written and
// flushed one at a time.
package recordtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/providers/bedrock"
)

// MaxRequestBody bounds the request body the stand-in reads.
const MaxRequestBody = 1 << 20

// BedrockConfig says what a Bedrock stand-in accepts and answers.
type BedrockConfig struct {
	// Credentials are what requests must be signed with.
	Credentials Credentials
	// Converse is the body of a /converse answer.
	Converse []byte
	// Frames are the event-stream frames of a /converse-stream answer,
	// written and flushed one at a time with Pause between them.
	Frames [][]byte
	Pause  time.Duration
	// Echo makes the stand-in send back every secret it was given or
	// received (access key id, secret, session token, Authorization with
	// its signature) in response headers and in the body, as a careless
	// gateway might, to test redaction. The echo in a stream is one more
	// frame of event type "echo".
	Echo bool
}

// Bedrock is a running stand-in; URL is its base URL.
type Bedrock struct {
	*httptest.Server
	cfg BedrockConfig

	mu   sync.Mutex
	seen []string
	sigs []string
}

// NewBedrock starts a stand-in, closed when the test ends.
func NewBedrock(t testing.TB, cfg BedrockConfig) *Bedrock {
	t.Helper()
	b := &Bedrock{cfg: cfg}
	b.Server = httptest.NewServer(http.HandlerFunc(b.serve))
	t.Cleanup(b.Close)
	return b
}

// Requests returns what the stand-in received, one
// "METHOD REQUEST-URI -> STATUS" line per request.
func (b *Bedrock) Requests() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.seen...)
}

// Signatures returns the signatures of the requests that checked.
func (b *Bedrock) Signatures() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.sigs...)
}

func (b *Bedrock) note(r *http.Request, status int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seen = append(b.seen, fmt.Sprintf("%s %s -> %d", r.Method, r.RequestURI, status))
}

// fail answers as AWS does: a JSON body with a message, the error type in
// X-Amzn-ErrorType.
func (b *Bedrock) fail(w http.ResponseWriter, r *http.Request, status int, errType, msg string) {
	b.note(r, status)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-ErrorType", errType)
	w.WriteHeader(status)
	m, _ := json.Marshal(map[string]string{"message": msg})
	w.Write(m)
}

func (b *Bedrock) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxRequestBody+1))
	if err != nil || len(body) > MaxRequestBody {
		b.fail(w, r, 400, "ValidationException", fmt.Sprintf("request body unreadable or over %d bytes", MaxRequestBody))
		return
	}
	if err := VerifySigV4(r, body, b.cfg.Credentials, bedrock.Protocol.SigV4Service, time.Now()); err != nil {
		b.fail(w, r, 403, "InvalidSignatureException", "The request signature we calculated does not match the signature you provided: "+err.Error())
		return
	}
	// Routed by the path as sent, as AWS does: a model id (an ARN, say)
	// may hold an escaped "/".
	route, ok := providers.MatchPath(r.URL.EscapedPath())
	if r.Method != http.MethodPost || !ok || len(route.Protocols) != 1 || route.Protocols[0] != bedrock.Protocol.Protocol || route.Model == "" {
		b.fail(w, r, 404, "UnknownOperationException", r.Method+" "+r.URL.Path+" is not Converse or ConverseStream")
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" || !json.Valid(body) {
		b.fail(w, r, 400, "ValidationException", "body is not JSON (Content-Type "+ct+")")
		return
	}
	_, sig, _ := strings.Cut(r.Header.Get("Authorization"), "Signature=")
	b.mu.Lock()
	b.sigs = append(b.sigs, sig)
	b.mu.Unlock()
	b.note(r, 200)

	echo := []string{b.cfg.Credentials.AccessKeyID, b.cfg.Credentials.SecretAccessKey, b.cfg.Credentials.SessionToken, r.Header.Get("Authorization"), sig}
	w.Header().Set("X-Amzn-Requestid", "00000000-0000-4000-8000-000000000000")
	if b.cfg.Echo {
		for i, v := range echo {
			w.Header().Set(fmt.Sprintf("X-Echo-%d", i), v)
		}
		w.Header().Set("X-Amz-Security-Token", b.cfg.Credentials.SessionToken)
	}
	echoJSON, _ := json.Marshal(echo)
	if !route.Stream {
		w.Header().Set("Content-Type", "application/json")
		out := b.cfg.Converse
		if b.cfg.Echo {
			// {"echo":[...], <the rest>}
			i := bytes.IndexByte(out, '{')
			out = append(append(append([]byte(nil), out[:i+1]...), `"echo":`+string(echoJSON)+`,`...), out[i+1:]...)
		}
		w.Write(out)
		return
	}
	w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
	frames := b.cfg.Frames
	if b.cfg.Echo {
		f, _ := Frame("echo", echoJSON)
		frames = append(append([][]byte(nil), frames...), f)
	}
	fl, _ := w.(http.Flusher)
	for i, f := range frames {
		if i > 0 && b.cfg.Pause > 0 {
			time.Sleep(b.cfg.Pause)
		}
		if _, err := w.Write(f); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
	}
}

// Frame encodes one ConverseStream event as an AWS event-stream frame with
// the headers Bedrock sends: :event-type, :content-type application/json
// and :message-type event.
func Frame(eventType string, payload []byte) ([]byte, error) {
	var buf bytes.Buffer
	err := eventstream.NewEncoder().Encode(&buf, eventstream.Message{
		Headers: eventstream.Headers{
			{Name: ":event-type", Value: eventstream.StringValue(eventType)},
			{Name: ":content-type", Value: eventstream.StringValue("application/json")},
			{Name: ":message-type", Value: eventstream.StringValue("event")},
		},
		Payload: payload,
	})
	if err != nil {
		return nil, fmt.Errorf("encode frame %s: %w", eventType, err)
	}
	return buf.Bytes(), nil
}

// ChunkFrames turns a chunk fixture of decoded ConverseStream events (one
// {"<eventType>": {...}} object a line, as in the corpus's .chunks.txt
// files) back into event-stream frames. A line that is not an object with
// exactly one member is an error naming the line.
func ChunkFrames(chunks []byte) ([][]byte, error) {
	var frames [][]byte
	sc := bufio.NewScanner(bytes.NewReader(chunks))
	sc.Buffer(make([]byte, 64<<10), MaxRequestBody)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var ev map[string]json.RawMessage
		if err := json.Unmarshal(line, &ev); err != nil || len(ev) != 1 {
			return nil, fmt.Errorf("chunk frames: line %d: want one {\"<eventType>\": {...}} object", n)
		}
		for typ, payload := range ev {
			f, err := Frame(typ, payload)
			if err != nil {
				return nil, fmt.Errorf("chunk frames: line %d: %w", n, err)
			}
			frames = append(frames, f)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("chunk frames: %w", err)
	}
	return frames, nil
}
