package gemini

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// streamCalls assembles the calls of this adapter's event sequence (calls
// route by id; Gemini sends no index). Calls with no end are incomplete.
// It stands in for core.Collect, which works on any routing.
func streamCalls(evs []core.Event) (calls, incomplete []core.Call) {
	var order []string
	open := map[string]*core.Call{}
	done := map[string]bool{}
	for _, ev := range evs {
		c := ev.Chunk
		if c == nil {
			continue
		}
		switch ev.Kind {
		case core.EventCallStart:
			open[c.ID] = &core.Call{ID: c.ID, Name: c.Name, Signature: c.Signature}
			order = append(order, c.ID)
		case core.EventCallEnd:
			if call := open[c.ID]; call != nil && c.Args != nil {
				call.Arguments = json.RawMessage(*c.Args)
				done[c.ID] = true
			}
		}
	}
	for _, id := range order {
		if done[id] {
			calls = append(calls, *open[id])
		} else {
			incomplete = append(incomplete, *open[id])
		}
	}
	return calls, incomplete
}

type goldenExchange struct {
	Request    *core.Request  `json:"request,omitempty"`
	Stream     bool           `json:"stream"`
	Events     []core.Event   `json:"events,omitempty"`
	Response   *core.Response `json:"response,omitempty"`
	Calls      []core.Call    `json:"calls"`
	Incomplete []core.Call    `json:"incomplete,omitempty"`
}

// TestCorpusGolden decodes every recorded request and response of the
// gemini corpus and compares the result with testdata/golden/<file>.json.
// The golden files were written with -update and read against the recorded
// bytes: every functionCall of the recordings is there with its arguments,
// ids and signatures.
func TestCorpusGolden(t *testing.T) {
	a := New()
	totalCalls := 0
	for _, rec := range adaptertest.Recordings(t, "gemini") {
		t.Run(rec.Name, func(t *testing.T) {
			var got []goldenExchange
			for i, ex := range rec.Exchanges {
				var g goldenExchange
				if ex.Request != nil {
					req, err := a.DecodeRequest(ex.Request)
					if err != nil {
						t.Fatalf("exchange %d: decode request: %v", i, err)
					}
					g.Request = req
				}
				if isStream(ex.Response) {
					g.Stream = true
					evs, err := adaptertest.Drain(a.DecodeStream(bytes.NewReader(ex.Response)))
					if err != nil {
						t.Fatalf("exchange %d: decode stream: %v", i, err)
					}
					g.Events = evs
					g.Calls, g.Incomplete = streamCalls(evs)
				} else {
					resp, err := a.DecodeResponse(ex.Response)
					if err != nil {
						t.Fatalf("exchange %d: decode response: %v", i, err)
					}
					g.Response = resp
					g.Calls = resp.Calls()
				}
				for _, c := range g.Calls {
					if !json.Valid(c.Arguments) {
						t.Errorf("exchange %d: call %s has invalid arguments %q", i, c.ID, c.Arguments)
					}
				}
				totalCalls += len(g.Calls)
				got = append(got, g)
			}
			adaptertest.CheckGolden(t, goldenPath("", rec.Name), got)
		})
	}
	t.Logf("%d complete calls decoded from the corpus", totalCalls)
}

// droppedRequestFields are the request fields conform does not model; they
// are removed from the recorded body before comparing it with the
// re-encoded one. Paths use camelCase (snake_case keys are folded first).
var droppedRequestFields = [][]string{
	{"safetySettings"},
	{"generationConfig", "thinkingConfig"},
	{"generationConfig", "candidateCount"},
	{"generationConfig", "temperature"},
	{"generationConfig", "topP"},
	{"generationConfig", "topK"},
	{"systemInstruction", "role"},
}

// TestCorpusRequestRoundTrip decodes every recorded request, encodes it
// again and compares both as parsed JSON, after dropping the fields listed
// in droppedRequestFields, null values (description: null) and empty
// generationConfig, folding snake_case keys to camelCase, and passing the
// recorded tool parameters through SanitizeSchema (the encoder always
// does; the sanitiser has its own tests).
func TestCorpusRequestRoundTrip(t *testing.T) {
	a := New()
	n := 0
	for _, rec := range adaptertest.Recordings(t, "gemini") {
		f := rec.Name
		for i, ex := range rec.Exchanges {
			if ex.Request == nil {
				continue
			}
			n++
			req, err := a.DecodeRequest(ex.Request)
			if err != nil {
				t.Errorf("%s #%d: decode: %v", f, i, err)
				continue
			}
			again, err := a.EncodeRequest(req)
			if err != nil {
				t.Errorf("%s #%d: encode: %v", f, i, err)
				continue
			}
			want := normalizeRequestJSON(t, ex.Request, true)
			got := normalizeRequestJSON(t, again, false)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s #%d: re-encoded request differs (-want +got):\n%s", f, i, diff)
			}
		}
	}
	if n == 0 {
		t.Fatal("no recorded requests found")
	}
	t.Logf("%d recorded requests round-tripped", n)
}

func normalizeRequestJSON(t *testing.T, body []byte, recorded bool) string {
	t.Helper()
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("parse request: %v", err)
	}
	v = foldKeys(v)
	m := v.(map[string]any)
	for _, p := range droppedRequestFields {
		deletePath(m, p)
	}
	if g, ok := m["generationConfig"].(map[string]any); ok && len(g) == 0 {
		delete(m, "generationConfig")
	}
	if recorded {
		tools, _ := m["tools"].([]any)
		for _, tool := range tools {
			decls, _ := tool.(map[string]any)["functionDeclarations"].([]any)
			for _, d := range decls {
				dm := d.(map[string]any)
				if p, ok := dm["parameters"]; ok {
					b, _ := json.Marshal(p)
					s, _, err := SanitizeSchema(b)
					if err != nil {
						t.Fatalf("sanitize recorded parameters: %v", err)
					}
					var sv any
					d := json.NewDecoder(bytes.NewReader(s))
					d.UseNumber()
					_ = d.Decode(&sv)
					dm["parameters"] = sv
				}
			}
		}
	}
	out, _ := json.MarshalIndent(m, "", "  ")
	return string(out)
}

// foldKeys turns snake_case keys into camelCase and drops null members.
func foldKeys(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if e == nil {
				continue
			}
			out[camel(k)] = foldKeys(e)
		}
		return out
	case []any:
		for i := range x {
			x[i] = foldKeys(x[i])
		}
	}
	return v
}

func camel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

func deletePath(m map[string]any, p []string) {
	for len(p) > 1 {
		next, ok := m[p[0]].(map[string]any)
		if !ok {
			return
		}
		m, p = next, p[1:]
	}
	delete(m, p[0])
}
