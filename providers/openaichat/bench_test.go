package openaichat

import (
	"bytes"
	"testing"
)

// BenchmarkDecodeStream decodes every recorded openai-chat stream.
func BenchmarkDecodeStream(b *testing.B) {
	var bodies [][]byte
	total := 0
	for _, path := range corpusFiles(b, corpusDir) {
		exs, err := loadExchanges(path)
		if err != nil {
			b.Fatal(err)
		}
		for _, ex := range exs {
			if ex.Stream {
				bodies = append(bodies, ex.Response)
				total += len(ex.Response)
			}
		}
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
