package adaptertest

import (
	"bytes"
	"fmt"
	"io"
	"sync"
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
// A stream that
// reuses the storage of an event before Collect has taken it, such as that
// of an earlier event of the same input chunk, fails on bodies with
// several call events in one input chunk. Each Response read whole is
// checked again after a second Collect of its drained stream and after
// every later body was collected: a stream whose Response memory (see
// core.ResponseMemory) is given twice or reused fails then.
func CheckCollectReused(t *testing.T, bodies [][]byte, decode func(io.Reader) core.EventStream) {
	t.Helper()
	if s := decode(bytes.NewReader(nil)); s != nil {
		if _, ok := s.(textReuser); !ok {
			t.Fatalf("the stream decode returns (%T) has no ReuseEventText method", s)
		}
	}
	c := keptCollections(t, bodies, decode)
	whole := make([]*core.Response, len(bodies))
	errs := make([]error, len(bodies))
	for i, body := range bodies {
		s := decode(bytes.NewReader(body))
		whole[i], errs[i] = core.Collect(s)
		c.check(i, "read whole", whole[i], errs[i])
		core.Collect(s)
		c.check(i, "read whole, its stream collected again", whole[i], errs[i])
		resp, err := core.Collect(decode(SplitReader(body, 1, 7, 300, 64, 2, 33)))
		c.check(i, "read in pieces", resp, err)
	}
	for i := range bodies {
		c.check(i, "read whole, after every later body", whole[i], errs[i])
	}
}

// CheckCollectConcurrent collects every body with core.Collect from four
// goroutines at once, so that pooled decoders and Buffers pass from one
// goroutine to another, and fails unless each gives the Response and error
// of the body collected alone with the stream's optional methods hidden.
func CheckCollectConcurrent(t *testing.T, bodies [][]byte, decode func(io.Reader) core.EventStream) {
	t.Helper()
	c := keptCollections(t, bodies, decode)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, body := range bodies {
				resp, err := core.Collect(decode(bytes.NewReader(body)))
				c.check(i, "collected concurrently", resp, err)
			}
		}()
	}
	wg.Wait()
}

// kept holds what core.Collect gives for bodies with the streams'
// optional methods hidden, to compare other collections with.
type kept struct {
	t    *testing.T
	resp []*core.Response
	err  []string
}

func keptCollections(t *testing.T, bodies [][]byte, decode func(io.Reader) core.EventStream) *kept {
	c := &kept{t: t, resp: make([]*core.Response, len(bodies)), err: make([]string, len(bodies))}
	for i, body := range bodies {
		resp, err := core.Collect(plainStream{decode(bytes.NewReader(body))})
		c.resp[i], c.err[i] = resp, fmt.Sprint(err)
	}
	return c
}

// check fails unless resp and err are what body i gave kept.
func (c *kept) check(i int, how string, resp *core.Response, err error) {
	if diff := cmp.Diff(c.err[i], fmt.Sprint(err)); diff != "" {
		c.t.Errorf("body %d, %s: error (-kept +reused):\n%s", i, how, diff)
	}
	if diff := cmp.Diff(c.resp[i], resp); diff != "" {
		c.t.Errorf("body %d, %s: response (-kept +reused):\n%s", i, how, diff)
	}
}
