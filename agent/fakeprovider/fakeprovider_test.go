package fakeprovider

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
)

var sample = core.Response{
	ID: "resp1", Model: "m",
	Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{
		core.TextPart("Checking both."),
		core.CallPart(core.Call{ID: "callAAAA1", Name: "a", Arguments: json.RawMessage(`{"x":1}`)}),
		core.CallPart(core.Call{ID: "callBBBB2", Name: "b", Arguments: json.RawMessage(`{}`)}),
	}},
	Finish: core.FinishToolCalls,
}

// TestStreamRoundTrip checks that a scripted response streamed by the
// server with each adapter, read back by the same adapter, gives the same
// text and calls (ids too where the protocol carries them).
func TestStreamRoundTrip(t *testing.T) {
	for _, p := range providers.Protocols() {
		t.Run(p.Protocol, func(t *testing.T) {
			a := p.New()
			s := New(a, sample)
			defer s.Close()
			body, err := a.EncodeRequest(&core.Request{Model: "m", Stream: true, Messages: []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}}}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := http.Post(p.URL(s.URL, "m", true), p.ContentType, bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != p.StreamContentType {
				b, _ := io.ReadAll(res.Body)
				t.Fatalf("status %d, content type %q: %s", res.StatusCode, res.Header.Get("Content-Type"), b)
			}
			if got := s.Received(); len(got) != 1 || !got[0].Stream {
				t.Fatalf("received %+v, want one streamed request", got)
			}
			got, err := core.Collect(a.DecodeStream(res.Body))
			if err != nil {
				t.Fatal(err)
			}
			if got.Text() != sample.Text() {
				t.Errorf("text %q, want %q", got.Text(), sample.Text())
			}
			opt := cmpopts.IgnoreFields(core.Call{}, "ID", "ItemID")
			if features, _ := providers.Features(p.Protocol); slices.Contains(features, core.FeatureResultIDs) {
				opt = cmpopts.IgnoreFields(core.Call{}, "ItemID")
			}
			if diff := cmp.Diff(sample.Calls(), got.Calls(), opt); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestServer checks the server records requests, answers in order, and
// answers 400 for a body the adapter cannot decode and 500 past the script.
func TestServer(t *testing.T) {
	a, _ := providers.Lookup("openai-chat")
	s := New(a, sample)
	defer s.Close()
	post := func(body string) (int, string) {
		res, err := http.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := post(`{"model":"m","messages":[`); code != 400 || !strings.Contains(body, "decode request") {
		t.Errorf("bad body: %d %q", code, body)
	}
	code, body := post(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	if code != 200 {
		t.Fatalf("status %d: %s", code, body)
	}
	resp, err := a.DecodeResponse([]byte(body))
	if err != nil || len(resp.Calls()) != 2 {
		t.Fatalf("answer %v, %v", resp, err)
	}
	if code, _ := post(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`); code != 500 {
		t.Errorf("past the script: status %d, want 500", code)
	}
	got := s.Received()
	if len(got) != 3 || got[0].Err == nil || got[1].Request.Model != "m" || got[1].Stream {
		t.Errorf("received %+v", got)
	}
}
