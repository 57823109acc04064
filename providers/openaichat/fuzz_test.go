package openaichat

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"regexp"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/sse"
)

// corpusBodies returns the recorded response bodies, streaming or not.
func corpusBodies(f *testing.F, stream bool) [][]byte {
	var out [][]byte
	for _, path := range corpusFiles(f, corpusDir) {
		exs, err := loadExchanges(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, ex := range exs {
			if ex.Stream == stream {
				out = append(out, ex.Response)
			}
		}
	}
	return out
}

// maxFuzzStream bounds the bodies FuzzDecodeStream decodes: twice the
// event limit of the target, so that an event past the limit is still
// reachable, and small enough that an input the fuzzer keeps for its new
// coverage can be minimised in the run's time. Larger inputs are returned
// from at once: they cost a decode per byte of minimisation and found
// nothing the small ones do not.
const maxFuzzStream = 8 << 10

// maxSeedStream bounds a seed cut from a recording by toolCallPart. The
// Go fuzzer minimises every input that finds new coverage, trying on the
// order of n² cuts of an n-byte input, so seeds of a few kilobytes kept
// the workers minimising for whole runs.
const maxSeedStream = 3 << 10

// seedMarkers name the kinds of Chat Completions stream events that
// toolCallPart keeps one of each (recordings differ in spacing).
var seedMarkers = regexp.MustCompile(`"role"|"content":\s*"|"reasoning|"refusal"|"annotations"|"logprobs":\s*\{|` +
	`"finish_reason":\s*"|"usage":\s*\{|"choices":\s*\[\]|"error"|\[DONE\]`)

// toolCallPart cuts a recorded stream to the part that gives it its shape:
// its first event verbatim, every event that carries tool calls (so that
// streamed arguments stay whole), and the first event of each other kind
// (a text delta, reasoning, the finish, usage, [DONE]), dropping the
// repeats of text and reasoning deltas that make recordings tens of
// kilobytes long. The events after the first data event keep only their
// choices, usage and error members and those the first did not have: the
// rest (id, model, created, system_fingerprint, obfuscation, about half of
// each event) only repeats the first, and servers differ in whether they
// send it. A cut still longer than maxSeedStream ends at the last event
// boundary within it: a stream cut short, whose calls are incomplete, is a
// shape too; whole is false then.
func toolCallPart(body []byte) (seed []byte, whole bool) {
	seen := map[string]bool{}
	var out, first []byte
	for i, ev := range bytes.SplitAfter(body, []byte("\n\n")) {
		keep := i == 0 || bytes.Contains(ev, []byte(`"tool_calls"`))
		if !keep {
			kind := string(bytes.Join(seedMarkers.FindAll(ev, -1), nil))
			keep = !seen[kind]
			seen[kind] = true
		}
		if !keep {
			continue
		}
		if first == nil && bytes.HasPrefix(ev, []byte("data: {")) {
			first = ev
		} else if first != nil {
			ev = dropRepeats(first, ev)
		}
		if len(out)+len(ev) > maxSeedStream {
			return out, false
		}
		out = append(out, ev...)
	}
	return out, true
}

// dropRepeats returns event ev, a "data: {...}" line, without the top-level
// members that event first also has, except choices, usage and error,
// keeping the order and bytes of the others; any other event is returned
// as it is.
func dropRepeats(first, ev []byte) []byte {
	members := func(ev []byte) ([]string, map[string]json.RawMessage) {
		data, ok := bytes.CutPrefix(bytes.TrimRight(ev, "\n"), []byte("data: "))
		if !ok {
			return nil, nil
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return nil, nil
		}
		var keys []string
		vals := map[string]json.RawMessage{}
		for dec.More() {
			t, err := dec.Token()
			k, ok := t.(string)
			var v json.RawMessage
			if err != nil || !ok || dec.Decode(&v) != nil {
				return nil, nil
			}
			keys = append(keys, k)
			vals[k] = v
		}
		return keys, vals
	}
	_, fv := members(first)
	keys, vals := members(ev)
	if keys == nil {
		return ev
	}
	out := []byte("data: {")
	n := 0
	for _, k := range keys {
		if _, repeated := fv[k]; repeated && k != "choices" && k != "usage" && k != "error" {
			continue
		}
		if n > 0 {
			out = append(out, ',')
		}
		kq, _ := json.Marshal(k)
		out = append(append(append(out, kq...), ':'), vals[k]...)
		n++
	}
	return append(out, "}\n\n"...)
}

// FuzzDecodeStream: arbitrary bytes never panic the stream decoder, which
// stays within its event size limit (failing by name past it), and reading
// one byte at a time gives the same events and error as reading whole.
//
// Its seeds are the recorded streams of testdata/corpus/openai-chat (every
// stream of every recording, each cut by toolCallPart to its first event,
// its tool-call events and one event of each other kind; identical cuts
// once) and known-bad inputs. Whole recordings (up to 53 KB) made the target
// crawl at 10 executions a second: each input the fuzzer kept for new
// coverage was minimised for the rest of the run.
func FuzzDecodeStream(f *testing.F) {
	added := map[string]bool{}
	for _, b := range corpusBodies(f, true) {
		seed, _ := toolCallPart(b)
		if !added[string(seed)] {
			added[string(seed)] = true
			f.Add(seed)
		}
	}
	for _, s := range []string{
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1e30}]}}]}\n\n",
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":{\"a\":1}}}]}}]}\n\n",
		"data: {\"choices\":[{\"delta\":{\"content\":[{\"type\":\"text\"}]}}]}\n\n",
		"data: {\"error\":5}\n\ndata: {\"choices\":null}\n\n",
		"data: {\"choices\":[", "\xEF\xBB\xBFdata: [DONE]\r\n\r\n", "data: {}\r",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > maxFuzzStream {
			return
		}
		const limit = 1 << 12
		whole, errWhole := drain(New(MaxEventSize(limit)).DecodeStream(bytes.NewReader(body)))
		split, errSplit := drain(New(MaxEventSize(limit)).DecodeStream(smallReads(body)))
		// reflect.DeepEqual first: cmp.Diff walks every event by reflection
		// and took a tenth of each execution; it only explains a difference.
		if !reflect.DeepEqual(whole, split) {
			t.Fatalf("one-byte reads change the events (-whole +split):\n%s", cmp.Diff(whole, split))
		}
		if (errWhole == nil) != (errSplit == nil) || (errWhole != nil && errWhole.Error() != errSplit.Error()) {
			t.Fatalf("errors differ: %v / %v", errWhole, errSplit)
		}
		if errWhole != nil {
			var ce *DecodeError
			if !errors.As(errWhole, &ce) {
				t.Fatalf("error %v is not a *DecodeError", errWhole)
			}
			// An error names a byte of the body, or, for a fault found in a
			// decoded event (text that is not UTF-8), the event and field.
			if ce.Offset < 0 && ce.Path == "" || ce.Offset > int64(len(body)) {
				t.Fatalf("error %v has offset %d outside the body of %d bytes and no path", errWhole, ce.Offset, len(body))
			}
			if len(body) < limit && errors.Is(errWhole, sse.ErrEventTooLarge) {
				t.Fatalf("event too large in a body of %d bytes", len(body))
			}
		}
	})
}

