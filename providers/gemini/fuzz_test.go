package gemini

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// knownBad are hand-made inputs that once stressed the decoders: cut
// arrays, partialArgs faults, wrong types, integer enums.
var knownBad = []string{
	`[`,
	`[{"candidates":[]},`,
	`[{"candidates":[]}]]`,
	`data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"w","willContinue":true}}]}}]}` + "\n\n" + `data: {"candidates":[{"content":{"parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.a[0].b","stringValue":"x","willContinue":true},{"jsonPath":"$.a[0]","numberValue":1}]}}]}}]}` + "\n\n",
	`data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"w","willContinue":true,"partialArgs":[{"jsonPath":"$['a'][1]","boolValue":true}]}}]}}]}` + "\n\n",
	`{"candidates":[{"finishReason":99999999999999999999}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":"x"}}]}}]}`,
	`{"error":{"code":"x","message":1}}`,
	"data: \xff\xfe\n\n",
	"\xef\xbb\xbfdata: {}\n\n",
}

func FuzzDecodeStream(f *testing.F) {
	bodies := corpusBodies(f)
	for _, b := range bodies {
		f.Add(b)
	}
	for _, s := range knownBad {
		f.Add([]byte(s))
	}
	a := New(WithMaxEventSize(1<<16), WithMaxArgsSize(1<<14))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := a.DecodeStream(bytes.NewReader(data))
		n := 0
		for {
			ev, err := s.Next()
			if err != nil {
				if _, again := s.Next(); again == nil {
					t.Fatalf("Next after error %v gave an event", err)
				}
				break
			}
			n++
			if n > len(data)+8 {
				t.Fatalf("%d events from %d bytes: the stream does not end", n, len(data))
			}
			if ev.Kind == core.EventCallEnd && (ev.Chunk == nil || ev.Chunk.Args == nil) {
				t.Fatalf("call_end without arguments: %+v", ev)
			}
		}
		adaptertest.CheckVouches(t, a.DecodeStream(bytes.NewReader(data)), len(data)+8)
		adaptertest.CheckCollectReused(t, [][]byte{data}, a.DecodeStream)
	})
}

func FuzzDecodeResponse(f *testing.F) {
	bodies := corpusBodies(f)
	for _, b := range bodies {
		if !isStream(b) {
			f.Add(b)
		}
	}
	for _, s := range knownBad {
		f.Add([]byte(s))
	}
	a := New()
	f.Fuzz(func(t *testing.T, data []byte) {
		resp, err := a.DecodeResponse(data)
		if err != nil {
			return
		}
		// What decodes must encode, and decode again to the same calls,
		// text and finish.
		body, err := a.EncodeResponse(resp)
		if err != nil {
			t.Fatalf("EncodeResponse of a decoded response: %v", err)
		}
		again, err := a.DecodeResponse(body)
		if err != nil {
			t.Fatalf("DecodeResponse of an encoded response: %v\n%s", err, body)
		}
		type view struct {
			Name, Args, Sig string
		}
		// Arguments are compared as JSON values: the encoder writes them
		// as encoding/json does, "<", ">" and "&" as \u escapes, which is
		// the same object.
		calls := func(r *core.Response) []view {
			var v []view
			for _, c := range r.Calls() {
				v = append(v, view{c.Name, string(canonicalJSON(c.Arguments)), c.Signature})
			}
			return v
		}
		if diff := cmp.Diff(calls(resp), calls(again)); diff != "" {
			t.Errorf("calls (-first +second):\n%s", diff)
		}
		if resp.Text() != again.Text() || resp.Finish != again.Finish {
			t.Errorf("text/finish changed: %q/%q -> %q/%q", resp.Text(), resp.Finish, again.Text(), again.Finish)
		}
	})
}
