package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
	"github.com/toolconform/conform/sse"
)

// The field-set test (issue 27, item 1): every body and every stream
// event serve writes carries every field that every recorded body or event
// of its kind carries, with a value of a recorded JSON type, and a stream
// is framed and ends as recorded streams are. The expected sets are read
// from the recordings (testdata/corpus), never written by hand.

// A frame is one payload of a body: the whole body, or one stream event.
type frame struct {
	// name is the SSE event name or the event-stream :event-type, "" when
	// the framing has none.
	name string
	data []byte
}

// form tells the shapes apart that serve writes: a whole body, an SSE
// stream, an AWS event stream, an NDJSON stream, a one-JSON-array stream.
type form string

const (
	formWhole  form = "whole"
	formSSE    form = "sse"
	formEvents form = "eventstream"
	formNDJSON form = "ndjson"
	formArray  form = "array"
)

// formOf reads a body's form from its media type, and for JSON from the
// body itself (a Gemini array stream is application/json).
func formOf(ctype string, stream bool, body []byte) form {
	mt, _, _ := mime.ParseMediaType(ctype)
	switch {
	case mt == "text/event-stream":
		return formSSE
	case mt == "application/vnd.amazon.eventstream":
		return formEvents
	case strings.Contains(mt, "ndjson") || strings.Contains(mt, "jsonl"):
		return formNDJSON
	case stream && jsonArray(body):
		return formArray
	}
	return formWhole
}

// frames splits a body into its payloads.
func frames(f form, body []byte) ([]frame, error) {
	switch f {
	case formSSE:
		var out []frame
		d := sse.NewDecoder(bytes.NewReader(body))
		for {
			ev, err := d.Next()
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			if err != nil {
				return out, err
			}
			out = append(out, frame{name: ev.Type, data: []byte(ev.Data)})
		}
	case formEvents:
		var out []frame
		r := bytes.NewReader(body)
		dec := eventstream.NewDecoder()
		for r.Len() > 0 {
			msg, err := dec.Decode(r, nil)
			if err != nil {
				return out, err
			}
			name := ""
			if h := msg.Headers.Get(":event-type"); h != nil {
				name = h.String()
			} else if h := msg.Headers.Get(":exception-type"); h != nil {
				name = h.String()
			}
			out = append(out, frame{name: name, data: msg.Payload})
		}
		return out, nil
	case formNDJSON:
		var out []frame
		for line := range bytes.Lines(body) {
			if t := bytes.TrimSpace(line); len(t) > 0 {
				out = append(out, frame{data: t})
			}
		}
		return out, nil
	case formArray:
		var items []json.RawMessage
		if err := json.Unmarshal(body, &items); err != nil {
			return nil, err
		}
		out := make([]frame, len(items))
		for i, it := range items {
			out[i] = frame{data: it}
		}
		return out, nil
	}
	return []frame{{data: body}}, nil
}

// kindOf names a payload's kind: its "type", else its "object", else the
// event's name, else "done" or "not done" for a payload with a boolean
// "done"; "" for a payload none of these tells apart. [DONE] and other
// non-JSON data are their own kind.
func kindOf(fr frame, v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		if v == nil && len(bytes.TrimSpace(fr.data)) > 0 {
			return "data " + string(bytes.TrimSpace(fr.data))
		}
		return "non-object"
	}
	if t, ok := m["type"].(string); ok {
		return t
	}
	if o, ok := m["object"].(string); ok {
		return o
	}
	if fr.name != "" {
		return fr.name
	}
	if d, ok := m["done"].(bool); ok {
		if d {
			return "done"
		}
		return "not done"
	}
	return ""
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64, json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

// maxShapeDepth bounds how deep a payload's objects are compared.
const maxShapeDepth = 24

// objectShape is what the recordings say of the objects at one path of one
// kind: how many there were, and for each key how many had it and with
// which JSON types.
type objectShape struct {
	n     int
	count map[string]int
	types map[string]map[string]bool
}