// TestToolCallPart checks the seeds of FuzzDecodeStream: each is within
// maxSeedStream and, unless cut short, reads to the same calls, text and
// finish as the recording it was cut from.
func TestToolCallPart(t *testing.T) {
	bodies, cut, size := 0, 0, 0
	for _, path := range corpusFiles(t, corpusDir) {
		exs, err := loadExchanges(path)
		if err != nil {
			t.Fatal(err)
		}
		for n, ex := range exs {
			if !ex.Stream {
				continue
			}
			bodies++
			seed, whole := toolCallPart(ex.Response)
			size += len(seed)
			if len(seed) > maxSeedStream || len(seed) == 0 {
				t.Errorf("%s #%d: seed of %d bytes, want 1 to %d", path, n, len(seed), maxSeedStream)
			}
			if !whole {
				cut++
				continue
			}
			want, errWant := core.Collect(New().DecodeStream(bytes.NewReader(ex.Response)))
			got, errGot := core.Collect(New().DecodeStream(bytes.NewReader(seed)))
			if errWant != nil || errGot != nil {
				if (errWant == nil) != (errGot == nil) {
					t.Errorf("%s #%d: error %v, recording %v", path, n, errGot, errWant)
				}
				continue
			}
			if diff := cmp.Diff(want.Calls(), got.Calls()); diff != "" {
				t.Errorf("%s #%d: calls of the seed differ (-recording +seed):\n%s", path, n, diff)
			}
			if want.Finish != got.Finish || (want.Text() == "") != (got.Text() == "") {
				t.Errorf("%s #%d: seed finishes %q with text %q, recording %q with %q", path, n, got.Finish, got.Text(), want.Finish, want.Text())
			}
		}
	}
	if bodies == 0 {
		t.Fatal("no recorded streams")
	}
	t.Logf("%d recorded streams, %d seed bytes in all, %d cut short", bodies, size, cut)
}

// FuzzDecodeResponse: arbitrary bytes never panic the response decoder; a
// body that decodes re-encodes, and decodes again to the same calls, text
// and finish.
func FuzzDecodeResponse(f *testing.F) {
	for _, b := range corpusBodies(f, false) {
		f.Add(b)
	}
	for _, s := range []string{
		`{"choices":[{"message":{"tool_calls":[{"function":{"arguments":null}}]}}]}`,
		`{"choices":[{"message":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":{"x":[1]}}}]}}]}`,
		`{"choices":[{"message":{"tool_calls":[{"function":{"arguments":"{\"a\":"}}]},"finish_reason":"length"}]}`,
		`{"object":"error","message":"x","code":1}`, `{"error":null,"choices":[]}`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		a := New()
		resp, err := a.DecodeResponse(body)
		if err != nil {
			var ce *DecodeError
			if !errors.As(err, &ce) || (ce.Offset < 0 && ce.Path == "") {
				t.Fatalf("error %v names no place", err)
			}
			return
		}
		out, err := a.EncodeResponse(resp)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		again, err := a.DecodeResponse(out)
		if err != nil {
			t.Fatalf("decode re-encoded %s: %v", out, err)
		}
		strip := func(cs []core.Call) []core.Call {
			for i := range cs {
				cs[i].Repaired, cs[i].Original = false, ""
			}
			return cs
		}
		if diff := cmp.Diff(strip(resp.Calls()), strip(again.Calls())); diff != "" {
			t.Fatalf("calls differ after re-encoding %s (-first +second):\n%s", out, diff)
		}
		if resp.Text() != again.Text() || resp.Finish != again.Finish {
			t.Fatalf("text/finish differ after re-encoding %s", out)
		}
	})
}

// smallReads reads body one byte at a time, or, for bodies over 4 KiB
// (where that would slow fuzzing to a crawl), half a buffer at a time.
func smallReads(body []byte) io.Reader {
	if len(body) > 4096 {
		return iotest.HalfReader(bytes.NewReader(body))
	}
	return iotest.OneByteReader(bytes.NewReader(body))
}
