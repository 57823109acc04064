package scenarios

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/scenarios/fakeadapter"
)

// failing decodes every stream to the error it holds, after no event.
type failing struct {
	*fakeadapter.Adapter
	err  error
	resp *core.ProviderError
}

func (f failing) DecodeStream(io.Reader) core.EventStream { return &failingStream{f: f} }

type failingStream struct {
	f    failing
	sent bool
}

func (s *failingStream) Next() (core.Event, error) {
	if s.f.resp != nil && !s.sent {
		s.sent = true
		return core.Event{Kind: core.EventError, Error: s.f.resp}, nil
	}
	if s.f.err != nil {
		return core.Event{}, s.f.err
	}
	return core.Event{}, io.EOF
}

// TestDecodeErrorGradedByKindAndPlace grades a body that must fail to
// decode (want/decode-error.json) by the error's kind and the byte offset
// it names, whatever the wording: the event's start, the end of its data
// and the byte after it all pass; another place, a provider error, a
// stream cut short and no error fail.
func TestDecodeErrorGradedByKindAndPlace(t *testing.T) {
	sc := mustParse(t, "fake/streaming/I03", "A malformed event.\n\nseverity: MUST\nguards: I03\nprotocol: fake\nkind: stream\n-- response.ndjson --\n"+fakeStream+
		"-- want/decode-error.json --\n{\"from\": 505, \"to\": 692}\n")
	tests := []struct {
		name string
		a    failing
		want []string
	}{
		{"conform's wording", failing{err: fmt.Errorf("openai-chat: decode stream: at byte 691: %w: unexpected end of JSON input (event at byte 505)", core.ErrMalformed)}, nil},
		{"the event's start, another wording", failing{err: errors.New("event at byte 505: unexpected end of JSON input")}, nil},
		{"the byte after the data", failing{err: errors.New("decode stream: at byte 692: invalid JSON in an event")}, nil},
		{"another place", failing{err: errors.New("decode stream: at byte 12: invalid JSON")}, []string{"error"}},
		{"no place", failing{err: errors.New("invalid JSON")}, []string{"error"}},
		{"a stream cut short", failing{err: fmt.Errorf("at byte 600: %w", core.ErrTruncated)}, []string{"error"}},
		{"a provider error", failing{resp: &core.ProviderError{Message: "bad event at byte 505"}}, []string{"error"}},
		{"no error", failing{}, []string{"error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.a
			a.Adapter = fakeadapter.New("fake")
			results, err := Check([]core.Adapter{a}, []*Scenario{sc}, Options{Splits: -1})
			if err != nil {
				t.Fatal(err)
			}
			var rules []string
			for _, p := range results[0].Problems {
				if p.Rule == "error" {
					rules = append(rules, p.Rule)
				}
			}
			if diff := cmp.Diff(tt.want, rules); diff != "" {
				t.Errorf("error problems (-want +got):\n%s\nall: %v", diff, results[0].Problems)
			}
		})
	}
}

// TestDecodeErrorSection refuses a range that is none and a want that
// also gives want/error.txt.
func TestDecodeErrorSection(t *testing.T) {
	head := "A malformed event.\n\nseverity: MUST\nguards: I03\nprotocol: fake\nkind: stream\n-- response.ndjson --\n{}\n"
	for _, body := range []string{
		"-- want/decode-error.json --\n{\"from\": 9, \"to\": 3}\n",
		"-- want/decode-error.json --\n{\"from\": 1, \"to\": 3, \"near\": 2}\n",
		"-- want/decode-error.json --\n{\"from\": 1, \"to\": 3}\n-- want/error.txt --\nbyte\n",
	} {
		if _, err := Parse("fake/streaming/x", "x.txtar", []byte(head+body), nil); err == nil {
			t.Errorf("%q: parsed without an error", body)
		}
	}
}