// shapes are the objects of one form of one protocol, by kind and path.
type shapes map[string]map[string]*objectShape

// objects calls fn with every object in v and its path: keys joined with
// ".", array elements as "[]", and each object that has a string "type"
// refined by it ("content[](tool_use)"), else by its only object-valued key
// ("content[]{toolUse}"), since objects of different types carry different
// keys.
func objects(v any, path string, depth int, args map[string]bool, fn func(path string, m map[string]any)) {
	if depth > maxShapeDepth {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if len(args) > 0 && args[canonicalJSON(x)] {
			return // a call's arguments: the tool's data, not the wire's fields
		}
		if t, ok := x["type"].(string); ok && path != "" {
			path += "(" + t + ")"
		} else if k := soleObjectKey(x); k != "" && path != "" {
			path += "{" + k + "}"
		}
		fn(path, x)
		for k, c := range x {
			objects(c, path+"."+k, depth+1, args, fn)
		}
	case []any:
		for _, c := range x {
			objects(c, path+"[]", depth+1, args, fn)
		}
	}
}

// soleObjectKey returns the key of an object's only object-valued member,
// or "": a union without a "type" (Bedrock's {"toolUse": {...}} content
// and deltas, Gemini's {"functionCall": {...}} parts) is told apart by it.
func soleObjectKey(m map[string]any) string {
	key := ""
	for k, v := range m {
		if _, ok := v.(map[string]any); ok {
			if key != "" {
				return ""
			}
			key = k
		}
	}
	return key
}

func decodeJSON(data []byte) (any, bool) {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil, false
	}
	return v, true
}

// canonicalJSON is v marshalled with sorted keys.
func canonicalJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// argsOf returns the canonical JSON of the arguments of every call the
// protocol's decoder reads in a body, so that the objects that are a
// call's arguments are left out of the field sets.
func argsOf(protocol string, f form, body []byte) map[string]bool {
	a, err := adapterFor(protocol, f == formArray)
	if err != nil {
		return nil
	}
	var resp *core.Response
	if f == formWhole {
		resp, _ = a.DecodeResponse(body)
	} else {
		resp, _ = core.Collect(a.DecodeStream(bytes.NewReader(body)))
	}
	if resp == nil {
		return nil
	}
	out := map[string]bool{}
	for _, c := range append(resp.Calls(), resp.Incomplete...) {
		if v, ok := decodeJSON(c.Arguments); ok {
			out[canonicalJSON(v)] = true
		}
	}
	return out
}

// add counts one recorded payload.
func (s shapes) add(kind string, v any, args map[string]bool) {
	byPath := s[kind]
	if byPath == nil {
		byPath = map[string]*objectShape{}
		s[kind] = byPath
	}
	objects(v, "", 0, args, func(path string, m map[string]any) {
		o := byPath[path]
		if o == nil {
			o = &objectShape{count: map[string]int{}, types: map[string]map[string]bool{}}
			byPath[path] = o
		}
		o.n++
		for k, c := range m {
			o.count[k]++
			if o.types[k] == nil {
				o.types[k] = map[string]bool{}
			}
			o.types[k][jsonType(c)] = true
		}
	})
}

