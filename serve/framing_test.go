package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
	"github.com/toolconform/conform/sse"
)

// TestServedFraming streams every servable scenario of the SSE protocols
// that name their events or end with [DONE] and reads the bytes as an SDK
// does: every event with a typed JSON payload must be named by that type,
// as the provider names it, and a Chat Completions or Mistral stream that
// is not broken on purpose ends with [DONE]. The recordings that arrived
// as one JSON payload per line (chunk fixtures) are the ones serve has to
// re-frame.
func TestServedFraming(t *testing.T) {
	s, ts := newServer(t, Options{})
	renamed := map[string]int{}
	for _, name := range s.Names() {
		e := s.index[name]
		if !descriptor(e.protocol).SSE.NamedEvents && !descriptor(e.protocol).SSE.Done || e.sc.Kind != scenarios.KindStream || e.sc.BodySection == "response.ndjson" {
			continue // not SSE (Cohere v1's NDJSON streams are served as NDJSON)
		}
		if _, changed := frameRecorded(e.protocol, e.sc, true); changed {
			renamed[e.protocol]++
		}
		if unmet(e.requires, httptest.NewRequest("POST", "/?%24alt=json%3Benum-encoding%3Dint", nil), optInServerToolsBody) != "" {
			continue // served to no request
		}
		t.Run(name, func(t *testing.T) {
			a, err := providers.Lookup(e.protocol)
			if err != nil {
				t.Fatal(err)
			}
			ep, _ := providers.HTTP(e.protocol)
			body, err := a.EncodeRequest(&core.Request{Stream: true, MaxTokens: 10, Messages: []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}}}})
			if err != nil {
				t.Fatal(err)
			}
			url, body := optInRequest(t, e.protocol, ep.URL(ts.URL+ScenarioPrefix+name, ep.DefaultModel, true), body)
			resp, err := http.Post(url, "application/json", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 {
				msg, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %d: %s", resp.StatusCode, msg)
			}
			d := sse.NewDecoder(resp.Body)
			n, last := 0, ""
			for {
				ev, err := d.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("event %d: %v", n, err)
				}
				n++
				last = ev.Data
				if !descriptor(e.protocol).SSE.NamedEvents {
					continue
				}
				var p struct {
					Type string `json:"type"`
				}
				if json.Unmarshal([]byte(ev.Data), &p) != nil || p.Type == "" {
					continue
				}
				if ev.Type != p.Type {
					t.Errorf("event %d: named %q, payload type %q: %.80s", n, ev.Type, p.Type, strings.TrimSpace(ev.Data))
				}
			}
			if n == 0 {
				t.Errorf("no event served")
			}
			if descriptor(e.protocol).SSE.Done && !e.sc.Want.ExpectsError() && last != "[DONE]" {
				t.Errorf("the stream ends with %.80q, not [DONE]", last)
			}
		})
	}
	t.Logf("recorded streams re-framed: %v", renamed)
	if want := map[string]int{"anthropic": 8, "openai-responses": 9, "cohere": 2, "openai-chat": 6, "mistral": 2}; !equalCounts(renamed, want) {
		t.Errorf("re-framed streams by protocol %v, want %v (the chunk-fixture recordings)", renamed, want)
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestNameEvents checks the re-framing on hand-made bodies: names come
// from the payload's type in the event's own line ending, named events,
// comments and untyped payloads are kept byte for byte, and protocols
// that send data lines only are left alone.
func TestNameEvents(t *testing.T) {
	tests := []struct {
		protocol, in, want string
	}{
		{"anthropic", "data: {\"type\":\"message_start\"}\n\ndata: {\"type\":\"message_stop\"}\n\n",
			"event: message_start\ndata: {\"type\":\"message_start\"}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"},
		{"openai-responses", "data: {\"type\":\"response.created\"}\r\n\r\n", "event: response.created\r\ndata: {\"type\":\"response.created\"}\r\n\r\n"},
		{"cohere", "event: message-start\ndata: {\"type\":\"message-start\"}\n\n: ping\n\ndata: [DONE]\n\n",
			"event: message-start\ndata: {\"type\":\"message-start\"}\n\n: ping\n\ndata: [DONE]\n\n"},
		{"anthropic", "data: {\"type\":\"a\\nb\"}\n\n", "data: {\"type\":\"a\\nb\"}\n\n"},
		{"openai-chat", "data: {\"type\":\"x\"}\n\n", "data: {\"type\":\"x\"}\n\n"},
	}
	for _, tt := range tests {
		got, changed := nameEvents(tt.protocol, []byte(tt.in))
		if string(got) != tt.want || changed != (tt.in != tt.want) {
			t.Errorf("nameEvents(%s, %q) = %q, %v; want %q", tt.protocol, tt.in, got, changed, tt.want)
		}
	}
}

// TestFrameRecorded checks the terminators serve restores: [DONE] for a
// chunk-fixture Chat Completions stream, the blank line after an
// unterminated last event, and nothing for a stream broken on purpose or
// one already framed.
func TestFrameRecorded(t *testing.T) {
	chunks := "openai-chat/x.chunks.txt.yaml#0"
	tests := []struct {
		desc, protocol, cassette, body, want string
		broken                               bool
	}{
		{"chunk fixture gets [DONE]", "openai-chat", chunks, "data: {}\n\n", "data: {}\n\ndata: [DONE]\n\n", false},
		{"recorded SSE keeps its own end", "openai-chat", "openai-chat/x.yaml#0", "data: {}\n\n", "data: {}\n\n", false},
		{"unterminated last event", "openai-chat", "openai-chat/x.sse.yaml#0", "data: {}\n\ndata: [DONE]\n", "data: {}\n\ndata: [DONE]\n\n", false},
		{"unterminated, CRLF", "anthropic", "a.yaml#0", "event: ping\r\ndata: {}", "event: ping\r\ndata: {}\n\n", false},
		{"a stream cut on purpose stays cut", "gemini", "g.yaml#0", "data: {\"a\":\n", "data: {\"a\":\n", true},
	}
	for _, tt := range tests {
		sc := &scenarios.Scenario{Cassette: tt.cassette, Body: []byte(tt.body)}
		if tt.broken {
			sc.Want.Error = regexp.MustCompile(".")
		}
		got, changed := frameRecorded(tt.protocol, sc, true)
		if string(got) != tt.want || changed != (tt.body != tt.want) {
			t.Errorf("%s: frameRecorded = %q, %v; want %q", tt.desc, got, changed, tt.want)
		}
	}
}
