package scenarios

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/scenarios/fakeadapter"
)

// ndjson events of two interleaved calls, the second left open.
const fakeStream = `{"kind":"text","text":"Let me check."}
{"kind":"call_start","chunk":{"index":0,"has_index":true,"id":"c1","name":"a","start":true}}
{"kind":"call_start","chunk":{"index":1,"has_index":true,"id":"c2","name":"b","start":true}}
{"kind":"call_delta","chunk":{"index":0,"has_index":true,"args_delta":"{\"x\":"}}
{"kind":"call_delta","chunk":{"index":1,"has_index":true,"args_delta":"{\"y\":"}}
{"kind":"call_delta","chunk":{"index":0,"has_index":true,"args_delta":"1}"}}
{"kind":"call_end","chunk":{"index":0,"has_index":true}}
{"kind":"call_delta","chunk":{"index":1,"has_index":true,"args_delta":"2"}}
{"kind":"finish","finish_reason":"length","provider_finish_reason":"max_tokens"}
`

func mustParse(t *testing.T, name, data string) *Scenario {
	t.Helper()
	sc, err := Parse(name, name+".txtar", []byte(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func streamCase(t *testing.T, name, wants string) *Scenario {
	return mustParse(t, name, "Engine test.\n\nseverity: MUST\nguards: A05 B09\nprotocol: fake\nkind: stream\n-- response.ndjson --\n"+fakeStream+wants)
}

// summary reduces results to what the tests compare.
type summary struct {
	Name, Status, Reason string
	Rules                []string
}

func summarize(rs []Result) []summary {
	var out []summary
	for _, r := range rs {
		s := summary{Name: r.Name, Status: string(r.Status), Reason: r.Reason}
		for _, p := range r.Problems {
			s.Rules = append(s.Rules, p.Rule)
		}
		out = append(out, s)
	}
	return out
}

func TestCheckStream(t *testing.T) {
	pass := streamCase(t, "fake/streaming/pass", `-- want/calls.json --
[{"id":"c1","name":"a","arguments":{"x":1}}]
-- want/incomplete.json --
[{"id":"c2","name":"b","original":"{\"y\":2"}]
-- want/error.txt --
tool call incomplete: "c2"
-- want/text.txt --
Let me check.
-- want/finish.txt --
length max_tokens
`)
	// Every want is wrong: every problem must be reported, not just the first.
	fail := streamCase(t, "fake/streaming/fail", `-- want/calls.json --
[{"id":"c1","name":"a","arguments":{"x":1}},{"id":"c2","name":"b","arguments":{"y":2}}]
-- want/text.txt --
Checking.
-- want/finish.txt --
tool_calls tool_calls
`)
	results, err := Check([]core.Adapter{fakeadapter.New("fake"), fakeadapter.New("other")}, []*Scenario{pass, fail}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []summary{
		{Name: "fake/streaming/pass", Status: "pass"},
		{Name: "fake/streaming/fail", Status: "fail", Rules: []string{"decode", "calls", "incomplete", "text", "finish", "provider-finish"}},
	}
	if diff := cmp.Diff(want, summarize(results)); diff != "" {
		t.Fatalf("results (-want +got):\n%s", diff)
	}
	calls := results[1].Problems[1].String()
	for _, s := range []string{"[A05 B09] calls: complete tool calls differ", "(-want +got)"} {
		if !strings.Contains(calls, s) {
			t.Errorf("calls problem lacks %q:\n%s", s, calls)
		}
	}
	if !hasDiffLine(calls, '-', `"id": "c2",`) {
		t.Errorf("calls diff lacks a -want line for call c2:\n%s", calls)
	}
}

func TestCheckCanonical(t *testing.T) {
	cases, err := LoadBuiltin(VCRResolver(cassettes.Load))
	if err != nil {
		t.Fatal(err)
	}
	noStream := fakeadapter.New("nostream")
	noStream.NoStreamEncoding = true
	results, err := Check([]core.Adapter{fakeadapter.New("fake"), noStream}, cases,
		Options{Run: []Pattern{MustCompilePattern("//A05-round-robin")}})
	if err != nil {
		t.Fatal(err)
	}
	want := []summary{
		{Name: "fake/streaming/A05-round-robin-interleaving", Status: "pass"},
		{Name: "nostream/streaming/A05-round-robin-interleaving", Status: "skip", Reason: "encode-stream: encode stream: unsupported operation"},
	}
	if diff := cmp.Diff(want, summarize(results)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

func TestCheckHistory(t *testing.T) {
	const req = `-- request.json --
{"messages":[
 {"role":"user","parts":[{"kind":"text","text":"weather?"}]},
 {"role":"assistant","parts":[{"kind":"tool_call","call":{"id":"c1","name":"w","arguments":{}}}]},
 {"role":"user","parts":[{"kind":"text","text":"never mind"}]}
]}
`
	head := "History test.\n\nseverity: MUST\nguards: G01\nprotocols: *\nkind: history\n"
	good := mustParse(t, "any/history/good", head+req+"-- want/error.txt --\ntool call without a result: c1\n")
	bad := mustParse(t, "any/history/bad", head+req+"-- want/error.txt --\nsomething else\n")
	enc := mustParse(t, "any/history/enc", head+strings.Replace(req, `"text":"never mind"`, `"text":"x"}, {"kind":"tool_result","result":{"call_id":"c1","content":[]}`, 1)+
		"-- want/request.json --\n{\"messages\":[]}\n")
	results, err := Check([]core.Adapter{fakeadapter.New("fake")}, []*Scenario{good, bad, enc}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []summary{
		{Name: "fake/history/good", Status: "pass"},
		{Name: "fake/history/bad", Status: "fail", Rules: []string{"history-rule"}},
		{Name: "fake/history/enc", Status: "fail", Rules: []string{"encoded-request"}},
	}
	if diff := cmp.Diff(want, summarize(results)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

func TestCheckRequestRoundTrip(t *testing.T) {
	sc := mustParse(t, "any/request/rt", `Round trip.

severity: SHOULD
guards:
protocols: *
kind: request
-- tools.json --
[{"name":"w","input_schema":{"type":"object"}}]
-- request.json --
{"messages":[{"role":"user","parts":[{"kind":"text","text":"hi"}]}]}
`)
	results, err := Check([]core.Adapter{fakeadapter.New("fake"), lossy{fakeadapter.New("lossy")}}, []*Scenario{sc}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []summary{
		{Name: "fake/request/rt", Status: "pass"},
		{Name: "lossy/request/rt", Status: "fail", Rules: []string{"round-trip"}},
	}
	if diff := cmp.Diff(want, summarize(results)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if d := results[1].Problems[0].Diff; !hasDiffLine(d, '-', `"tools": [`) {
		t.Errorf("round-trip diff does not show the lost tools:\n%s", d)
	}
}

// lossy drops the tools when it decodes a request.
type lossy struct{ *fakeadapter.Adapter }

func (l lossy) DecodeRequest(b []byte) (*core.Request, error) {
	r, err := l.Adapter.DecodeRequest(b)
	if r != nil {
		r.Tools = nil
	}
	return r, err
}

func TestKnownFailingAndPatterns(t *testing.T) {
	pass := streamCase(t, "fake/streaming/pass", "-- want/calls.json --\n[{\"id\":\"c1\",\"name\":\"a\",\"arguments\":{\"x\":1}}]\n-- want/incomplete.json --\n[{\"id\":\"c2\",\"name\":\"b\",\"original\":\"{\\\"y\\\":2\"}]\n-- want/error.txt --\ntool call incomplete\n")
	fail := streamCase(t, "fake/streaming/fail", "")
	kf, err := ParsePatternList("known-failing.txt", []byte("# list\nfake/streaming/pass\nfake//fail\nfake//nothing-like-this\n"))
	if err != nil {
		t.Fatal(err)
	}
	results, err := Check([]core.Adapter{fakeadapter.New("fake")}, []*Scenario{pass, fail}, Options{KnownFailing: kf})
	want := []summary{
		{Name: "fake/streaming/pass", Status: "fail", Rules: []string{"known-failing"}},
		{Name: "fake/streaming/fail", Status: "known-failing", Reason: "listed in known-failing.txt:3", Rules: []string{"decode", "calls", "incomplete"}},
	}
	if diff := cmp.Diff(want, summarize(results)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if got, want := results[0].Problems[0].Message, "known-failing case now passes: remove it from known-failing.txt:2"; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
	var upe *UnmatchedPatternError
	if !errors.As(err, &upe) || upe.Option != "known-failing" || !strings.Contains(err.Error(), "known-failing.txt:4") {
		t.Errorf("error = %v, want an unmatched known-failing pattern at known-failing.txt:4", err)
	}

	_, err = Check([]core.Adapter{fakeadapter.New("fake")}, []*Scenario{pass}, Options{Run: []Pattern{MustCompilePattern("anthropic")}, Skip: []Pattern{MustCompilePattern("//nope")}})
	if err == nil || !strings.Contains(err.Error(), `run pattern matches no case: "anthropic"`) || !strings.Contains(err.Error(), `skip pattern matches no case: "//nope"`) {
		t.Errorf("error = %v, want unmatched run and skip patterns", err)
	}
}

func TestProgress(t *testing.T) {
	pass := streamCase(t, "fake/streaming/pass", "-- want/calls.json --\n[{\"id\":\"c1\",\"name\":\"a\",\"arguments\":{\"x\":1}}]\n-- want/incomplete.json --\n[{\"id\":\"c2\",\"name\":\"b\",\"original\":\"{\\\"y\\\":2\"}]\n-- want/error.txt --\ntool call incomplete\n")
	fail := streamCase(t, "fake/streaming/fail", "")
	skipped := streamCase(t, "fake/streaming/skipped", "")
	var got []string
	opts := Options{
		Skip: []Pattern{MustCompilePattern("//skipped")},
		Progress: func(done, total int, r Result) {
			got = append(got, fmt.Sprintf("%d/%d %s %s", done, total, r.Name, r.Status))
		},
	}
	if _, err := Check([]core.Adapter{fakeadapter.New("fake")}, []*Scenario{pass, fail, skipped}, opts); err != nil {
		t.Fatal(err)
	}
	want := []string{"1/2 fake/streaming/pass pass", "2/2 fake/streaming/fail fail"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress calls (-want +got):\n%s", diff)
	}
}

// panicky panics on every decode.
type panicky struct{ *fakeadapter.Adapter }

func (panicky) DecodeStream(io.Reader) core.EventStream { panic("boom") }

// readSized emits one text event per Read call, so its output depends on
// how the input is split.
type readSized struct{ *fakeadapter.Adapter }

func (readSized) DecodeStream(r io.Reader) core.EventStream { return &sizedStream{r: r} }

type sizedStream struct{ r io.Reader }

func (s *sizedStream) Next() (core.Event, error) {
	buf := make([]byte, 4096)
	n, err := s.r.Read(buf)
	if n > 0 {
		return core.Event{Kind: core.EventText, Text: "|"}, nil
	}
	return core.Event{}, err
}

func TestCheckAdapterFaults(t *testing.T) {
	sc := streamCase(t, "fake/streaming/x", "")
	results, _ := Check([]core.Adapter{panicky{fakeadapter.New("fake")}}, []*Scenario{sc}, Options{})
	if diff := cmp.Diff([]summary{{Name: "fake/streaming/x", Status: "fail", Rules: []string{"no-panic"}}}, summarize(results)); diff != "" {
		t.Errorf("panicking adapter (-want +got):\n%s", diff)
	}
	results, _ = Check([]core.Adapter{readSized{fakeadapter.New("fake")}}, []*Scenario{sc}, Options{})
	got := summarize(results)
	if len(got) != 1 || !strings.Contains(strings.Join(got[0].Rules, " "), "split-independence") {
		t.Errorf("read-size-dependent adapter: got %+v, want a split-independence problem", got)
	}
}

// refuser is a fake adapter that refuses every request with
// errors.ErrUnsupported, as an adapter does for a feature it lacks.
type refuser struct{ *fakeadapter.Adapter }

func (refuser) EncodeRequest(*core.Request) ([]byte, error) {
	return nil, fmt.Errorf("tool choice: %w", errors.ErrUnsupported)
}

// declaring is an adapter that declares the given features of its
// protocol (core.FeatureDeclarer).
type declaring struct {
	core.Adapter
	features []core.Feature
}

func (d declaring) Features() []core.Feature { return d.features }

// TestRequiresFeatures checks that a case requiring a feature runs only on
// adapters whose protocol has it, that such an adapter cannot skip it by
// refusing, and that an adapter declaring no features may.
func TestRequiresFeatures(t *testing.T) {
	sc := mustParse(t, "any/request/F08-named", `Forces a named tool.

severity: MUST
guards: F08
protocols: *
requires: named-tool-choice
kind: request
-- request.json --
{"model":"m","messages":[{"role":"user","parts":[{"kind":"text","text":"hi"}]}],
 "tools":[{"name":"t","input_schema":{"type":"object"}}],
 "tool_choice":{"mode":"tool","name":"t"}}
`)
	adapters := []core.Adapter{
		refuser{fakeadapter.New("undeclared")},
		declaring{refuser{fakeadapter.New("declares")}, []core.Feature{core.FeatureNamedToolChoice}},
		declaring{refuser{fakeadapter.New("lacks")}, []core.Feature{core.FeatureArgumentText}},
		declaring{fakeadapter.New("honest"), []core.Feature{core.FeatureNamedToolChoice}},
	}
	results, err := Check(adapters, []*Scenario{sc}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := summarize(results)
	for i := range got {
		got[i].Reason = ""
	}
	want := []summary{
		{Name: "undeclared/request/F08-named", Status: "skip"},
		{Name: "declares/request/F08-named", Status: "fail", Rules: []string{"feature"}},
		{Name: "honest/request/F08-named", Status: "pass"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
}

func TestRequiresParseErrors(t *testing.T) {
	for _, tt := range []struct{ name, header, want string }{
		{"any/request/x", "protocols: *\nrequires: teleport", `txtar:6: .*unknown feature "teleport"`},
		{"any/request/x", "protocols: *\nrequires: result-ids result-ids", `listed twice`},
		{"any/request/x", "protocols: *\nrequires:", `requires is empty`},
		{"fake/request/x", "protocol: fake\nrequires: result-ids", `requires: is for a case declared for several protocols`},
	} {
		data := "A case.\n\nseverity: MUST\nguards: F08\n" + tt.header + "\nkind: request\n-- request.json --\n{\"model\":\"m\",\"messages\":[]}\n"
		_, err := Parse(tt.name, tt.name+".txtar", []byte(data), nil)
		if err == nil || !regexp.MustCompile(tt.want).MatchString(err.Error()) {
			t.Errorf("%s: Parse error = %v, want one matching %q", tt.header, err, tt.want)
		}
	}
}

// TestSeedReplaysSplit: a split-independence problem names its seed, and
// Options.Seed decodes exactly that split again, with the same result.
func TestSeedReplaysSplit(t *testing.T) {
	sc := streamCase(t, "fake/streaming/x", "")
	seedOf := regexp.MustCompile(`\(seed (\d+),`)
	splitProblem := func(r Result) Problem {
		t.Helper()
		for _, p := range r.Problems {
			if p.Rule == "split-independence" {
				return p
			}
		}
		t.Fatalf("problems %v, want a split-independence problem", r.Problems)
		return Problem{}
	}
	first := splitProblem(CheckOne(readSized{fakeadapter.New("fake")}, sc, Options{}))
	m := seedOf.FindStringSubmatch(first.Message)
	if m == nil {
		t.Fatalf("message %q names no seed", first.Message)
	}
	seed, err := strconv.ParseUint(m[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	again := splitProblem(CheckOne(readSized{fakeadapter.New("fake")}, sc, Options{Seed: seed}))
	if diff := cmp.Diff(first, again); diff != "" {
		t.Errorf("replaying seed %d (-first +replay):\n%s", seed, diff)
	}
	none := CheckOne(readSized{fakeadapter.New("fake")}, sc, Options{Splits: -1})
	if slices.ContainsFunc(none.Problems, func(p Problem) bool { return p.Rule == "split-independence" }) {
		t.Errorf("with no splits: %v, want no split-independence problem", none.Problems)
	}
}

// decodeOnly has one operation of core.Adapter.
type decodeOnly struct{ a core.Adapter }

func (d decodeOnly) DecodeStream(r io.Reader) core.EventStream { return d.a.DecodeStream(r) }

// TestSubjectNotGraded: a subject lacking an operation a case needs leaves
// the case not graded, naming the operation; one it has is graded, under
// the subject's label and protocol.
func TestSubjectNotGraded(t *testing.T) {
	stream := streamCase(t, "fake/streaming/x", "-- want/calls.json --\n[{\"id\":\"c1\",\"name\":\"a\",\"arguments\":{\"x\":1}}]\n-- want/incomplete.json --\n[{\"id\":\"c2\",\"name\":\"b\",\"original\":\"{\\\"y\\\":2\"}]\n-- want/error.txt --\nincomplete\n-- want/text.txt --\nLet me check.\n-- want/finish.txt --\nlength\n")
	req := mustParse(t, "fake/request/y", "A request.\n\nseverity: MUST\nguards: F08\nprotocol: fake\nkind: request\n-- request.json --\n{\"model\":\"m\",\"messages\":[]}\n")
	subject := NewSubject(decodeOnly{fakeadapter.New("fake")}, "fake", nil, "mine")
	results, err := Check([]core.Adapter{subject}, []*Scenario{stream, req}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []summary{
		{Name: "fake/streaming/x", Status: "pass"},
		{Name: "fake/request/y", Status: "not-graded", Reason: "the adapter implements no request encoder"},
	}
	if diff := cmp.Diff(want, summarize(results)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	for _, r := range results {
		if r.Adapter != "mine" || r.Protocol != "fake" {
			t.Errorf("%s: adapter %q protocol %q, want mine, fake", r.Name, r.Adapter, r.Protocol)
		}
	}
}
