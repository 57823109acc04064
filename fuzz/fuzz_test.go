package fuzz

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
)

// adapterNames are the built-in adapters a fuzz byte chooses from.
var adapterNames = providers.Names()

// Call names and ids of drawn streams: valid tool names and plain ASCII ids
// of the shapes providers send.
var (
	drawNames = []string{"get_weather", "add", "search_web", "noop"}
	drawIDs   = []string{"call_Yj1", "toolu_01A09q90qw90lq917835lq9", "fc_6f0b", "7"}
)

// argsObject returns s, made UTF-8, when it is a JSON object whose numbers fit a
// float64, and otherwise {"s": s}, so that every fuzz input makes a call
// with valid arguments.
func argsObject(s string) string {
	// Canonical text is UTF-8: a decoder refuses other bytes
	// (core.ErrInvalidUTF8), which the adapters' own tests check.
	s = strings.ToValidUTF8(s, "\uFFFD")
	var m map[string]any
	if strings.HasPrefix(strings.TrimLeft(s, " \t\r\n"), "{") && json.Unmarshal([]byte(s), &m) == nil {
		return s
	}
	b, _ := json.Marshal(map[string]string{"s": s})
	return string(b)
}

// cutRunes cuts s into pieces at the cut bytes' sizes (as pieces.Read
// does), moving each cut back to a rune boundary: an event's text is
// JSON on every wire, where half a rune cannot travel.
func cutRunes(s string, cuts []byte) []string {
	if len(cuts) == 0 || s == "" {
		return []string{s}
	}
	var out []string
	for n := 0; s != ""; n++ {
		size := min(int(cuts[n%len(cuts)])%64+1, len(s))
		for size < len(s) && !utf8.RuneStart(s[size]) {
			size++
		}
		out = append(out, s[:size])
		s = s[size:]
	}
	return out
}

// drawn is a canonical stream and what collecting it must give.
type drawn struct {
	events []core.Event
	text   string
	calls  []core.Call
}

// draw builds the stream of FuzzStreamRoundTrip. shape bits 0-1 give the
// number of calls, bit 2 puts text before them, bits 4-5 choose the first
// id and bits 6-7 the first name.
func draw(shape uint8, text string, args [3]string, cuts []byte) drawn {
	var d drawn
	if shape&4 != 0 {
		d.text = strings.ToValidUTF8(text, "\uFFFD")
		if d.text != "" {
			for _, p := range cutRunes(d.text, cuts) {
				d.events = append(d.events, core.Event{Kind: core.EventText, Text: p})
			}
		}
	}
	n := int(shape & 3)
	// A call's index is its position in the response, after the text
	// block if there is one (Anthropic and Responses index blocks and
	// output items, and refuse a used index).
	base := 0
	if d.text != "" {
		base = 1
	}
	for i := range n {
		c := core.Call{
			ID:        drawIDs[(int(shape>>4)+i)%len(drawIDs)],
			Name:      drawNames[(int(shape>>6)+i)%len(drawNames)],
			Arguments: json.RawMessage(argsObject(args[i])),
		}
		d.calls = append(d.calls, c)
		d.events = append(d.events, core.Event{Kind: core.EventCallStart, Chunk: &core.Chunk{
			Index: base + i, HasIndex: true, ID: c.ID, Name: c.Name, Start: true,
		}})
		for _, p := range cutRunes(string(c.Arguments), cuts) {
			d.events = append(d.events, core.Event{Kind: core.EventCallDelta, Chunk: &core.Chunk{
				Index: base + i, HasIndex: true, ArgsDelta: p,
			}})
		}
		d.events = append(d.events, core.Event{Kind: core.EventCallEnd, Chunk: &core.Chunk{
			Index: base + i, HasIndex: true, Done: true,
		}})
	}
	fin := core.FinishStop
	if n > 0 {
		fin = core.FinishToolCalls
	}
	d.events = append(d.events, core.Event{Kind: core.EventFinish, Finish: fin})
	return d
}

// jsonValue decodes a JSON document for comparison as a value.
func jsonValue(raw []byte) any {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "invalid JSON: " + err.Error() + ": " + string(raw)
	}
	return v
}

// callView is the part of a call that every adapter carries.
type callView struct {
	ID, Name string
	Args     any
	Repaired bool
}

