package anthropic

import "github.com/toolconform/conform/core"

// DefaultMaxEventSize is the default bound on one stream event's data.
const DefaultMaxEventSize = 4 << 20

// DefaultMaxBlocks is the default bound on content blocks in one streamed
// message.
const DefaultMaxBlocks = 4096

// Adapter is the Anthropic Messages protocol (/v1/messages). The zero value
// is not ready for use; call New.
type Adapter struct {
	maxEvent  int
	maxBlocks int
}

// Option configures an Adapter.
type Option func(*Adapter)

// WithMaxEventSize bounds the size in bytes of one stream event; a larger
// event ends the stream with an error wrapping core.ErrTooLarge.
func WithMaxEventSize(n int) Option { return func(a *Adapter) { a.maxEvent = n } }

// WithMaxBlocks bounds the number of content blocks in one streamed message;
// more end the stream with an error wrapping core.ErrTooLarge.
func WithMaxBlocks(n int) Option { return func(a *Adapter) { a.maxBlocks = n } }

// New returns an Anthropic Messages adapter.
func New(opts ...Option) *Adapter {
	a := &Adapter{maxEvent: DefaultMaxEventSize, maxBlocks: DefaultMaxBlocks}
	for _, o := range opts {
		o(a)
	}
	return a
}

// Name returns "anthropic".
func (a *Adapter) Name() string { return "anthropic" }

var _ core.Adapter = (*Adapter)(nil)
