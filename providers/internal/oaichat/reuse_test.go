package oaichat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
	"github.com/toolconform/conform/providers/internal/jsonscan"
)

// reuseBodies returns the recorded streams and, besides them, streams of
// the shapes the fast path and the general path give events of reused
// storage for: long calls in 128-byte deltas (bench's growth stream),
// chunks of several events (reasoning and text, several tool calls),
// consolidated copies (B02) and every edge case of the fast path.
func reuseBodies(t *testing.T) [][]byte {
	corpus := corpusBodies(t)
	bodies := make([][]byte, 0, len(corpus)+len(fastCases)+8)
	for _, name := range slices.Sorted(maps.Keys(corpus)) {
		bodies = append(bodies, corpus[name])
	}
	const env = `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":`
	var long strings.Builder
	long.WriteString("data: " + env + `{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}}]}` + "\n\n")
	args := `{"s":"` + strings.Repeat(`a \"quoted\" line\n and more `, 5000) + `"}`
	for off := 0; off < len(args); off += 128 {
		d, _ := json.Marshal(args[off:min(off+128, len(args))])
		long.WriteString("data: " + env + `{"tool_calls":[{"index":0,"function":{"arguments":` + string(d) + `}}]}}]}` + "\n\n")
	}
	long.WriteString("data: " + env + `{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n")
	bodies = append(bodies, []byte(long.String()), fastBenchStream())
	several := "data: " + env + `{"reasoning_content":"th\u00efnk","content":"t\u00e9xt"}}]}` + "\n\n" +
		"data: " + env + `{"content":"more \"text\"","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":"}},{"index":1,"id":"call_2","type":"function","function":{"name":"g","arguments":"{\"b\":"}}]}}]}` + "\n\n" +
		"data: " + env + `{"tool_calls":[{"index":0,"function":{"arguments":"1}"}},{"index":1,"function":{"arguments":"2}"}}]}}]}` + "\n\n" +
		"data: " + env + `{"reasoning":"r","content":"a\nb"},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1,"completion_tokens":2}}` + "\n\ndata: [DONE]\n\n"
	copies := "data: " + env + `{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\""}}]}}]}` + "\n\n" +
		"data: " + env + `{"tool_calls":[{"index":0,"function":{"arguments":": \"x\"}"}}]}}]}` + "\n\n" +
		"data: " + env + `{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\": \"x\"}"}}]}}]}` + "\n\n" +
		"data: " + env + `{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"
	bodies = append(bodies, []byte(several), []byte(copies))
	start := `{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}}]}`
	for _, p := range fastCases {
		bodies = append(bodies, []byte("data: "+start+"\n\ndata: "+p+"\n\ndata: "+p+"\n\ndata: [DONE]\n\n"))
	}
	return bodies
}

// TestReuseEventText: with ReuseEventText, core.Collect gives the same
// Response and error as without it on every stream of reuseBodies, with
// the openai-chat and the mistral configuration, the fast path on and
// off, while the stream overwrites (poison) every piece of storage it
// reuses: an event's text or chunk reused before Collect has copied it
// changes what is collected.
func TestReuseEventText(t *testing.T) {
	bodies := reuseBodies(t)
	for _, codec := range []struct {
		name string
		c    *Codec
	}{{"openai-chat", fastTestCodec()}, {"mistral", mistralTestCodec()}} {
		for _, fast := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/fast=%t", codec.name, fast), func(t *testing.T) {
				var reused, taken int
				decode := reusingDecoder(codec.c, fast)
				adaptertest.CheckCollectReused(t, bodies, func(r io.Reader) core.EventStream {
					return &countedStream{g: decode(r).(*guardedStream), reused: &reused, taken: &taken}
				})
				// The check means something only if storage was reused:
				// chunks given back and taken again.
				if reused == 0 || taken == 0 {
					t.Fatalf("ReuseEventText called %d times, %d chunks taken from reused storage", reused, taken)
				}
			})
		}
	}
}

// reusingDecoder returns the adapters' stream decoder (DecodeGuardedStream)
// with the fast path on or off, which overwrites (poison) the storage it
// reuses once ReuseEventText was called.
func reusingDecoder(c *Codec, fast bool) func(io.Reader) core.EventStream {
	return func(r io.Reader) core.EventStream {
		g := c.DecodeGuardedStream(r).(*guardedStream)
		g.poison, g.noFast = true, !fast
		return g
	}
}

