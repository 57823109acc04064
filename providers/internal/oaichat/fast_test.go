package oaichat

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
	"github.com/toolconform/conform/providers/internal/idmap"
)

func fastTestCodec() *Codec {
	return New(Config{Name: "openai-chat", RequiredChoice: "required", MaxTokensField: "max_tokens", ReasoningField: "reasoning_content", StreamUsage: true})
}

// mistralTestCodec is the codec as the mistral adapter configures it:
// thinking in content and call ids mapped.
func mistralTestCodec() *Codec {
	return New(Config{Name: "mistral", RequiredChoice: "any", MaxTokensField: "max_tokens", ReasoningField: "reasoning_content", ThinkingInContent: true, ToolResultName: true,
		IDs: idmap.New(func(id string) bool { return len(id) == 9 }, func(id string, n int) string { return idmap.Hash(id, n, 9) }, 0)})
}

// decodeWith decodes a whole stream with the fast path on or off and
// returns its events and the facts of the error that ended it.
func decodeWith(c *Codec, body []byte, fast bool) ([]core.Event, adaptertest.ErrorFacts) {
	return decodeFrom(c, bytes.NewReader(body), fast)
}

// decodeFrom decodes the stream r holds with the fast path on or off.
func decodeFrom(c *Codec, r io.Reader, fast bool) ([]core.Event, adaptertest.ErrorFacts) {
	st := c.newStream(r)
	st.noFast = !fast
	return adaptertest.DrainFacts(st, ErrTooManyIDs)
}

// checkSame fails when the fast path changes anything the stream yields:
// events, their order, or the error that ends the stream.
func checkSame(t interface {
	Helper()
	Fatalf(string, ...any)
}, name string, body []byte) {
	t.Helper()
	for _, field := range []string{"reasoning_content", "reasoning", "mistral"} {
		c := fastTestCodec()
		if field == "mistral" {
			c = mistralTestCodec()
		} else {
			c.cfg.ReasoningField = field
		}
		slow, serr := decodeWith(c, body, false)
		fast, ferr := decodeWith(c, body, true)
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Fatalf("%s (%s first): fast path changes the events (-general +fast):\n%s", name, field, diff)
		}
		if diff := cmp.Diff(serr, ferr); diff != "" {
			t.Fatalf("%s (%s first): fast path changes the error (-general +fast):\n%s", name, field, diff)
		}
	}
}

// corpusBodies returns the recorded streamed bodies of the Chat
// Completions dialects.
func corpusBodies(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	for _, proto := range []string{"openai-chat", "mistral"} {
		names, err := cassettes.Glob(proto)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			c, err := cassettes.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			for i, in := range c.Interactions {
				if strings.Contains(in.Response.Body, "data:") {
					out[name+"#"+string(rune('0'+i%10))] = []byte(in.Response.Body)
				}
			}
		}
	}
	return out
}

// fastHits decodes a whole stream and returns how many events the fast
// path decoded, and the error that ended the stream, if any.
func fastHits(c *Codec, body []byte) (int, error) {
	st := c.newStream(bytes.NewReader(body))
	for {
		if _, err := st.Next(); err == io.EOF {
			return st.fastHits, nil
		} else if err != nil {
			return st.fastHits, err
		}
	}
}

// TestFastPathCorpus: on every recorded stream the fast path yields what
// the general path yields, and takes most delta events.
func TestFastPathCorpus(t *testing.T) {
	bodies := corpusBodies(t)
	if len(bodies) < 20 {
		t.Fatalf("only %d recorded streams", len(bodies))
	}
	for name, body := range bodies {
		checkSame(t, name, body)
	}
}