// check lists what a written payload of a kind lacks or types otherwise
// than every recorded one; compared reports whether the kind was recorded.
func (s shapes) check(kind string, v any, args map[string]bool) (problems []string, compared bool) {
	byPath := s[kind]
	if byPath == nil {
		return nil, false
	}
	objects(v, "", 0, args, func(path string, m map[string]any) {
		o := byPath[path]
		if o == nil {
			return
		}
		for k, n := range o.count {
			c, ok := m[k]
			switch {
			case !ok && n == o.n:
				problems = append(problems, fmt.Sprintf("%s: %s.%s missing (in all %d recorded)", kind, path, k, o.n))
			case ok && !o.types[k][jsonType(c)]:
				problems = append(problems, fmt.Sprintf("%s: %s.%s is %s (recorded: %s)", kind, path, k, jsonType(c), strings.Join(sortedKeys(o.types[k]), ", ")))
			}
		}
	})
	return problems, true
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// framing is what the recordings of one protocol say of one form's
// framing: media types, each kind's event names, and the kind of the last
// payload of a whole stream. Only recordings of whole HTTP exchanges count
// (a chunk fixture kept the payloads, not their framing).
type framing struct {
	ctypes map[string]bool
	names  map[string]map[string]bool
	last   map[string]bool
}

// recorded is what the recordings of one protocol hold, per form.
type recorded struct {
	shapes  map[form]shapes
	framing map[form]*framing
	// bodies counts the recorded payloads read.
	bodies int
}

// otherEndpoint reports whether a recorded body is of another endpoint
// than the protocol's (Protocol.Requirements with Carried nil): serve
// never sends it, and it is no model of what the protocol's endpoint sends.
func otherEndpoint(protocol string, body []byte) bool {
	for _, q := range requirementsOf(protocol, &scenarios.Scenario{Body: body}) {
		if q.Carried == nil {
			return true
		}
	}
	return false
}

// readRecorded reads a protocol's successful recorded responses. Ollama
// has no recordings in the corpus: its expected sets come from the bodies
// of its scenarios, written in the shape of Ollama's API documentation
// (scenarios/cases/ollama), the only source there is.
func readRecorded(t *testing.T, protocol string, all []*scenarios.Scenario) *recorded {
	t.Helper()
	rec := &recorded{shapes: map[form]shapes{}, framing: map[form]*framing{}}
	addBody := func(ctype string, stream, fixture bool, body []byte) {
		f := formOf(ctype, stream, body)
		frs, err := frames(f, body)
		if err != nil || len(frs) == 0 {
			return
		}
		if rec.shapes[f] == nil {
			rec.shapes[f] = shapes{}
		}
		args := argsOf(protocol, f, body)
		var lastKind string
		for _, fr := range frs {
			v, ok := decodeJSON(fr.data)
			kind := kindOf(fr, v)
			lastKind = kind
			if ok {
				rec.shapes[f].add(kind, v, args)
				rec.bodies++
			}
			if !fixture {
				fm := rec.framingOf(f)
				if fm.names[kind] == nil {
					fm.names[kind] = map[string]bool{}
				}
				fm.names[kind][fr.name] = true
			}
		}
		if !fixture {
			fm := rec.framingOf(f)
			mt, _, _ := mime.ParseMediaType(ctype)
			fm.ctypes[mt] = true
			if f != formWhole {
				fm.last[lastKind] = true
			}
		}
	}
	if protocol == "ollama" {
		for _, sc := range all {
			if slices.Equal(sc.Protocols, []string{protocol}) && len(sc.Body) > 0 && !sc.Want.ExpectsError() {
				addBody("application/x-ndjson", sc.Kind == scenarios.KindStream, true, sc.Body)
			}
		}
		return rec
	}
	names, err := cassettes.Glob(protocol)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		c, err := cassettes.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		fixture := strings.Contains(name, ".chunks.txt") || strings.HasSuffix(name, ".json.yaml")
		for _, in := range c.Interactions {
			body := []byte(in.Response.Body)
			if in.Response.Code != http.StatusOK || otherEndpoint(protocol, body) {
				continue
			}
			stream := strings.Contains(in.Request.URL, "stream") || strings.Contains(in.Request.Body, `"stream":true`) || strings.Contains(in.Request.Body, `"stream": true`)
			addBody(in.Response.Headers.Get("Content-Type"), stream, fixture, body)
		}
	}
	return rec
}

func (r *recorded) framingOf(f form) *framing {
	fm := r.framing[f]
	if fm == nil {
		fm = &framing{ctypes: map[string]bool{}, names: map[string]map[string]bool{}, last: map[string]bool{}}
		r.framing[f] = fm
	}
	return fm
}

