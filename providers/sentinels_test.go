package providers

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/wire"
	"github.com/toolconform/conform/providers/mistral"
	"github.com/toolconform/conform/providers/openaichat"
)

// TestEveryAdapterWrapsCoreSentinels checks the one sentinel policy
// (providers/internal/wire/doc.go): the conditions that mean the same in
// every protocol are core's sentinels in all eight adapters, inside the
// one decode error or the one history error, never an adapter's own copy.
func TestEveryAdapterWrapsCoreSentinels(t *testing.T) {
	user := core.Message{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}}
	orphan := core.Message{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: "c9", Content: []core.Part{core.TextPart("ok")}})}}
	for _, a := range All() {
		t.Run(a.Name(), func(t *testing.T) {
			for _, body := range []string{`{"a":`, `{"a":1}}`, `not json`, `5`, `"s"`, `{"content":5}`, `{"choices":5}`, `{"candidates":5}`, `{"message":5}`, `{"output":5}`} {
				_, err := a.DecodeResponse([]byte(body))
				var de *wire.DecodeError
				if !errors.Is(err, core.ErrMalformed) || !errors.As(err, &de) || de.Protocol != a.Name() {
					t.Errorf("DecodeResponse(%q) = %v, want a *DecodeError of %s wrapping core.ErrMalformed", body, err, a.Name())
				}
			}
			// Input that is no stream of the protocol, or one cut inside a
			// value or frame: malformed (core.ErrNotStream is a kind of
			// it), or truncated.
			for _, in := range []string{"hello world\n", `{"a":`, `[{"a":1},`, "data: {\"a\":\n\n"} {
				_, err := core.Collect(a.DecodeStream(strings.NewReader(in)))
				if !errors.Is(err, core.ErrMalformed) && !errors.Is(err, core.ErrTruncated) {
					t.Errorf("DecodeStream(%q): %v, want an error wrapping core.ErrMalformed or core.ErrTruncated", in, err)
				}
			}
			if enc, ok := a.(core.StreamEncoder); ok {
				for _, kind := range []core.EventKind{core.EventCallStart, core.EventCallDelta, core.EventCallEnd} {
					if err := enc.EncodeStream(io.Discard, []core.Event{{Kind: kind}}); !errors.Is(err, core.ErrMalformed) {
						t.Errorf("EncodeStream(%s event without a chunk) = %v, want an error wrapping core.ErrMalformed", kind, err)
					}
				}
			}
			if _, err := a.EncodeRequest(nil); !errors.Is(err, core.ErrMalformed) {
				t.Errorf("EncodeRequest(nil) = %v, want an error wrapping core.ErrMalformed", err)
			}
			if _, err := a.EncodeResponse(nil); !errors.Is(err, core.ErrMalformed) {
				t.Errorf("EncodeResponse(nil) = %v, want an error wrapping core.ErrMalformed", err)
			}
			if fd, ok := a.(core.FeatureDeclarer); !ok || !slices.Contains(fd.Features(), core.FeatureResultsRequired) {
				return // a protocol without history rules (Ollama) sends any history
			}
			_, err := a.EncodeRequest(&core.Request{Messages: []core.Message{user, orphan}})
			var he *core.HistoryError
			if !errors.As(err, &he) || he.Protocol != a.Name() || !errors.Is(err, core.ErrOrphanResult) {
				t.Errorf("EncodeRequest(orphan result) = %v, want a *core.HistoryError of %s wrapping core.ErrOrphanResult", err, a.Name())
			}
		})
	}
}

// TestCountLimitsAreSizeLimits checks the count limits the adapters
// return (calls of a Buffer, ids of an id map): each is core.ErrTooLarge to
// a caller that branches on it, as the size limits are, and keeps its own
// identity.
func TestCountLimitsAreSizeLimits(t *testing.T) {
	for name, err := range map[string]error{
		"core.ErrTooManyCalls":     core.ErrTooManyCalls,
		"openaichat.ErrTooManyIDs": openaichat.ErrTooManyIDs,
		"mistral.ErrTooManyIDs":    mistral.ErrTooManyIDs,
	} {
		wrapped := fmt.Errorf("encode request: %w", err)
		if !errors.Is(wrapped, core.ErrTooLarge) || !errors.Is(wrapped, err) {
			t.Errorf("%s: errors.Is(err, core.ErrTooLarge) = %v, errors.Is(err, %s) = %v; want both true", name, errors.Is(wrapped, core.ErrTooLarge), name, errors.Is(wrapped, err))
		}
	}
}

// TestEveryAdapterRefusesBrokenRequests gives every adapter's
// EncodeRequest canonical requests that break the model (an unknown role,
// a call or result part without its call or result, an unknown part kind
// or tool choice mode): none may panic, and none may drop a call or result
// part without its call or result, a part of an unknown kind
// (core.ErrUnsupported) or a tool choice it cannot read.
func TestEveryAdapterRefusesBrokenRequests(t *testing.T) {
	user := core.Message{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}}
	reqs := map[string]*core.Request{
		"unknown role":            {Messages: []core.Message{user, {Role: "wizard", Parts: []core.Part{core.TextPart("x")}}}},
		"call part without call":  {Messages: []core.Message{user, {Role: core.RoleAssistant, Parts: []core.Part{{Kind: core.PartToolCall}}}}},
		"result part without one": {Messages: []core.Message{user, {Role: core.RoleTool, Parts: []core.Part{{Kind: core.PartToolResult}}}}},
		"unknown part kind":       {Messages: []core.Message{user, {Role: core.RoleUser, Parts: []core.Part{{Kind: "bogus"}}}}},
		"unknown tool choice":     {Messages: []core.Message{user}, ToolChoice: &core.ToolChoice{Mode: "sometimes"}},
	}
	for _, a := range All() {
		for name, req := range reqs {
			t.Run(a.Name()+"/"+name, func(t *testing.T) {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("EncodeRequest panicked: %v", r)
					}
				}()
				_, err := a.EncodeRequest(req)
				if (name == "call part without call" || name == "unknown tool choice") && !errors.Is(err, core.ErrMalformed) {
					t.Errorf("EncodeRequest = %v, want an error wrapping core.ErrMalformed", err)
				}
				if name == "unknown part kind" && !errors.Is(err, core.ErrUnsupported) {
					t.Errorf("EncodeRequest = %v, want an error wrapping core.ErrUnsupported", err)
				}
				if name == "result part without one" && err == nil {
					t.Error("EncodeRequest dropped a tool_result part without its result")
				}
			})
		}
	}
}
