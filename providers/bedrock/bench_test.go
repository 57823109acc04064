package bedrock

import (
	"bytes"
	"testing"
)

// BenchmarkDecodeStream decodes the largest recorded Bedrock stream; run with
// -benchmem to see allocations per stream.
func BenchmarkDecodeStream(b *testing.B) {
	var body []byte
	for _, path := range corpusFiles(b) {
		for _, ex := range loadExchanges(b, path) {
			if ex.Stream && len(ex.Response) > len(body) {
				body = ex.Response
			}
		}
	}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := drain(New().DecodeStream(bytes.NewReader(body))); err != nil {
			b.Fatal(err)
		}
	}
}
