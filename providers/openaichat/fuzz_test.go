package openaichat

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/sse"
)

// corpusBodies returns the recorded response bodies, streaming or not.
func corpusBodies(f *testing.F, stream bool) [][]byte {
	var out [][]byte
	for _, path := range corpusFiles(f, corpusDir) {
		exs, err := loadExchanges(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, ex := range exs {
			if ex.Stream == stream {
				out = append(out, ex.Response)
			}
		}
	}
	return out
}

// FuzzDecodeStream: arbitrary bytes never panic the stream decoder, which
// stays within its event size limit (failing by name past it), and reading
// one byte at a time gives the same events and error as reading whole.
func FuzzDecodeStream(f *testing.F) {
	for _, b := range corpusBodies(f, true) {
		f.Add(b)
	}
	for _, s := range []string{
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1e30}]}}]}\n\n",
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":{\"a\":1}}}]}}]}\n\n",
		"data: {\"choices\":[{\"delta\":{\"content\":[{\"type\":\"text\"}]}}]}\n\n",
		"data: {\"error\":5}\n\ndata: {\"choices\":null}\n\n",
		"data: {\"choices\":[", "\xEF\xBB\xBFdata: [DONE]\r\n\r\n", "data: {}\r",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		const limit = 1 << 12
		whole, errWhole := drain(New(MaxEventSize(limit)).DecodeStream(bytes.NewReader(body)))
		split, errSplit := drain(New(MaxEventSize(limit)).DecodeStream(smallReads(body)))
		if diff := cmp.Diff(whole, split); diff != "" {
			t.Fatalf("one-byte reads change the events (-whole +split):\n%s", diff)
		}
		if (errWhole == nil) != (errSplit == nil) || (errWhole != nil && errWhole.Error() != errSplit.Error()) {
			t.Fatalf("errors differ: %v / %v", errWhole, errSplit)
		}
		if errWhole != nil {
			var ce *Error
			if !errors.As(errWhole, &ce) {
				t.Fatalf("error %v is not an *Error", errWhole)
			}
			if ce.Offset < 0 || ce.Offset > int64(len(body)) {
				t.Fatalf("error %v has offset %d outside the body of %d bytes", errWhole, ce.Offset, len(body))
			}
			if len(body) < limit && errors.Is(errWhole, sse.ErrEventTooLarge) {
				t.Fatalf("event too large in a body of %d bytes", len(body))
			}
		}
	})
}

// FuzzDecodeResponse: arbitrary bytes never panic the response decoder; a
// body that decodes re-encodes, and decodes again to the same calls, text
// and finish.
func FuzzDecodeResponse(f *testing.F) {
	for _, b := range corpusBodies(f, false) {
		f.Add(b)
	}
	for _, s := range []string{
		`{"choices":[{"message":{"tool_calls":[{"function":{"arguments":null}}]}}]}`,
		`{"choices":[{"message":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":{"x":[1]}}}]}}]}`,
		`{"choices":[{"message":{"tool_calls":[{"function":{"arguments":"{\"a\":"}}]},"finish_reason":"length"}]}`,
		`{"object":"error","message":"x","code":1}`, `{"error":null,"choices":[]}`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		a := New()
		resp, err := a.DecodeResponse(body)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || (ce.Offset < 0 && ce.Path == "") {
				t.Fatalf("error %v names no place", err)
			}
			return
		}
		out, err := a.EncodeResponse(resp)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		again, err := a.DecodeResponse(out)
		if err != nil {
			t.Fatalf("decode re-encoded %s: %v", out, err)
		}
		strip := func(cs []core.Call) []core.Call {
			for i := range cs {
				cs[i].Repaired, cs[i].Original = false, ""
			}
			return cs
		}
		if diff := cmp.Diff(strip(resp.Calls()), strip(again.Calls())); diff != "" {
			t.Fatalf("calls differ after re-encoding %s (-first +second):\n%s", out, diff)
		}
		if resp.Text() != again.Text() || resp.Finish != again.Finish {
			t.Fatalf("text/finish differ after re-encoding %s", out)
		}
	})
}

// smallReads reads body one byte at a time, or, for bodies over 4 KiB
// (where that would slow fuzzing to a crawl), half a buffer at a time.
func smallReads(body []byte) io.Reader {
	if len(body) > 4096 {
		return iotest.HalfReader(bytes.NewReader(body))
	}
	return iotest.OneByteReader(bytes.NewReader(body))
}
