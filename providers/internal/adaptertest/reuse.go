package adaptertest

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

// textReuser is the optional method by which core.Collect lets a stream
// reuse the storage of the events it has copied.
type textReuser interface{ ReuseEventText() }

// CheckCollectReused collects every body with core.Collect three ways:
// with the stream's optional methods hidden, so that it keeps every
// event's storage as a caller other than Collect needs; with them (its
// ReuseEventText called), the body read whole; and with them, the body
// read in pieces of 1 to 300 bytes. It fails unless the three give the
// same Response and error, and unless decode's stream has ReuseEventText.
// A stream that reuses the storage of an event before Collect has taken
// it, such as that of an earlier event of the same input chunk, fails on
// bodies with several call events in one input chunk.
func CheckCollectReused(t *testing.T, bodies [][]byte, decode func(io.Reader) core.EventStream) {
	t.Helper()
	if s := decode(bytes.NewReader(nil)); s != nil {
		if _, ok := s.(textReuser); !ok {
			t.Fatalf("the stream decode returns (%T) has no ReuseEventText method", s)
		}
	}
	for i, body := range bodies {
		plain, plainErr := core.Collect(plainStream{decode(bytes.NewReader(body))})
		for _, r := range []struct {
			how string
			r   io.Reader
		}{{"read whole", bytes.NewReader(body)}, {"read in pieces", SplitReader(body, 1, 7, 300, 64, 2, 33)}} {
			resp, err := core.Collect(decode(r.r))
			if diff := cmp.Diff(fmt.Sprint(plainErr), fmt.Sprint(err)); diff != "" {
				t.Errorf("body %d, %s: error (-kept +reused):\n%s", i, r.how, diff)
			}
			if diff := cmp.Diff(plain, resp); diff != "" {
				t.Errorf("body %d, %s: response (-kept +reused):\n%s", i, r.how, diff)
			}
		}
	}
}
