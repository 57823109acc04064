package adaptertest

import (
	"bytes"
	"errors"
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

// ParityView is what a client sees of a response, streamed or whole: its
// text, finish, usage, calls (arguments compacted), the opaque payloads
// of redacted thinking, and the provider's error.
type ParityView struct {
	Text, Finish, ProviderFinish string
	Calls                        []core.Call
	Usage                        *core.Usage
	Redacted                     []string
	Error                        *core.ProviderError
}

// CheckParity states that the same response gives a client the same view
// whether sent whole or streamed (D03, F02): decoding a's EncodeResponse
// body of resp and collecting with core.Collect the decoding of a's
// EncodeStream of evs (the same response as events) agree. A response
// may be a provider error (Response.Error, and an EventError among evs):
// Collect then returns the provider error, which is expected, and the
// error and finish reason must agree like the rest.
func CheckParity(t *rapid.T, a core.Adapter, resp *core.Response, evs []core.Event) {
	body, err := a.EncodeResponse(resp)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := a.DecodeResponse(body)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := a.EncodeStream(&buf, evs); err != nil {
		t.Fatal(err)
	}
	wireText := buf.String()
	streamed, err := core.Collect(a.DecodeStream(&buf))
	var pe *core.ProviderError
	if err != nil && (whole.Error == nil || !errors.As(err, &pe) || len(streamed.Incomplete) > 0) {
		t.Fatalf("collect: %v\n%s", err, wireText)
	}
	see := func(r *core.Response) ParityView {
		v := ParityView{Text: r.Text(), Finish: string(r.Finish), ProviderFinish: r.ProviderFinish, Usage: r.Usage, Error: r.Error}
		for _, p := range r.Message.Parts {
			if p.Kind == core.PartThinking && p.Data != "" {
				v.Redacted = append(v.Redacted, p.Data)
			}
		}
		for _, c := range r.Calls() {
			c.Arguments = Compact(t, c.Arguments)
			v.Calls = append(v.Calls, c)
		}
		return v
	}
	if diff := cmp.Diff(see(whole), see(streamed)); diff != "" {
		t.Fatalf("whole vs streamed (-whole +streamed):\n%s\n%s", diff, wireText)
	}
}
