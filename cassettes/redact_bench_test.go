package cassettes

import (
	"io/fs"
	"testing"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// BenchmarkRedactInteraction redacts every interaction of the imported
// corpus, in copies, and reports the bytes of bodies read a second.
//
//	go test ./cassettes -run '^$' -bench RedactInteraction -count 6
func BenchmarkRedactInteraction(b *testing.B) {
	var all []cassette.Interaction
	size := 0
	err := fs.WalkDir(Corpus(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		c, err := Load(p)
		if err != nil {
			return err
		}
		for _, i := range c.Interactions {
			all = append(all, *i)
			size += len(i.Request.Body) + len(i.Response.Body)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, i := range all {
			cp := i
			RedactInteraction(&cp)
		}
	}
}
