package mistral

import (
	"io"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/idmap"
	"github.com/toolconform/conform/providers/internal/oaichat"
)

// ErrTooManyIDs reports an id map that reached its size limit; the
// conditions every protocol shares are core's sentinels (core.ErrMalformed
// and the others), which codec errors wrap in a *DecodeError.
var ErrTooManyIDs = oaichat.ErrTooManyIDs

// DecodeError is a codec error naming its byte offset and JSON path.
type DecodeError = oaichat.DecodeError

// IDMap translates call ids between the canonical conversation and the
// wire (see Adapter.IDMap).
type IDMap = idmap.Map

// Adapter is the mistral protocol: Mistral's /v1/chat/completions.
type Adapter struct {
	// IDMap holds the ids mapped on encoding (D05). Mistral accepts only
	// call ids of exactly 9 characters [A-Za-z0-9]; any other id met while
	// encoding a request, response or stream is sent as 9 base-62
	// characters derived from it by SHA-256 (a collision with an earlier
	// replacement tries the next derivation), and the pair is kept here so
	// that the replacement, when it comes back in a response, a stream or a
	// follow-up request, decodes to the original id. Valid ids are never
	// changed.
	IDMap *IDMap
	c     *oaichat.Codec
}

// Option configures an Adapter.
type Option func(*oaichat.Config)

// MaxEventSize bounds one SSE event of a stream in bytes.
func MaxEventSize(n int) Option { return func(c *oaichat.Config) { c.MaxEventSize = n } }

// New returns a mistral Adapter.
func New(opts ...Option) *Adapter {
	cfg := oaichat.Config{
		Name:              "mistral",
		RequiredChoice:    "any",
		MaxTokensField:    "max_tokens",
		ReasoningField:    "reasoning_content",
		ThinkingInContent: true,
		ToolResultName:    true,
		IDs:               idmap.New(ValidID, mintID, 0),
		NameRules:         nameRules,
		FullDeltas:        true,
	}
	for _, o := range opts {
		o(&cfg)
	}
	return &Adapter{IDMap: cfg.IDs, c: oaichat.New(cfg)}
}

// ValidID reports whether id is a call id Mistral accepts: exactly 9
// characters, each an ASCII letter or digit.
func ValidID(id string) bool {
	if len(id) != 9 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

func mintID(id string, attempt int) string { return idmap.Hash(id, attempt, 9) }

// Name returns "mistral".
func (a *Adapter) Name() string { return a.c.Name() }

// EncodeRequest writes req as a Mistral chat request body.
func (a *Adapter) EncodeRequest(req *core.Request) ([]byte, error) { return a.c.EncodeRequest(req) }

// DecodeRequest reads a Mistral chat request body.
func (a *Adapter) DecodeRequest(body []byte) (*core.Request, error) { return a.c.DecodeRequest(body) }

// EncodeResponse writes resp as a Mistral chat response body.
func (a *Adapter) EncodeResponse(resp *core.Response) ([]byte, error) {
	return a.c.EncodeResponse(resp)
}

// DecodeResponse reads a Mistral chat response body.
func (a *Adapter) DecodeResponse(body []byte) (*core.Response, error) {
	return a.c.DecodeResponse(body)
}

// DecodeStream reads a Mistral SSE stream one event at a time.
func (a *Adapter) DecodeStream(r io.Reader) core.EventStream {
	return a.c.DecodeGuardedStream(r)
}

// EncodeStream writes events as a Mistral SSE stream.
func (a *Adapter) EncodeStream(w io.Writer, events []core.Event) error {
	return a.c.EncodeStream(w, events)
}

// EncodeLiveStream writes the events of s as a Mistral SSE stream, each
// as it arrives.
func (a *Adapter) EncodeLiveStream(w io.Writer, s core.EventStream) error {
	return a.c.EncodeLiveStream(w, s)
}

// CheckHistory reports every history problem, one per line: calls not
// answered right after their assistant message (G01, G03), results without a
// call id (G06), results that answer no call before them (G02) and arguments
// kept as non-JSON text (G09), each a *core.HistoryError. EncodeRequest
// refuses all but G09. Id formats are not checked, since the adapter maps
// them (D05).
func CheckHistory(msgs []core.Message) error {
	return oaichat.CheckHistory(msgs, oaichat.HistoryChecks{Protocol: "mistral", Arguments: true})
}

var _ core.Adapter = (*Adapter)(nil)
