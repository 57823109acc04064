package openairesponses

import (
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/idmap"
)

// DefaultMaxEventSize is the default bound on one stream event's data.
const DefaultMaxEventSize = 4 << 20

// DefaultMaxItems is the default bound on output items in one streamed
// response.
const DefaultMaxItems = 4096

// MaxCallIDLen is the longest call_id the Responses API accepts: a longer
// one is a 400 string_above_max_length (D04; the ChatGPT Codex backend
// itself returns 69-character call ids).
const MaxCallIDLen = 64

// IDMap translates call ids between the canonical conversation and the
// wire (see Adapter.IDMap).
type IDMap = idmap.Map

// Adapter is the OpenAI Responses protocol (/v1/responses). Use New.
type Adapter struct {
	// IDMap holds the ids mapped on encoding: call ids over MaxCallIDLen
	// characters are sent as "call_" plus 24 base-62 characters derived
	// from the id, on the function_call and its function_call_output
	// alike, and mapped back on decoding. It is nil with KeepLongIDs.
	IDMap    *IDMap
	maxEvent int
	maxItems int
}

// Option configures an Adapter.
type Option func(*Adapter)

// WithMaxEventSize bounds the size in bytes of one stream event; a larger
// event ends the stream with an error wrapping core.ErrTooLarge.
func WithMaxEventSize(n int) Option { return func(a *Adapter) { a.maxEvent = n } }

// WithMaxItems bounds the number of function_call items in one streamed
// response; more end the stream with an error wrapping core.ErrTooLarge.
func WithMaxItems(n int) Option { return func(a *Adapter) { a.maxItems = n } }

// KeepLongIDs turns off the mapping of over-long call ids: they are sent as
// they are, and the API will refuse them.
func KeepLongIDs() Option { return func(a *Adapter) { a.IDMap = nil } }

// New returns an OpenAI Responses adapter.
func New(opts ...Option) *Adapter {
	a := &Adapter{maxEvent: DefaultMaxEventSize, maxItems: DefaultMaxItems}
	a.IDMap = idmap.New(func(id string) bool { return len(id) <= MaxCallIDLen }, func(id string, attempt int) string { return "call_" + idmap.Hash(id, attempt, 24) }, 0)
	for _, o := range opts {
		o(a)
	}
	return a
}

// Name returns "openai-responses".
func (a *Adapter) Name() string { return "openai-responses" }

var _ core.Adapter = (*Adapter)(nil)
