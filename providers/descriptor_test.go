package providers

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/failuremodes"
	"github.com/toolconform/conform/providers/protocol"
)

// TestDescriptorsComplete checks that every descriptor in the list sets
// what its consumers read: the adapter, the HTTP facts serve, record and
// agent send with, a framing that agrees with the content type, a URL and
// a response body the importer recognises as the protocol's, and the
// grading facts serve needs, each failure mode a real one.
func TestDescriptorsComplete(t *testing.T) {
	for _, p := range Protocols() {
		t.Run(p.Protocol, func(t *testing.T) {
			if p.New == nil {
				t.Fatal("New is nil")
			}
			a := p.New()
			if a.Name() != p.Protocol {
				t.Errorf("New().Name() = %q", a.Name())
			}
			if _, ok := a.(core.FeatureDeclarer); !ok {
				t.Error("the adapter declares no features (core.FeatureDeclarer)")
			}
			if _, ok := a.(core.NameRuler); !ok {
				t.Error("the adapter declares no tool name rules (core.NameRuler)")
			}
			if row := protocol.MustLookup(p.Protocol); row.Path != p.Path || row.BaseURL != p.BaseURL {
				t.Errorf("Endpoint is not the protocol's row of package protocol")
			}
			for field, v := range map[string]string{"Method": p.Method, "Path": p.Path, "ContentType": p.ContentType,
				"StreamContentType": p.StreamContentType, "BaseURL": p.BaseURL, "DefaultModel": p.DefaultModel,
				"Grading.MissingResult": p.Grading.MissingResult, "Grading.ResponseIDPrefix": p.Grading.ResponseIDPrefix} {
				if v == "" {
					t.Errorf("%s is empty", field)
				}
			}
			if len(p.KeyEnv) == 0 {
				t.Error("KeyEnv is empty")
			}
			if (p.KeyHeader == "") == (p.SigV4Service == "") {
				t.Errorf("KeyHeader %q and SigV4Service %q: want exactly one", p.KeyHeader, p.SigV4Service)
			}
			framing := map[protocol.Framing]string{protocol.FramingSSE: "text/event-stream", protocol.FramingNDJSON: "application/x-ndjson", protocol.FramingEventStream: "application/vnd.amazon.eventstream"}
			if want, ok := framing[p.Framing]; !ok || want != p.StreamContentType {
				t.Errorf("Framing %d does not match StreamContentType %q", p.Framing, p.StreamContentType)
			}
			if p.Framing != protocol.FramingSSE && p.SSE != (protocol.SSE{}) {
				t.Errorf("SSE %+v set on a stream that is not SSE", p.SSE)
			}
			if p.JSONArrayStream != (p.NewJSONArrayStream != nil) {
				t.Errorf("JSONArrayStream %v but NewJSONArrayStream set: %v", p.JSONArrayStream, p.NewJSONArrayStream != nil)
			}
			if _, ok := failuremodes.Lookup(p.Grading.MissingResult); !ok {
				t.Errorf("Grading.MissingResult %q is no failure mode", p.Grading.MissingResult)
			}
			if len(p.FinishReasons) == 0 {
				t.Errorf("FinishReasons is empty: the protocol's finish vocabulary is what serve may write")
			}
			if len(p.Routes) == 0 && !strings.Contains(p.Path, "{model}") {
				t.Error("no Routes and no {model} path: serve cannot route a request to it")
			}
			// The importer tells the protocol from its URL, and from a
			// response body unless its shape is another protocol's at the
			// same route (Mistral's is Chat Completions').
			for _, stream := range []bool{false, true} {
				if u := p.URL(p.BaseURL, p.DefaultModel, stream); protocol.GuessURL(u) != p.Protocol {
					t.Errorf("GuessURL(%q) = %q", u, protocol.GuessURL(u))
				}
			}
			body, err := a.EncodeResponse(&core.Response{ID: "r1", Model: p.DefaultModel, Finish: core.FinishToolCalls,
				Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.CallPart(core.Call{ID: "call_1", Name: "f", Arguments: json.RawMessage(`{}`)})}}})
			if err != nil {
				t.Fatal(err)
			}
			got := protocol.GuessBody(body)
			if p.Recognise == nil {
				r, _ := MatchPath(p.URL("", p.DefaultModel, false))
				if !slices.Contains(r.Protocols, got) || got == p.Protocol {
					t.Errorf("GuessBody = %q; with no Recognise, want another protocol of its route %v", got, r.Protocols)
				}
			} else if got != p.Protocol {
				t.Errorf("GuessBody(%s) = %q", body, got)
			}
		})
	}
	// The rows of package protocol with no adapter are the importer's
	// alone: serve has no route to them.
	for _, e := range protocol.Endpoints() {
		if _, err := Describe(e.Protocol); err != nil && len(e.Routes) > 0 {
			t.Errorf("protocol %q has routes but no descriptor in the list", e.Protocol)
		}
	}
}