func view(cs []core.Call) []callView {
	out := make([]callView, 0, len(cs))
	for _, c := range cs {
		out = append(out, callView{c.ID, c.Name, jsonValue(c.Arguments), c.Repaired})
	}
	return out
}

// FuzzStreamRoundTrip: for every adapter, a canonical stream encoded with
// EncodeStream and decoded with DecodeStream, read in fuzz-chosen pieces,
// collects to the calls and text that were drawn.
func FuzzStreamRoundTrip(f *testing.F) {
	for i := range adapterNames {
		a := uint8(i)
		// Argument shapes of the recordings (tool_streaming,
		// multi_tool_streaming), a no-argument call (C01, C02), split
		// UTF-8 (B05), escapes split mid-\u (B06), text-only responses.
		f.Add(a, uint8(0x05), "Let me check the weather.", `{"location":"Florence, Italy"}`, ``, ``, []byte{7, 3, 30})
		f.Add(a, uint8(0x12), "", `{"a": 2, "b": 3}`, `{"a": 2, "b": 3}`, ``, []byte{5})
		f.Add(a, uint8(0x03), "", `{}`, `{"q":"ä😀é"}`, `{"s":"\u00e9\"\\"}`, []byte{0, 1, 2})
		f.Add(a, uint8(0x04), "plain answer, no calls ✓", ``, ``, ``, []byte{})
		f.Add(a, uint8(0x01), "", `{"n":1`, ``, ``, []byte{2})
		f.Add(a, uint8(0x02), "", `{"p":"C:\\Program Files\\App"}`, `{"cmd":"/bin/echo \"hi\""}`, ``, []byte{9})
		f.Add(a, uint8(0x01), "", `{"big":1e400,"deep":[[[[{}]]]]}`, ``, ``, []byte{1})
	}
	// The text and the arguments of the first calls of each recorded
	// stream, sent through every adapter.
	rs, err := recordedStreams()
	if err != nil {
		f.Fatal(err)
	}
	for _, r := range rs {
		resp, _ := collect(r.adapter, bytes.NewReader(r.body))
		calls := resp.Calls()
		if len(calls) == 0 {
			continue
		}
		var args [3]string
		for i := range min(len(calls), 3) {
			args[i] = string(calls[i].Arguments)
		}
		shape := uint8(min(len(calls), 3)) | 0x10
		if resp.Text() != "" {
			shape |= 4
		}
		f.Add(uint8(len(r.body)), shape, resp.Text(), args[0], args[1], args[2], []byte{byte(len(r.body) % 64)})
	}
	f.Fuzz(func(t *testing.T, adapter, shape uint8, text, argsA, argsB, argsC string, cuts []byte) {
		name := adapterNames[int(adapter)%len(adapterNames)]
		a, err := providers.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		d := draw(shape, text, [3]string{argsA, argsB, argsC}, cuts)
		var buf bytes.Buffer
		if err := a.EncodeStream(&buf, d.events); err != nil {
			t.Fatalf("%s: encode %d events: %v", name, len(d.events), err)
		}
		resp, err := core.Collect(a.DecodeStream(&pieces{body: buf.Bytes(), cuts: cuts}))
		if err != nil {
			t.Fatalf("%s: collect the encoded stream: %v\nstream:\n%s", name, err, buf.Bytes())
		}
		if diff := cmp.Diff(view(d.calls), view(resp.Calls())); diff != "" {
			t.Errorf("%s: calls (-drawn +decoded):\n%s\nstream:\n%s", name, diff, buf.Bytes())
		}
		if len(resp.Incomplete) > 0 {
			t.Errorf("%s: %d calls incomplete: %+v", name, len(resp.Incomplete), resp.Incomplete)
		}
		if got := resp.Text(); got != d.text {
			t.Errorf("%s: text = %q, want %q", name, got, d.text)
		}
	})
}

