package openairesponses

import "github.com/toolconform/conform/core"

// DefaultMaxEventSize is the default bound on one stream event's data.
const DefaultMaxEventSize = 4 << 20

// DefaultMaxItems is the default bound on output items in one streamed
// response.
const DefaultMaxItems = 4096

// Adapter is the OpenAI Responses protocol (/v1/responses). Use New.
type Adapter struct {
	maxEvent int
	maxItems int
}

// Option configures an Adapter.
type Option func(*Adapter)

// WithMaxEventSize bounds the size in bytes of one stream event; a larger
// event ends the stream with an error wrapping ErrTooLarge.
func WithMaxEventSize(n int) Option { return func(a *Adapter) { a.maxEvent = n } }

// WithMaxItems bounds the number of function_call items in one streamed
// response; more end the stream with an error wrapping ErrTooLarge.
func WithMaxItems(n int) Option { return func(a *Adapter) { a.maxItems = n } }

// New returns an OpenAI Responses adapter.
func New(opts ...Option) *Adapter {
	a := &Adapter{maxEvent: DefaultMaxEventSize, maxItems: DefaultMaxItems}
	for _, o := range opts {
		o(a)
	}
	return a
}

// Name returns "openai-responses".
func (a *Adapter) Name() string { return "openai-responses" }

var _ core.Adapter = (*Adapter)(nil)
