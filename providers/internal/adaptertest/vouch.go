package adaptertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"unicode/utf8"

	"github.com/toolconform/conform/core"
)

// argsVoucher is the optional method core.Collect asks a stream about the
// arguments of its call chunks.
type argsVoucher interface{ VouchArgs(args string) bool }

// plainStream hides every method of a stream but Next, so that
// core.Collect uses none of its optional ones.
type plainStream struct{ s core.EventStream }

func (p plainStream) Next() (core.Event, error) { return p.s.Next() }

// CheckVouches drains s and fails if it vouches (VouchArgs) for arguments
// that are not one JSON value in well-formed UTF-8. It returns how many
// call chunks' arguments it vouched for, and the error that ended s, which
// is nil at io.EOF. It stops after limit events.
func CheckVouches(t testing.TB, s core.EventStream, limit int) (vouched int, err error) {
	t.Helper()
	v, _ := s.(argsVoucher)
	for n := 0; n < limit; n++ {
		ev, err := s.Next()
		if err == io.EOF {
			return vouched, nil
		}
		if err != nil {
			return vouched, err
		}
		if v == nil || ev.Chunk == nil || ev.Chunk.Args == nil || !v.VouchArgs(*ev.Chunk.Args) {
			continue
		}
		vouched++
		if args := *ev.Chunk.Args; !utf8.ValidString(args) || !json.Valid([]byte(args)) {
			t.Fatalf("event %d: the stream vouches for arguments that are not one JSON value in UTF-8: %.80q", n+1, args)
		}
		copied := string([]byte(*ev.Chunk.Args))
		if v.VouchArgs(copied) {
			t.Fatalf("event %d: the stream vouches for a copy of its arguments, not only for the string it checked", n+1)
		}
	}
	return vouched, fmt.Errorf("check vouches: more than %d events", limit)
}

// CheckCollectVouched is CheckCollectReused, and it checks every vouch
// with CheckVouches and returns their count over all bodies, which a
// caller whose bodies hold whole arguments expects above zero.
func CheckCollectVouched(t *testing.T, bodies [][]byte, decode func(io.Reader) core.EventStream) (vouched int) {
	t.Helper()
	CheckCollectReused(t, bodies, decode)
	for _, body := range bodies {
		n, _ := CheckVouches(t, decode(bytes.NewReader(body)), 1<<20)
		vouched += n
	}
	return vouched
}
