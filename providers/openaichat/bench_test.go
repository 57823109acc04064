package openaichat

import (
	"bytes"
	"testing"
)

// BenchmarkDecodeStream decodes every recorded openai-chat stream.
func BenchmarkDecodeStream(b *testing.B) {
	var bodies [][]byte
	total := 0
	for _, rs := range corpusStreams(b) {
		bodies = append(bodies, rs.body)
		total += len(rs.body)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	a := New()
	for b.Loop() {
		for _, body := range bodies {
			if _, err := drain(a.DecodeStream(bytes.NewReader(body))); err != nil {
				b.Fatal(err)
			}
		}
	}
}