// served is one answer serve wrote.
type served struct {
	scenario string
	status   int
	ctype    string
	stream   bool
	body     []byte
	// complete: the reference decoder reads the answer whole, with a
	// finish and no error, so it must end as recorded streams end.
	complete bool
	// finish is the raw finish value the reference decoder reads.
	finish string
	// own is the scenario's own bytes: a finish value they hold is the
	// case's, passed on unchanged, not one serve made up.
	own []byte
}

// fieldChecker collects the problems of the answers of one protocol.
type fieldChecker struct {
	protocol string
	rec      *recorded
	problems map[string][]string // problem -> scenarios (at most 3)
	compared map[string]int      // form/kind -> payloads compared
}

func (c *fieldChecker) report(problem, scenario string) {
	if l := c.problems[problem]; len(l) < 3 && !slices.Contains(l, scenario) {
		c.problems[problem] = append(l, scenario)
	} else if l == nil {
		c.problems[problem] = []string{scenario}
	}
}

func (c *fieldChecker) check(s served) {
	f := formOf(s.ctype, s.stream, s.body)
	if s.status != http.StatusOK {
		c.report(fmt.Sprintf("status %d for an answer the scenario serves", s.status), s.scenario)
		return
	}
	if s.finish != "" && !slices.Contains(descriptor(c.protocol).FinishReasons, s.finish) && !bytes.Contains(s.own, []byte(s.finish)) {
		c.report(fmt.Sprintf("finish %q outside the protocol's vocabulary (Protocol.FinishReasons)", s.finish), s.scenario)
	}
	frs, err := frames(f, s.body)
	if err != nil {
		if s.complete {
			c.report(fmt.Sprintf("%s: frames unreadable: %v", f, err), s.scenario)
		}
	}
	fm := c.rec.framing[f]
	sh := c.rec.shapes[f]
	if sh == nil && f == formWhole {
		// No whole body recorded (Ollama): a whole body is compared with
		// the stream payloads of its kind (Ollama's is its stream's last
		// line, with the whole message).
		for _, other := range []form{formNDJSON, formSSE, formEvents} {
			if sh = c.rec.shapes[other]; sh != nil {
				break
			}
		}
	}
	if fm == nil && sh == nil {
		c.report(fmt.Sprintf("form %s (%s) never recorded", f, s.ctype), s.scenario)
		return
	}
	if fm != nil {
		mt, _, _ := mime.ParseMediaType(s.ctype)
		if !fm.ctypes[mt] {
			c.report(fmt.Sprintf("%s: content type %s (recorded: %s)", f, mt, strings.Join(sortedKeys(fm.ctypes), ", ")), s.scenario)
		}
	}
	last := ""
	args := argsOf(c.protocol, f, s.body)
	for _, fr := range frs {
		v, ok := decodeJSON(fr.data)
		kind := kindOf(fr, v)
		last = kind
		if fm != nil && fm.names[kind] != nil && !fm.names[kind][fr.name] {
			c.report(fmt.Sprintf("%s: %s event named %q (recorded: %q)", f, kind, fr.name, sortedKeys(fm.names[kind])), s.scenario)
		}
		if !ok {
			continue
		}
		problems, compared := sh.check(kind, v, args)
		if compared {
			c.compared[string(f)+" "+kind]++
		}
		for _, p := range problems {
			c.report(string(f)+" "+p, s.scenario)
		}
	}
	if s.complete && f != formWhole && fm != nil && len(fm.last) > 0 && !fm.last[last] {
		c.report(fmt.Sprintf("%s: a whole stream ends with %q (recorded streams end with: %s)", f, last, strings.Join(sortedKeys(fm.last), ", ")), s.scenario)
	}
}

