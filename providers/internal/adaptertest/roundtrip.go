package adaptertest

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"pgregory.net/rapid"
)

// CheckStreamRoundTrip states that a's stream decoder gives back the events
// its encoder wrote, for event sequences drawn by gen in the normal form the
// adapter's EncodeStream documents, compared with opts.
func CheckStreamRoundTrip(t *testing.T, a core.Adapter, gen func(*rapid.T) []core.Event, opts ...cmp.Option) {
	t.Helper()
	rapid.Check(t, func(t *rapid.T) {
		want := gen(t)
		var buf bytes.Buffer
		if err := a.EncodeStream(&buf, want); err != nil {
			t.Fatalf("encode stream: %v", err)
		}
		wire := buf.String()
		got, err := Drain(a.DecodeStream(&buf))
		if err != nil {
			t.Fatalf("decode stream: %v\n%s", err, wire)
		}
		if diff := cmp.Diff(want, got, opts...); diff != "" {
			t.Fatalf("events (-want +got):\n%s\nwire:\n%s", diff, wire)
		}
	})
}

// CheckResponseRoundTrip states decode ∘ encode = identity on the
// responses gen draws, compared with opts.
func CheckResponseRoundTrip(t *testing.T, a core.Adapter, gen func(*rapid.T) *core.Response, opts ...cmp.Option) {
	t.Helper()
	rapid.Check(t, func(t *rapid.T) {
		want := gen(t)
		body, err := a.EncodeResponse(want)
		if err != nil {
			t.Fatalf("encode response: %v", err)
		}
		got, err := a.DecodeResponse(body)
		if err != nil {
			t.Fatalf("decode response: %v\n%s", err, body)
		}
		if diff := cmp.Diff(want, got, opts...); diff != "" {
			t.Fatalf("response (-want +got):\n%s\n%s", diff, body)
		}
	})
}

// CheckRequestRoundTrip states decode ∘ encode = identity on the requests
// gen draws, compared with opts.
func CheckRequestRoundTrip(t *testing.T, a core.Adapter, gen func(*rapid.T) *core.Request, opts ...cmp.Option) {
	t.Helper()
	rapid.Check(t, func(t *rapid.T) {
		want := gen(t)
		body, err := a.EncodeRequest(want)
		if err != nil {
			t.Fatalf("encode request: %v", err)
		}
		got, err := a.DecodeRequest(body)
		if err != nil {
			t.Fatalf("decode request: %v\n%s", err, body)
		}
		if diff := cmp.Diff(want, got, opts...); diff != "" {
			t.Fatalf("request (-want +got):\n%s\n%s", diff, body)
		}
	})
}