// TestFastPathSplitCorpus: on every recorded stream, cut into reads of
// random sizes, the fast path yields what the general path yields, with
// the openai-chat and the mistral configuration. Rapid draws the stream
// and the cuts; -rapid.seed replays a run.
func TestFastPathSplitCorpus(t *testing.T) {
	bodies := corpusBodies(t)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range bodies {
			if !yield(n) {
				return
			}
		}
	})
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.SampledFrom(names).Draw(t, "stream")
		c := fastTestCodec()
		if rapid.Bool().Draw(t, "mistral") {
			c = mistralTestCodec()
		}
		slow, serr := decodeWith(c, bodies[name], false)
		fast, ferr := decodeFrom(c, adaptertest.DrawSplitReader(t, bodies[name]), true)
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Fatalf("%s: fast path in split reads changes the events (-general +fast):\n%s", name, diff)
		}
		if diff := cmp.Diff(serr, ferr); diff != "" {
			t.Fatalf("%s: fast path in split reads changes the error (-general whole +fast split):\n%s", name, diff)
		}
	})
}

// TestFastPathEnvelope: a chunk whose envelope (the bytes before
// "choices") repeats the previous chunk's is decoded from the saved state
// of the scan, and an argument delta of the last one's shape (the same
// bytes around its index and its arguments) by that shape; one that
// differs from them in any byte is scanned whole. For a change of every
// byte of a recorded chunk, to each of a few values, the stream decodes as
// the general path decodes it.
func TestFastPathEnvelope(t *testing.T) {
	const head = `{"id":"chatcmpl-DuLe5uYcQLe3hznEQpmI0pr8qyHJ8","object":"chat.completion.chunk","created":1782321945,"model":"gpt-5-2025-08-07","service_tier":"default","system_fingerprint":null,"usage":null,`
	delta := func(index, args string) string {
		return head + `"choices":[{"index":0,"delta":{"tool_calls":[{"index":` + index + `,"function":{"arguments":"` + args + `"}}]},"finish_reason":null}],"obfuscation":"siIjP86UOiG4"}`
	}
	start := `{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}}]}`
	chunk, other := delta("0", `{\"a\"`), delta("12", `: \"b\u00e9\"}`)
	// The second chunk is read from the saved envelope, the third by the
	// shape of the second.
	body := []byte("data: " + start + "\n\ndata: " + chunk + "\n\ndata: " + chunk + "\n\ndata: " + other + "\n\n")
	checkSame(t, "repeated envelope", body)
	st := fastTestCodec().newStream(bytes.NewReader(body))
	for range 4 {
		if _, err := st.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if st.fastHits != 4 || string(st.env.prefix) != head || st.shape.hits != 2 {
		t.Fatalf("%d chunks on the fast path, %d by their shape, saved envelope %q; want 4, 2 and %q", st.fastHits, st.shape.hits, st.env.prefix, head)
	}
	for i := range len(chunk) {
		for _, b := range []byte{'"', '1', '0', 'x', ' ', ',', '}', 0xff, '\\'} {
			changed := []byte(chunk)
			if changed[i] == b {
				continue
			}
			changed[i] = b
			checkSame(t, "chunk byte changed", []byte("data: "+start+"\n\ndata: "+chunk+"\n\ndata: "+string(changed)+"\n\ndata: "+other+"\n\n"))
		}
	}
}

// TestFastPathTaken: the fast path decodes every chunk of a typical
// stream, start, deltas, finish and usage, which is what makes it worth
// having.
func TestFastPathTaken(t *testing.T) {
	var b strings.Builder
	b.WriteString(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]},"logprobs":null,"finish_reason":null}]}` + "\n\n")
	for range 100 {
		b.WriteString(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\""}}]},"logprobs":null,"finish_reason":null}]}` + "\n\n")
		b.WriteString(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"hi"},"logprobs":null,"finish_reason":null}]}` + "\n\n")
	}
	b.WriteString(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]}` + "\n\n")
	b.WriteString(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12,"prompt_tokens_details":{"cached_tokens":0}}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	hits, err := fastHits(fastTestCodec(), []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if hits != 203 {
		t.Errorf("fast path decoded %d chunks, want all 203", hits)
	}
	checkSame(t, "typical", []byte(b.String()))
}