// fetchRaw sends req for the scenario as client c would and returns the
// answer's bytes.
func fetchRaw(t *testing.T, c *client, req *core.Request) served {
	t.Helper()
	a, err := providers.Lookup(c.protocol)
	if err != nil {
		t.Fatal(err)
	}
	req.Stream = c.stream
	body, err := a.EncodeRequest(req)
	if err != nil {
		t.Fatalf("%s: encode request: %v", c.name, err)
	}
	url := c.url(t)
	if c.optIn {
		url, body = optInRequest(t, c.protocol, url, body)
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	out := served{scenario: c.name, status: resp.StatusCode, ctype: resp.Header.Get("Content-Type"), stream: c.stream, body: got}
	if resp.StatusCode == http.StatusOK {
		var r *core.Response
		if c.stream {
			r, err = core.Collect(a.DecodeStream(bytes.NewReader(got)))
		} else {
			r, err = a.DecodeResponse(got)
		}
		out.complete = err == nil && r != nil && r.Finish != "" && r.Error == nil
		if r != nil {
			out.finish = r.ProviderFinish
		}
	}
	return out
}

// gapsFile lists the known differences between what serve writes and the
// recordings, one "protocol<TAB>problem" a line: each must still be found
// (a fixed one is removed from the list), and no other may appear.
const gapsFile = "testdata/fieldset-gaps.txt"

// gapKey is a problem without its counts: "sse message_start:
// .message.usage missing (in all 23 recorded)" is "sse message_start:
// .message.usage missing".
func gapKey(problem string) string {
	if i := strings.Index(problem, " ("); i >= 0 {
		return problem[:i]
	}
	return problem
}

// readGaps reads gapsFile by protocol.
func readGaps(t *testing.T) map[string]map[string]bool {
	t.Helper()
	data, err := os.ReadFile(gapsFile)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]bool{}
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		protocol, problem, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("%s:%d: want protocol<TAB>problem, got %q", gapsFile, i+1, line)
		}
		if out[protocol] == nil {
			out[protocol] = map[string]bool{}
		}
		out[protocol][problem] = true
	}
	return out
}

