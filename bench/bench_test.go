package bench

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/openaichat"
)

// stream is one set of bodies to measure, with its size, its event count
// and the subjects that decode it.
type stream struct {
	name     string
	proto    string
	bodies   [][]byte
	subjects []Subject
	// fails[i] says that conform ends body i with an error (a recorded
	// provider error); only corpus-all streams hold such bodies.
	fails  []bool
	bytes  int
	events int
}

func newStream(name, proto string, subjects []Subject, bodies ...[]byte) stream {
	s := stream{name: name, proto: proto, bodies: bodies, subjects: subjects, fails: make([]bool, len(bodies))}
	for _, b := range bodies {
		s.bytes += len(b)
		s.events += StreamEvents(proto, b)
	}
	return s
}

// generated returns stream (a) and its Anthropic, Responses, Cohere and
// Bedrock ConverseStream framings (b): four calls of about 2 KB of
// arguments in 4-byte deltas; the same calls as Gemini and Ollama send
// them, whole, one chunk or line per call; and the tiny stream: one call of
// 20 bytes of arguments (TinyCall) in one delta.
func generated() []stream {
	calls := MakeCalls(4, 2048)
	tiny := []Call{TinyCall()}
	return []stream{
		newStream("openai-chat-4x2KB", OpenAIChat, Subjects(OpenAIChat), ChatStream(calls, 4)),
		newStream("anthropic-4x2KB", Anthropic, Subjects(Anthropic), AnthropicStream(calls, 4)),
		newStream("openai-responses-4x2KB", OpenAIResponses, Subjects(OpenAIResponses), ResponsesStream(calls, 4)),
		newStream("cohere-4x2KB", Cohere, Subjects(Cohere), CohereStream(calls, 4)),
		newStream("bedrock-4x2KB", Bedrock, Subjects(Bedrock), BedrockStream(calls, 4)),
		newStream("gemini-4x2KB", Gemini, Subjects(Gemini), GeminiStream(calls)),
		newStream("ollama-4x2KB", Ollama, Subjects(Ollama), OllamaStream(calls)),
		newStream("openai-chat-1x20B", OpenAIChat, Subjects(OpenAIChat), ChatStream(tiny, len(tiny[0].Args))),
	}
}

// corpus returns, for every protocol, the recorded streamed bodies (c):
// "<protocol>-corpus" holds those from which every subject rebuilds
// conform's calls (see Agreed), measured with every subject;
// "<protocol>-corpus-all" holds every recorded streamed body, measured
// with conform alone, so that no recorded body goes unmeasured.
func corpus(tb testing.TB) []stream {
	var out []stream
	for _, p := range Protocols {
		subs := Subjects(p)
		if len(subs) > 1 {
			bodies, _, err := Agreed(p)
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, newStream(p+"-corpus", p, subs, data(bodies)...))
		}
		all, err := CorpusStreams(p)
		if err != nil {
			tb.Fatal(err)
		}
		s := newStream(p+"-corpus-all", p, subs[:1], data(all)...)
		for i, body := range s.bodies {
			_, err := subs[0].Run(nil, body)
			s.fails[i] = err != nil
		}
		out = append(out, s)
	}
	return out
}

// data returns the bytes of bodies.
func data(bodies []Body) [][]byte {
	out := make([][]byte, len(bodies))
	for i, b := range bodies {
		out[i] = b.Data
	}
	return out
}

// measure runs fn over every body of s once per iteration and reports
// throughput, allocations per pass over the bodies (allocs/op, B/op),
// allocations per event, and the number of bodies (streams).
func measure(b *testing.B, s stream, fn func(i int, body []byte) error) {
	b.SetBytes(int64(s.bytes))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		for i, body := range s.bodies {
			if err := fn(i, body); err != nil {
				b.Fatal(err)
			}
		}
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N)/float64(s.events), "allocs/event")
	b.ReportMetric(float64(len(s.bodies)), "streams")
}

// BenchmarkStream measures every subject on the generated streams and on
// the recorded ones. It first measures the reference, bytes.IndexByte
// splitting stream (a) into lines (Floor), which times the machine in the
// same pass rather than any subject.
func BenchmarkStream(b *testing.B) {
	ref := generated()[0]
	b.Run("stream=reference/subject=indexbyte", func(b *testing.B) {
		sink := 0
		measure(b, ref, func(_ int, body []byte) error {
			sink += Floor(body)
			return nil
		})
		if sink == 0 {
			b.Fatal("the reference counted no lines")
		}
	})
	for _, s := range append(generated(), corpus(b)...) {
		for _, sub := range s.subjects {
			b.Run(fmt.Sprintf("stream=%s/subject=%s", s.name, sub.Name), func(b *testing.B) {
				// The list of calls is the harness's, reused from run to
				// run for every subject alike (see Subject.Run).
				var calls []Call
				measure(b, s, func(i int, body []byte) error {
					var err error
					calls, err = sub.Run(calls[:0], body)
					if (err != nil) != s.fails[i] {
						return fmt.Errorf("%s body %d: error %v, want an error: %t", s.name, i, err, s.fails[i])
					}
					return nil
				})
			})
		}
	}
}

// growthSizes are the argument sizes of BenchmarkGrowth.
var growthSizes = []struct {
	name string
	n    int
}{{"1KB", 1 << 10}, {"64KB", 64 << 10}, {"1MB", 1 << 20}, {"16MB", 16 << 20}}

// growthDelta is the delta size of the growth streams: large enough that
// a 16 MB call is not millions of events, small enough to be a stream.
const growthDelta = 128

// growthLimits lets one call hold 16 MB of arguments.
var growthLimits = core.WithLimits(core.Limits{MaxArgBytes: 64 << 20})

// BenchmarkGrowth measures conform on one call of growing size, reporting
// time and bytes allocated per argument byte; both must stay flat.
func BenchmarkGrowth(b *testing.B) {
	for _, size := range growthSizes {
		call := MakeCalls(1, size.n)
		body := ChatStream(call, growthDelta)
		argBytes := float64(len(call[0].Args))
		run := Conform(openaichat.New(), growthLimits)
		b.Run("args="+size.name+"/subject=conform", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var calls []Call
			for b.Loop() {
				var err error
				if calls, err = run(calls[:0], body); err != nil {
					b.Fatal(err)
				}
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/argBytes, "ns/argB")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/argBytes, "allocB/argB")
		})
	}
}
