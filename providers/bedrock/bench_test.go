package bedrock

import (
	"bytes"
	"testing"

	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// BenchmarkDecodeStream decodes the largest recorded Bedrock stream; run with
// -benchmem to see allocations per stream.
func BenchmarkDecodeStream(b *testing.B) {
	body := adaptertest.LargestStream(b, "bedrock")
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := adaptertest.Drain(New().DecodeStream(bytes.NewReader(body))); err != nil {
			b.Fatal(err)
		}
	}
}
