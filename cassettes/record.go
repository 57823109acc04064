package cassettes

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// NewRecorder returns a go-vcr recorder that sends every request through
// to the real server and records the exchange to the cassette at path
// (with or without its .yaml suffix) when Stop is called. What it writes
// is redacted twice over (RedactHook, then Marshal) and written atomically
// by WriteFile; an existing cassette is never replaced unless force is
// set, and without force NewRecorder refuses at once rather than after the
// live calls. Further options are applied after conform's.
//
//	rec, err := cassettes.NewRecorder("cassettes/anthropic/new.yaml", false)
//	resp, err := rec.GetDefaultClient().Do(req)
//	err = rec.Stop() // writes the cassette
func NewRecorder(path string, force bool, opts ...recorder.Option) (*recorder.Recorder, error) {
	name := strings.TrimSuffix(path, ".yaml")
	if !force {
		if _, err := os.Lstat(name + ".yaml"); err == nil {
			return nil, fmt.Errorf("record cassette %s.yaml: %w (force to overwrite)", name, ErrExists)
		}
	}
	base := []recorder.Option{
		recorder.WithMode(recorder.ModeRecordOnly),
		recorder.WithMatcher(Matcher),
		recorder.WithFS(atomicFS{force: force}),
		recorder.WithMarshalFunc(marshalCassette),
		RedactHook(),
	}
	rec, err := recorder.New(name, append(base, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("record cassette %s.yaml: %w", name, err)
	}
	return rec, nil
}

// marshalCassette is Marshal for go-vcr, which adds the "---" line itself.
func marshalCassette(v any) ([]byte, error) {
	c, ok := v.(*cassette.Cassette)
	if !ok {
		return nil, fmt.Errorf("marshal cassette: got %T, want *cassette.Cassette", v)
	}
	data, err := Marshal(c)
	if err != nil {
		return nil, err
	}
	return bytes.TrimPrefix(data, []byte("---\n")), nil
}

// atomicFS is go-vcr's file system with WriteFile's atomic, no-overwrite
// writes.
type atomicFS struct{ force bool }

func (atomicFS) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

func (a atomicFS) WriteFile(name string, data []byte) error { return WriteFile(name, data, a.force) }

func (atomicFS) IsFileExists(name string) bool {
	_, err := os.Lstat(name)
	return err == nil
}
