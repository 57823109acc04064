package adaptertest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/sse"
)

// Shapes compares the keys of what an encoder writes with the keys that
// every recording of the protocol carries, one level deep ("message.usage").
// SDKs validate events against schemas written from real traffic, so a key
// real traffic always sends and an encoder omits makes them reject the
// encoder's output (message_delta without usage failed @anthropic-ai/sdk,
// response.created without created_at the Vercel AI SDK).
type Shapes struct {
	// Protocol names the recordings (testdata/corpus/<Protocol>).
	Protocol string
	// Sub names the object-valued keys whose "type" refines an event's
	// kind: an Anthropic content_block_start of a tool_use block is the
	// kind "content_block_start/tool_use" with Sub "content_block".
	Sub []string
	// Omitted lists the keys the encoder leaves out on purpose.
	Omitted map[string]bool
}

// kind names a payload: its type, and the type of each Sub object.
func (s Shapes) kind(m map[string]any) string {
	k, _ := m["type"].(string)
	for _, sub := range s.Sub {
		if o, ok := m[sub].(map[string]any); ok {
			if t, ok := o["type"].(string); ok {
				k += "/" + t
			}
		}
	}
	return k
}

// keys lists the keys of a payload and, one level down, of its object
// values.
func keys(m map[string]any) map[string]bool {
	out := map[string]bool{}
	for k, v := range m {
		out[k] = true
		if o, ok := v.(map[string]any); ok {
			for k2 := range o {
				out[k+"."+k2] = true
			}
		}
	}
	return out
}

// streamKeys reads an SSE stream's JSON payloads and returns, per kind, the
// key sets of its events.
func (s Shapes) streamKeys(t testing.TB, body []byte) map[string][]map[string]bool {
	t.Helper()
	out := map[string][]map[string]bool{}
	d := sse.NewDecoder(bytes.NewReader(body))
	for {
		ev, err := d.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("read stream: %v", err)
		}
		var m map[string]any
		if json.Unmarshal([]byte(ev.Data), &m) != nil {
			continue // [DONE] and the like
		}
		k := s.kind(m)
		out[k] = append(out[k], keys(m))
	}
}

// intersect narrows always to the keys also in next; a nil always
// becomes a copy of next.
func intersect(always, next map[string]bool) map[string]bool {
	if always == nil {
		return maps.Clone(next)
	}
	maps.DeleteFunc(always, func(k string, _ bool) bool { return !next[k] })
	return always
}

// missing lists the keys of want that got lacks and Omitted does not
// excuse, adding them to into.
func (s Shapes) missing(into []string, want, got map[string]bool) []string {
	for k := range want {
		if !got[k] && !s.Omitted[k] && !slices.Contains(into, k) {
			into = append(into, k)
		}
	}
	slices.Sort(into)
	return into
}

// CheckStream checks that every event of written, an SSE stream the
// encoder wrote, carries each key that every recorded event of its kind
// carries, and that at least minKinds of written's kinds were compared.
func (s Shapes) CheckStream(t *testing.T, written []byte, minKinds int) {
	t.Helper()
	streams, _ := ResponseBodies(t, s.Protocol, IsSSE)
	if len(streams) < 5 {
		t.Fatalf("found %d recorded %s streams, want at least 5", len(streams), s.Protocol)
	}
	always := map[string]map[string]bool{}
	for _, rec := range streams {
		for k, sets := range s.streamKeys(t, rec) {
			for _, ks := range sets {
				always[k] = intersect(always[k], ks)
			}
		}
	}
	got := s.streamKeys(t, written)
	compared := 0
	missing := map[string][]string{}
	for k, sets := range got {
		want, ok := always[k]
		if !ok {
			continue
		}
		compared++
		for _, ks := range sets {
			if m := s.missing(missing[k], want, ks); len(m) > 0 {
				missing[k] = m
			}
		}
	}
	if compared < minKinds {
		t.Errorf("compared %d event kinds with recordings, want at least %d; kinds written: %s", compared, minKinds, strings.Join(slices.Sorted(maps.Keys(got)), ", "))
	}
	if diff := cmp.Diff(map[string][]string{}, missing); diff != "" {
		t.Errorf("keys every recorded event of a kind has but the written ones lack (-want +got):\n%s\nwire:\n%s", diff, written)
	}
}

// CheckBody checks that written, a response body the encoder wrote, carries
// each key that every recorded body for which isResponse holds carries
// (error bodies are left out that way). Keys are those of the body's
// object, under the name "response".
func (s Shapes) CheckBody(t *testing.T, written []byte, isResponse func(map[string]any) bool) {
	t.Helper()
	s.checkBody(t, written, isResponse, func(m map[string]any) (map[string]bool, bool) {
		return keys(map[string]any{"response": m}), true
	})
}

// CheckBodyObject is CheckBody for the object under field in each body, two
// levels deep: its keys and those of its object values, named from the
// body ("usage.tokens", "usage.tokens.input_tokens"). A recorded body
// without that object counts as one whose object has no keys.
func (s Shapes) CheckBodyObject(t *testing.T, written []byte, isResponse func(map[string]any) bool, field string) {
	t.Helper()
	s.checkBody(t, written, isResponse, func(m map[string]any) (map[string]bool, bool) {
		o, ok := m[field].(map[string]any)
		out := map[string]bool{}
		for k := range keys(o) {
			out[field+"."+k] = true
		}
		return out, ok
	})
}

// checkBody compares the key set view gives of written with the keys that
// view gives of every recorded body for which isResponse holds; view's
// false means the body lacks what is compared.
func (s Shapes) checkBody(t *testing.T, written []byte, isResponse func(map[string]any) bool, view func(map[string]any) (map[string]bool, bool)) {
	t.Helper()
	_, bodies := ResponseBodies(t, s.Protocol, IsSSE)
	var always map[string]bool
	n := 0
	for _, body := range bodies {
		var m map[string]any
		if json.Unmarshal(body, &m) != nil || !isResponse(m) {
			continue
		}
		n++
		ks, _ := view(m)
		always = intersect(always, ks)
	}
	if n < 5 {
		t.Fatalf("found %d recorded %s response bodies, want at least 5", n, s.Protocol)
	}
	var m map[string]any
	if err := json.Unmarshal(written, &m); err != nil {
		t.Fatalf("written body: %v", err)
	}
	got, ok := view(m)
	if !ok {
		t.Errorf("the written body lacks the object compared\nbody: %s", written)
		return
	}
	if missing := s.missing(nil, always, got); len(missing) > 0 {
		t.Errorf("keys every recorded body has but the written one lacks: %s\nbody: %s", strings.Join(missing, " "), written)
	}
}