// TestServedFieldSets serves every servable scenario of every protocol,
// whole and streamed (and, for Gemini, as the one JSON array), to a
// request with and without the options scenarios depend on, then sends the
// follow-up a client would and reads serve's final answer: every answer
// with status 200 must carry every field of its recorded kind, typed as
// recorded, in a recorded media type, with recorded event names, end as
// recorded streams end when it is whole, and finish, if it does, with a
// value of the protocol's own vocabulary (Protocol.FinishReasons).
func TestServedFieldSets(t *testing.T) {
	all := builtin(t)
	gaps := readGaps(t)
	s, ts := newServer(t, Options{})
	byProtocol := map[string][]string{}
	for _, name := range s.Names() {
		p, _ := s.Protocol(name)
		byProtocol[p] = append(byProtocol[p], name)
	}
	for _, protocol := range providers.Names() {
		t.Run(protocol, func(t *testing.T) {
			rec := readRecorded(t, protocol, all)
			if rec.bodies < 5 {
				t.Fatalf("%d recorded payloads of %s; want the corpus", rec.bodies, protocol)
			}
			fc := &fieldChecker{protocol: protocol, rec: rec, problems: map[string][]string{}, compared: map[string]int{}}
			ep, _ := providers.HTTP(protocol)
			answers, refusals, constructed := 0, 0, 0
			for _, name := range byProtocol[protocol] {
				sc := s.index[name].sc
				modes := []struct{ stream, array bool }{{false, false}, {true, false}}
				if ep.JSONArrayStream {
					modes = append(modes, struct{ stream, array bool }{true, true})
				}
				for _, m := range modes {
					for _, optIn := range []bool{false, true} {
						c := &client{base: ts.URL, name: name, protocol: protocol, stream: m.stream, tools: sc.Tools, optIn: optIn}
						req := &core.Request{
							Messages:  []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("conform: please call the tools")}}},
							Tools:     c.tools,
							MaxTokens: 1024,
						}
						first := fetchArray(t, c, req, m.array)
						first.own = sc.Body
						s.mu.Lock()
						delete(s.verdicts, name)
						s.mu.Unlock()
						if first.status == http.StatusBadRequest {
							continue // not applicable to this request
						}
						e := s.index[name]
						if _, refused := refusalOf(e, m.array); refused {
							refusals++ // the API's error status and body (TestRefusalStatus)
							continue
						}
						if replays(e, m.stream, m.array) && !strings.Contains(name, "/recorded/") {
							// A case's own constructed bytes, replayed: what
							// they lack or mistype is the fault the case is
							// about. What serve encodes from them is checked.
							constructed++
						} else {
							answers++
							fc.check(first)
						}
						if first.status != http.StatusOK || !first.complete {
							continue
						}
						a, _ := adapterFor(protocol, m.array)
						resp := decodeServed(a, first.body, m.stream)
						calls := resp.Calls()
						if len(calls) == 0 {
							continue
						}
						var results []core.Part
						for _, call := range calls {
							results = append(results, core.ResultPart(core.Result{CallID: call.ID, Name: call.Name, Content: []core.Part{core.TextPart(string(call.Arguments))}}))
						}
						turn := resp.Message
						turn.Role = core.RoleAssistant
						req.Messages = append(req.Messages, turn, core.Message{Role: core.RoleTool, Parts: results})
						final := fetchArray(t, c, req, m.array)
						answers++
						fc.check(final)
					}
				}
			}
			t.Logf("%d answers of %d scenarios checked (%d refusals and %d replays of constructed case bytes left out); payloads compared by form and kind: %v", answers, len(byProtocol[protocol]), refusals, constructed, fc.compared)
			if len(fc.compared) == 0 {
				t.Errorf("no payload compared with a recorded kind")
			}
			known := gaps[protocol]
			for problem := range fc.problems {
				if known[gapKey(problem)] {
					delete(fc.problems, problem)
					delete(known, gapKey(problem))
				}
			}
			if len(known) > 0 {
				t.Errorf("known gaps of %s no longer found; remove them from %s: %q", protocol, gapsFile, sortedKeys(known))
			}
			if diff := cmp.Diff(map[string][]string{}, fc.problems); diff != "" {
				t.Errorf("what serve writes differs from every recording of its kind (problem: scenarios) (-want +got):\n%s", diff)
			}
		})
	}
}

// fetchArray is fetchRaw for the JSON array form when array is set: the
// Gemini stream URL without alt=sse.
func fetchArray(t *testing.T, c *client, req *core.Request, array bool) served {
	t.Helper()
	if !array {
		return fetchRaw(t, c, req)
	}
	a := &arrayClient{client: *c}
	return a.fetch(t, req)
}

// arrayClient asks for the one-JSON-array stream.
type arrayClient struct{ client }

func (c *arrayClient) fetch(t *testing.T, req *core.Request) served {
	t.Helper()
	ep, _ := providers.HTTP(c.protocol)
	a, _ := providers.Lookup(c.protocol)
	req.Stream = true
	body, err := a.EncodeRequest(req)
	if err != nil {
		t.Fatalf("%s: encode request: %v", c.name, err)
	}
	url := ep.URL(c.base+ScenarioPrefix+c.name, ep.DefaultModel, true)
	if i := strings.Index(url, "?"); i >= 0 {
		url = url[:i]
	}
	if c.optIn {
		url, body = optInRequest(t, c.protocol, url, body)
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	out := served{scenario: c.name, status: resp.StatusCode, ctype: resp.Header.Get("Content-Type"), stream: true, body: got}
	if resp.StatusCode == http.StatusOK {
		arr, _ := adapterFor(c.protocol, true)
		r, err := core.Collect(arr.DecodeStream(bytes.NewReader(got)))
		out.complete = err == nil && r != nil && r.Finish != "" && r.Error == nil
		if r != nil {
			out.finish = r.ProviderFinish
		}
	}
	return out
}
