package bench

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/providers/openaichat"
)

// TestGeneratedShape checks that stream (a) is what the benchmarks claim:
// about 700 KB in about 2,100 events, four calls of about 2 KB.
func TestGeneratedShape(t *testing.T) {
	calls := MakeCalls(4, 2048)
	for _, c := range calls {
		if n := len(c.Args); n < 2048 || n > 2200 {
			t.Errorf("call %s: %d bytes of arguments, want about 2 KB", c.ID, n)
		}
	}
	body := ChatStream(calls, 4)
	size, events := len(body), Events(body)
	t.Logf("openai-chat stream (a): %d bytes, %d events", size, events)
	if size < 650_000 || size > 750_000 {
		t.Errorf("stream (a) is %d bytes, want about 700 KB (650,000 to 750,000)", size)
	}
	if events < 2050 || events > 2150 {
		t.Errorf("stream (a) has %d events, want about 2,100 (2,050 to 2,150)", events)
	}
	if n := len(TinyCall().Args); n != 20 {
		t.Errorf("the tiny call has %d bytes of arguments, want 20", n)
	}
	for _, s := range []struct {
		name string
		body []byte
	}{{"anthropic", AnthropicStream(calls, 4)}, {"openai-responses", ResponsesStream(calls, 4)}, {"cohere", CohereStream(calls, 4)}} {
		t.Logf("%s stream (b): %d bytes, %d events", s.name, len(s.body), Events(s.body))
	}
	bedrock := BedrockStream(calls, 4)
	if n, want := Frames(bedrock), 2+2*len(calls)+len(interleave(calls, 4))+1; n != want {
		t.Errorf("bedrock stream (b) has %d frames, want %d", n, want)
	}
	t.Logf("bedrock stream (b): %d bytes, %d frames", len(bedrock), Frames(bedrock))
}

// TestEvents checks the SSE event counter on hand-written bodies.
func TestEvents(t *testing.T) {
	for _, tc := range []struct {
		body string
		want int
	}{
		{"", 0},
		{"data: x\n\n", 1},
		{"data: x", 1},
		{"event: a\ndata: x\ndata: y\n\ndata: z\r\n\r\n", 2},
		{": comment\n\nevent: ping\n\n", 0},
	} {
		if got := Events([]byte(tc.body)); got != tc.want {
			t.Errorf("Events(%q) = %d, want %d", tc.body, got, tc.want)
		}
	}
}

// TestFloor checks that the floor counts every line, the last one even
// without its line feed.
func TestFloor(t *testing.T) {
	for _, tc := range []struct {
		body string
		want int
	}{{"", 0}, {"a", 1}, {"a\n", 1}, {"a\n\nb", 3}} {
		if got := Floor([]byte(tc.body)); got != tc.want {
			t.Errorf("Floor(%q) = %d, want %d", tc.body, got, tc.want)
		}
	}
	body := ChatStream(MakeCalls(4, 2048), 4)
	if got, want := Floor(body), bytes.Count(body, []byte("\n")); got != want {
		t.Errorf("Floor(stream a) = %d, want %d", got, want)
	}
}

// normalise makes calls comparable across subjects: empty arguments, which
// some subjects report as "" and others as "{}", become "{}"; with asJSON
// (see ArgsAsJSON), arguments that are JSON are re-encoded with
// encoding/json, which sorts keys and drops spacing.
func normalise(calls []Call, asJSON bool) []Call {
	out := make([]Call, len(calls))
	for i, c := range calls {
		if c.Args == "" {
			c.Args = "{}"
		}
		if asJSON {
			var v any
			if json.Unmarshal([]byte(c.Args), &v) == nil {
				b, err := json.Marshal(v)
				if err == nil {
					c.Args = string(b)
				}
			}
		}
		out[i] = c
	}
	return out
}

// TestSubjectsAgreeGenerated checks, before anything is timed, that every
// subject rebuilds the generated calls exactly from every framing.
func TestSubjectsAgreeGenerated(t *testing.T) {
	calls := MakeCalls(4, 2048)
	anth := make([]Call, len(calls))
	for i, c := range calls {
		c.ID = anthropicID(c.ID)
		anth[i] = c
	}
	for _, s := range generated() {
		want := calls
		switch {
		case s.proto == Anthropic:
			want = anth
		case strings.HasSuffix(s.name, "-1x20B"):
			want = []Call{TinyCall()}
		}
		for _, sub := range Subjects(s.proto) {
			got, err := sub.Run(nil, s.bodies[0])
			if err != nil {
				t.Errorf("%s/%s: %v", s.name, sub.Name, err)
				continue
			}
			if ArgsAsJSON(s.proto) {
				// Whole-call protocols send arguments as objects, which
				// the naive decoders and SDKs re-encode.
				want, got = normalise(want, true), normalise(got, true)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s/%s: calls differ (-want +got):\n%s", s.name, sub.Name, diff)
			}
		}
	}
}