// fastCases are payloads at the edge of the fast path's subset, each
// decoded by both paths.
var fastCases = []string{
	`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\\n\u00e9\ud83d\ude00"}}]},"logprobs":null,"finish_reason":null}]}`,
	`{"id":"c1","choices":[{"index":0,"delta":{"content":"h\u00e9llo \"x\""}}]}`,
	`{"choices":[{"index":0,"delta":{"content":""}}]}`,
	`{"choices":[{"index":0,"delta":{"content":null,"role":"assistant","refusal":null}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"x"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":""}}]}}]}`,
	`{"choices":[]}`,
	`{"choices":[],"usage":null}`,
	` { "choices" : [ { "index" : 0 , "delta" : { "content" : "a" } } ] } `,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_2","type":"function","function":{"name":"g","arguments":"{}"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_1","function":{"name":"f","arguments":"{\"a\""}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"","type":"","function":{"name":"","arguments":null}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":null}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"type":"function","function":{"name":"","arguments":"{\"q\": 1}"}}],"index":0,"content":""},"finish_reason":null,"logprobs":null}]}`,
	`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	`{"choices":[{"index":0,"delta":{},"finish_reason":"weird"}]}`,
	`{"choices":[{"index":0,"delta":{},"finish_reason":""}]}`,
	`{"choices":[{"index":0,"delta":{},"finish_reason":"st\u006fp"}]}`,
	`{"choices":[{"index":0,"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2}}`,
	`{"choices":[],"usage":{}}`,
	`{"choices":[],"usage":{"prompt_tokens":171,"total_tokens":185,"completion_tokens":14,"prompt_tokens_details":{"cached_tokens":128}}}`,
	`{"usage":null,"id":"x"}`,
	`{"id":"x"}`,
	`{"object":"chat.completion.chunk"}`,
	`{"object":"chat.completion"}`,
	`{"model":"m2","choices":[{"index":0,"delta":{"role":"assistant","content":"hi"}}]}`,
	// Outside the subset: the general path decides.
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"type":"other","function":{"name":"f"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":null,"function":{"name":"f"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","extra_content":{"google":{"thought_signature":"s"}},"function":{"name":"f"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f"}},{"index":1,"function":{"name":"g"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"\ud800"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"\ud800"}}]}}]}`,
	`{"choices":[{"index":0,"delta":null,"finish_reason":"stop"}]}`,
	`{"choices":[{"index":0,"delta":{},"finish_reason":1}]}`,
	`{"choices":[],"usage":{"prompt_tokens":-1}}`,
	`{"choices":[],"usage":{"prompt_tokens":1.5}}`,
	`{"choices":[],"usage":{"prompt_tokens":null}}`,
	`{"choices":[],"usage":{"Prompt_Tokens":3}}`,
	`{"choices":[],"usage":{"prompt_tokens":1,"prompt_tokens":2}}`,
	`{"choices":[],"usage":[]}`,
	`{"choices":null}`,
	`{}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":01,"function":{"arguments":"x"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1.0,"function":{"arguments":"x"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":-1,"function":{"arguments":"x"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1e0,"function":{"arguments":"x"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"Index":1,"function":{"arguments":"x"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"index":2,"function":{"arguments":"x"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"\ud83d"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"\ude00\ud83d"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"\ud83dx"}}]}`,
	"{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\xff\"}}]}",
	"{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\tb\"}}]}",
	`{"choices":[{"index":0,"delta":{"content":"\x"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"a"}}]} x`,
	`{"choices":[{"index":0,"delta":{"content":"a"}}],}`,
	`{"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"}}]}`,
	`{"choices":[{"index":1,"delta":{"content":"b"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}`,
	`{"object":"error","message":"boom"}`,
	`{"error":{"message":"boom"}}`,
	`{"choices":[{"index":0,"delta":{}}]}`,
	`{"created":"x","choices":[{"index":0,"delta":{"content":"a"}}]}`,
	`{"created":-1.5e+3,"choices":[{"index":0,"delta":{"content":"a"}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning_content":"think"}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning":"think","content":"a"}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning":"r","reasoning_content":"rc"}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning":"r","reasoning_content":""}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning":null,"reasoning_content":"\u00e9"}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning":1,"reasoning_content":"x"}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning":"\ud800","reasoning_content":"x"}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":{"a":1}}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":null}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[]}}]}`,
	`[1,2]`,
	// Keys the general path ignores are skipped; keys it would match with
	// another case are not.
	`{"provider":"x","x_groq":{"id":"q","a":[1,-2.5e3,true,false,null,{"b":[]}]},"choices":[{"index":0,"native_finish_reason":null,"delta":{"content":"a","annotations":[]}}]}`,
	`{"Choices":[{"index":0,"delta":{"content":"a"}}]}`,
	`{"ID":"x","choices":[{"index":0,"delta":{"content":"a"}}]}`,
	`{"choices":[{"INDEX":1,"index":0,"delta":{"content":"a"}}]}`,
	`{"choices":[{"index":0,"delta":{"Content":"b","content":"a"}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"Function":{"arguments":"x"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"x","NAME":"f"}}]}}]}`,
	`{"extra":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],"choices":[]}`,
	`{"extra":{"a":1,},"choices":[]}`,
	`{"extra":[1 2],"choices":[]}`,
	`{"extra":tru,"choices":[]}`,
	"{\"extra\":\"\xff\",\"choices\":[]}",
	"{\"\u0069d\":\"x\",\"choices\":[]}",
	"{\"\xc4\xb0d\":\"x\",\"choices\":[]}",
	`{"choices":[{"index":0,"delta":{"content":"a"`,
}

// TestFastPathCases: every edge case decodes the same with and without
// the fast path, alone and after a start chunk.
func TestFastPathCases(t *testing.T) {
	start := `{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}}]}`
	for i, p := range fastCases {
		checkSame(t, "case "+string(rune('A'+i%26)), []byte("data: "+p+"\n\ndata: [DONE]\n\n"))
		checkSame(t, "case "+string(rune('A'+i%26))+" after a start", []byte("data: "+start+"\n\ndata: "+p+"\n\ndata: "+p+"\n\n"))
	}
}

// FuzzFastPath: for any payload, twice after a start chunk, the fast path
// changes nothing the stream yields, and core.Collect collects the same
// with the stream's reuse of event storage (ReuseEventText) as without.
func FuzzFastPath(f *testing.F) {
	for _, p := range fastCases {
		f.Add(p)
	}
	for _, body := range corpusBodies(f) {
		for _, line := range strings.Split(string(body), "\n") {
			if p, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(p, "delta") {
				f.Add(p)
				break
			}
		}
	}
	start := `{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}}]}`
	f.Fuzz(func(t *testing.T, p string) {
		body := []byte("data: " + start + "\n\ndata: " + p + "\n\ndata: " + p + "\n\n")
		checkSame(t, "fuzz", body)
		adaptertest.CheckCollectReused(t, [][]byte{body}, reusingDecoder(fastTestCodec(), true))
	})
}

// fastBenchStream is a stream of one call's start and 300 argument and
// text deltas, most with JSON escapes in them, as models send them.
func fastBenchStream() []byte {
	var b bytes.Buffer
	b.WriteString(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]},"logprobs":null,"finish_reason":null}]}` + "\n\n")
	deltas := []string{`{\"city\"`, `: \"Par`, `is\", \"note\": \"caf\u00e9\\n`, `plain text delta`, `\ud83d\ude00\"}`}
	for i := range 300 {
		d := deltas[i%len(deltas)]
		if i%3 == 2 {
			b.WriteString(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"` + d + `"},"logprobs":null,"finish_reason":null}]}` + "\n\n")
			continue
		}
		b.WriteString(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","system_fingerprint":"fp","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"` + d + `"}}]},"logprobs":null,"finish_reason":null}]}` + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkFastPath decodes fastBenchStream with the fast path, which
// takes every chunk of it; the numbers are for the unescaping and the
// scanner, per stream of 300 deltas.
func BenchmarkFastPath(b *testing.B) {
	body := fastBenchStream()
	c := fastTestCodec()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		hits, err := fastHits(c, body)
		if err != nil {
			b.Fatal(err)
		}
		if hits != 301 {
			b.Fatalf("fast path took %d chunks, want 301", hits)
		}
	}
}
