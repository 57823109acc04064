package bedrock

import (
	"io"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// BenchmarkDecodeStream decodes the largest recorded Bedrock stream; run with
// -benchmem to see allocations per stream.
func BenchmarkDecodeStream(b *testing.B) {
	adaptertest.BenchDecodeLargestStream(b, "bedrock", func(r io.Reader) core.EventStream { return New().DecodeStream(r) })
}