// TestSubjectsAgreeCorpus checks that the corpus benchmarks time only
// recorded streams from which every subject rebuilds conform's calls, and
// that those are most of them; the streams left out are listed.
func TestSubjectsAgreeCorpus(t *testing.T) {
	for _, p := range Protocols {
		all, err := CorpusStreams(p)
		if err != nil {
			t.Fatal(err)
		}
		agreed, excl, err := Agreed(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range excl {
			t.Logf("%s: left out: %s: %s", e.Body, e.Subject, e.Reason)
		}
		t.Logf("%s: %d of %d recorded streams agree", p, len(agreed), len(all))
		if len(agreed) == 0 || 2*len(agreed) < len(all) {
			t.Errorf("%s: only %d of %d recorded streams agree across subjects", p, len(agreed), len(all))
		}
		subs := Subjects(p)
		for _, body := range agreed {
			want, _ := subs[0].Run(nil, body.Data)
			for _, sub := range subs[1:] {
				got, err := sub.Run(nil, body.Data)
				if err != nil {
					t.Fatalf("%s/%s: %v", body.Name, sub.Name, err)
				}
				got = fillGeneratedIDs(p, want, got)
				if diff := cmp.Diff(normalise(want, ArgsAsJSON(p)), normalise(got, ArgsAsJSON(p))); diff != "" {
					t.Errorf("%s/%s: calls differ from conform's (-conform +%s):\n%s", body.Name, sub.Name, sub.Name, diff)
				}
			}
		}
	}
}

// TestDiffCalls checks the comparison Agreed relies on.
func TestDiffCalls(t *testing.T) {
	a := []Call{{ID: "1", Name: "f", Args: ""}}
	if d := diffCalls(a, []Call{{ID: "1", Name: "f", Args: "{}"}}, ""); d != "" {
		t.Errorf("empty and {} arguments differ: %s", d)
	}
	if d := diffCalls(a, []Call{{ID: "2", Name: "f"}}, ""); d == "" {
		t.Error("calls with other ids agree")
	}
	if d := diffCalls(a, nil, ""); d == "" {
		t.Error("a missing call agrees")
	}
	g := []Call{{ID: "gemini_call_x_0", Name: "f", Args: `{"a":1,"b":2}`}}
	if d := diffCalls(g, []Call{{Name: "f", Args: `{"b":2, "a":1}`}}, Gemini); d != "" {
		t.Errorf("gemini: an id-less call with the same arguments in another order differs: %s", d)
	}
	if d := diffCalls(g, []Call{{ID: "other", Name: "f", Args: `{"a":1,"b":2}`}}, Gemini); d == "" {
		t.Error("gemini: a call with another id agrees")
	}
	if d := diffCalls(g, []Call{{Name: "f", Args: `{"a":1,"b":3}`}}, Gemini); d == "" {
		t.Error("gemini: a call with other arguments agrees")
	}
	if d := diffCalls(g, []Call{{Name: "f", Args: `{"a":1,"b":2}`}}, OpenAIChat); d == "" {
		t.Error("openai-chat: a call without conform's id agrees")
	}
}

// TestGrowthStreams checks that conform rebuilds the one call of every
// growth size exactly.
func TestGrowthStreams(t *testing.T) {
	run := Conform(openaichat.New(), growthLimits)
	for _, size := range growthSizes {
		calls := MakeCalls(1, size.n)
		got, err := run(nil, ChatStream(calls, growthDelta))
		if err != nil {
			t.Errorf("%s: %v", size.name, err)
			continue
		}
		if len(got) != 1 || got[0] != calls[0] {
			t.Errorf("%s: got %d calls, want the one generated call intact", size.name, len(got))
		}
	}
}

// TestCorpusAll checks that the corpus-all streams hold every recorded
// streamed body of every protocol, each with at least one event, that the
// corpus streams hold only agreed bodies, and that the bodies conform ends
// with an error are the recorded provider errors and nothing else.
func TestCorpusAll(t *testing.T) {
	streams := map[string]stream{}
	for _, s := range corpus(t) {
		streams[s.name] = s
	}
	total, failing := 0, 0
	for _, p := range Protocols {
		all, err := CorpusStreams(p)
		if err != nil {
			t.Fatal(err)
		}
		s, ok := streams[p+"-corpus-all"]
		if !ok {
			t.Errorf("%s: no corpus-all stream", p)
			continue
		}
		if len(s.bodies) != len(all) || len(all) == 0 {
			t.Errorf("%s-corpus-all: %d bodies, want all %d recorded streams", p, len(s.bodies), len(all))
		}
		if len(s.subjects) != 1 || s.subjects[0].Name != "conform" {
			t.Errorf("%s-corpus-all: subjects %v, want conform alone", p, s.subjects)
		}
		for i, body := range all {
			if n := StreamEvents(p, body.Data); n == 0 {
				t.Errorf("%s: no events counted", body.Name)
			}
			if i < len(s.fails) && s.fails[i] {
				failing++
				if !strings.Contains(body.Name, "error") {
					t.Errorf("%s: conform ends with an error on a recording that is not a provider error", body.Name)
				}
			}
		}
		total += len(all)
		agreed, _, err := Agreed(p)
		if err != nil {
			t.Fatal(err)
		}
		if c, ok := streams[p+"-corpus"]; ok {
			if len(c.bodies) != len(agreed) {
				t.Errorf("%s-corpus: %d bodies, want the %d agreed", p, len(c.bodies), len(agreed))
			}
		} else if len(Subjects(p)) > 1 {
			t.Errorf("%s: no corpus stream", p)
		}
	}
	t.Logf("corpus-all: %d recorded streams, %d of them ending in a provider error", total, failing)
}

// TestStreamEvents checks the event counts of the non-SSE forms on
// hand-made bodies: AWS event-stream frames by their length prelude, and
// the elements of a Gemini JSON array.
func TestStreamEvents(t *testing.T) {
	frame := func(n int) []byte {
		b := make([]byte, n)
		binary.BigEndian.PutUint32(b, uint32(n))
		return b
	}
	two := append(frame(16), frame(40)...)
	for _, tc := range []struct {
		name  string
		proto string
		body  []byte
		want  int
	}{
		{"no frames", Bedrock, nil, 0},
		{"two frames", Bedrock, two, 2},
		{"a cut frame", Bedrock, two[:30], 2},
		{"a length too short", Bedrock, append(frame(16), 0, 0, 0, 3), 2},
		{"array", Gemini, []byte(` [{"a":1}, {"b":[1,2]} ,{}]`), 3},
		{"cut array", Gemini, []byte(`[{"a":1},{"b":`), 1},
		{"empty array", Gemini, []byte(`[]`), 0},
		{"gemini SSE", Gemini, []byte("data: {}\n\ndata: {}\n\n"), 2},
		{"other SSE", Cohere, []byte("event: x\ndata: [1]\n\n"), 1},
	} {
		if got := StreamEvents(tc.proto, tc.body); got != tc.want {
			t.Errorf("%s: StreamEvents = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestOfficialSDKsReadWhatTheyHandle checks that each official SDK driven
// over HTTP rebuilds conform's calls from every recorded stream of the
// form it reads, and that it fails on or misreads the others, which
// doc.go names: genai reads Gemini's SSE form, not the one-JSON-array form
// nor Vertex partialArgs. aws-sdk-go-v2 reads every recorded Bedrock
// stream, Converse and InvokeModelWithResponseStream alike.
func TestOfficialSDKsReadWhatTheyHandle(t *testing.T) {
	for _, tc := range []struct {
		protocol, sdk string
		handles       func(body []byte) bool
	}{
		{Gemini, "genai", func(b []byte) bool {
			return bytes.HasPrefix(bytes.TrimSpace(b), []byte("data:")) && !bytes.Contains(b, []byte("partialArgs"))
		}},
		{Bedrock, "aws-sdk-go-v2", func([]byte) bool { return true }},
	} {
		var sdk Subject
		subs := Subjects(tc.protocol)
		for _, s := range subs {
			if s.Name == tc.sdk {
				sdk = s
			}
		}
		if sdk.Run == nil {
			t.Fatalf("%s: no subject %s", tc.protocol, tc.sdk)
		}
		bodies, err := CorpusStreams(tc.protocol)
		if err != nil {
			t.Fatal(err)
		}
		handled, calls := 0, 0
		for _, body := range bodies {
			want, err := subs[0].Run(nil, body.Data)
			if err != nil {
				continue // a recorded provider error
			}
			got, err := sdk.Run(nil, body.Data)
			agrees := err == nil && diffCalls(want, got, tc.protocol) == ""
			switch {
			case tc.handles(body.Data) && !agrees:
				t.Errorf("%s: %s does not rebuild conform's calls from a stream it reads: error %v, calls %s", body.Name, tc.sdk, err, diffCalls(want, got, tc.protocol))
			case !tc.handles(body.Data) && agrees && len(want) > 0:
				t.Errorf("%s: %s rebuilds conform's calls from a stream doc.go says it does not read", body.Name, tc.sdk)
			}
			if tc.handles(body.Data) {
				handled++
				calls += len(want)
			}
		}
		t.Logf("%s: %s reads %d of %d recorded streams, %d calls", tc.protocol, tc.sdk, handled, len(bodies), calls)
		if calls == 0 {
			t.Errorf("%s: %s reads no recorded call", tc.protocol, tc.sdk)
		}
	}
}