// FuzzRecordedSplit: every recorded stream, read in pieces cut at
// fuzz-chosen points, collects to the response and error of reading it
// whole.
func FuzzRecordedSplit(f *testing.F) {
	rs, err := recordedStreams()
	if err != nil {
		f.Fatal(err)
	}
	type outcome struct {
		resp *core.Response
		err  string
	}
	whole := make([]outcome, len(rs))
	for i, r := range rs {
		resp, err := collect(r.adapter, bytes.NewReader(r.body))
		whole[i] = outcome{resp, errText(err)}
	}
	// One seed per recording, cut in pieces of 14, 9, 2 and 64 bytes in
	// turn; the fuzzer varies the cuts and moves between recordings.
	// Whole and one-byte reads of a few recordings besides.
	for i := range rs {
		f.Add(uint16(i), []byte{13, 200, 1, 63})
	}
	for i := 0; i < len(rs); i += 16 {
		f.Add(uint16(i), []byte{})
		f.Add(uint16(i), []byte{0})
	}
	f.Fuzz(func(t *testing.T, which uint16, cuts []byte) {
		i := int(which) % len(rs)
		r := rs[i]
		resp, err := collect(r.adapter, &pieces{body: r.body, cuts: cuts})
		if diff := cmp.Diff(whole[i].resp, resp); diff != "" {
			t.Errorf("%s (%s): split response differs (-whole +split):\n%s", r.ref, r.adapter, diff)
		}
		if got := errText(err); got != whole[i].err {
			t.Errorf("%s (%s): split error %q, whole %q", r.ref, r.adapter, got, whole[i].err)
		}
	})
}

// FuzzDecodeCollect: arbitrary bytes through any adapter's stream decoder
// and core.Collect never panic, give the same response and error whether
// read whole or in fuzz-chosen pieces, never report a call complete
// without valid object arguments, and never leave a call incomplete
// without an error.
func FuzzDecodeCollect(f *testing.F) {
	index := map[string]uint8{}
	for i, n := range adapterNames {
		index[n] = uint8(i)
	}
	seeded := map[string]int{}
	rs, err := recordedStreams()
	if err != nil {
		f.Fatal(err)
	}
	for _, r := range rs {
		// The two smallest-numbered recordings of each adapter, whole and
		// cut in half (a stream that ends mid-call, B09-B11).
		if seeded[r.adapter] >= 2 || len(r.body) > 8<<10 {
			continue
		}
		seeded[r.adapter]++
		f.Add(index[r.adapter], r.body, []byte{})
		f.Add(index[r.adapter], r.body[:len(r.body)/2], []byte{0, 5, 17})
	}
	for i := range adapterNames {
		for _, s := range []string{
			"", "\x00", "data: [DONE]\n\n", "data: {\n\n", "{\"done\":true}\n", "[{\"candidates\":[]}",
			"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"x\"}}\n\n",
			"\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
		} {
			f.Add(uint8(i), []byte(s), []byte{0})
		}
	}
	f.Fuzz(func(t *testing.T, adapter uint8, body, cuts []byte) {
		name := adapterNames[int(adapter)%len(adapterNames)]
		resp, err := collect(name, bytes.NewReader(body))
		if resp == nil {
			t.Fatalf("%s: Collect returned no response (error %v)", name, err)
		}
		split, errSplit := collect(name, &pieces{body: body, cuts: cuts})
		if diff := cmp.Diff(resp, split); diff != "" {
			t.Errorf("%s: reading in pieces changes the response (-whole +split):\n%s", name, diff)
		}
		if errText(err) != errText(errSplit) {
			t.Errorf("%s: reading in pieces changes the error:\nwhole: %v\nsplit: %v", name, err, errSplit)
		}
		for _, c := range resp.Calls() {
			var obj map[string]json.RawMessage
			if json.Unmarshal(c.Arguments, &obj) != nil || obj == nil {
				t.Errorf("%s: call %q complete with arguments %q, not a JSON object", name, c.Name, c.Arguments)
			}
			if c.Repaired && c.Original == "" {
				t.Errorf("%s: call %q repaired without its original text", name, c.Name)
			}
		}
		for _, c := range resp.Incomplete {
			if len(c.Arguments) > 0 {
				t.Errorf("%s: incomplete call %q carries arguments %s", name, c.Name, c.Arguments)
			}
		}
		if len(resp.Incomplete) > 0 && err == nil {
			t.Errorf("%s: %d incomplete calls without an error", name, len(resp.Incomplete))
		}
		if err != nil {
			var se *core.StreamError
			if !errors.As(err, &se) {
				t.Errorf("%s: error %v is not a *core.StreamError", name, err)
			} else if se.Event < 1 {
				t.Errorf("%s: error %v names event %d", name, err, se.Event)
			}
		}
	})
}