// countedStream is a guarded stream that counts the calls of
// ReuseEventText and, at each of them and at the end, the chunks the
// stream took from its reused storage.
type countedStream struct {
	g             *guardedStream
	reused, taken *int
}

func (c *countedStream) ReuseEventText() { *c.reused++; c.g.ReuseEventText() }

func (c *countedStream) Next() (core.Event, error) {
	before := c.g.used
	ev, err := c.g.Next()
	if c.g.used > before {
		*c.taken += c.g.used - before
	}
	return ev, err
}

// TestTrackedText: the text a copy tracker keeps for a call is every
// piece added, in order, whether the first is kept as it came or copied,
// across blocks and joins.
func TestTrackedText(t *testing.T) {
	for _, reused := range []bool{false, true} {
		var tt trackedText
		var tr copyTracker
		if reused {
			tr.arena = new(jsonscan.Arena)
		}
		var want strings.Builder
		for i, n := range []int{0, 5, 1, 70, 0, 200, trackBlock, 3, 2 * trackBlock, 1} {
			p := strings.Repeat(string(rune('a'+i)), n)
			tt.add(p, &tr)
			want.WriteString(p)
			if i%3 == 0 {
				if got := tt.text(&tr); got != want.String() {
					t.Fatalf("reused %t, after piece %d: %d bytes kept, want the %d added", reused, i, len(got), want.Len())
				}
			}
		}
		if got := tt.text(&tr); got != want.String() {
			t.Fatalf("reused %t: %d bytes kept, want the %d added", reused, len(got), want.Len())
		}
	}
}

// copyStream is a stream of calls of n bytes of arguments each, filled
// with fill, in 128-byte deltas, each followed by its consolidated copy
// (B02), which the copy tracker recognises only if it kept every byte.
func copyStream(fill byte, calls, n int) []byte {
	const env = `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":`
	var b strings.Builder
	for i := range calls {
		args := `{"s":"` + strings.Repeat(string(rune(fill+byte(i))), n-8) + `"}`
		quoted, _ := json.Marshal(args)
		start := fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":"call_%d","type":"function","function":{"name":"f","arguments":`, i, i)
		b.WriteString("data: " + env + start + `""}}]}}]}` + "\n\n")
		for off := 0; off < len(args); off += 128 {
			d, _ := json.Marshal(args[off:min(off+128, len(args))])
			b.WriteString("data: " + env + fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}}]}`, i, d) + "\n\n")
		}
		b.WriteString("data: " + env + start + string(quoted) + `}}]}}]}` + "\n\n")
	}
	b.WriteString("data: " + env + `{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n")
	return []byte(b.String())
}

// TestCopyTrackerSpareBlocks: the copy tracker's blocks go, at the end of
// a stream, to the spare blocks later streams' trackers take, and every
// stream, decoded one after another and four at a time, still recognises
// the consolidated copy of each of its long calls (300 KB, tracked in
// blocks of trackBlock bytes): a block given back while its text was
// still tracked, or taken by two trackers, would change a copy's text.
func TestCopyTrackerSpareBlocks(t *testing.T) {
	const calls, n = 3, 300 << 10
	check := func(fill byte, reuse bool) error {
		body := copyStream(fill, calls, n)
		decode := func(r io.Reader) core.EventStream { return fastTestCodec().DecodeGuardedStream(r) }
		if !reuse {
			decode = func(r io.Reader) core.EventStream { return fastTestCodec().DecodeStream(r) }
		}
		resp, err := core.Collect(decode(bytes.NewReader(body)), core.WithLimits(core.Limits{MaxArgBytes: 1 << 20}))
		if err != nil {
			return err
		}
		var got int
		for i, p := range resp.Message.Parts {
			want := `{"s":"` + strings.Repeat(string(rune(fill+byte(i))), n-8) + `"}`
			if p.Call == nil || string(p.Call.Arguments) != want || p.Call.Repaired {
				return fmt.Errorf("fill %c: part %d is not call %d with its %d bytes of arguments, unrepaired (a copy not recognised)", fill, i, i, n)
			}
			got++
		}
		if got != calls {
			return fmt.Errorf("fill %c: %d calls, want %d", fill, got, calls)
		}
		return nil
	}
	for i := range 6 {
		if err := check(byte('a'+3*i), i%2 == 0); err != nil {
			t.Fatal(err)
		}
	}
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			for i := range 5 {
				if err := check(byte('A'+4*i+g%4), (g+i)%2 == 0); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
