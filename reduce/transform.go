package reduce

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
)

// simplification is one way to make a variant simpler. apply returns the
// simpler variant and what changed, or says why the simplification does
// not apply (it would not change a byte, or cannot change only what it
// names).
type simplification struct {
	name  string
	apply func(v Variant, protocol, chaos string) (next Variant, step Step, why string)
	// catchAll is tried only when no other simplification made the case
	// pass.
	catchAll bool
	// explain says what a case that passes with the simplification
	// passes with, in words that hold for every such case.
	explain string
}

// form is a simplification for one kind of case (recorded Anthropic
// bytes, recorded Chat Completions bytes, canonical events). mine is
// false when the case is not of its kind; why is "" when it applied,
// declined when the edit found nothing to change, or says what kept it
// from the case.
type form func(v Variant, protocol string) (next Variant, step Step, why string, mine bool)

// declined is the reason a form gives when its edit finds nothing to
// change; the simplification says what that means.
const declined = "\x00declined"

// simplifications are tried in this order: the chaos option first (it
// changes the framing only), then the features of the content one by one,
// and last the coarse catch-all, conform's own encoding.
var simplifications = []simplification{
	{"no-chaos", noChaos, false, "without the chaos option"},
	{"de-interleave", either("no two calls' (content blocks') events alternate, or a chunk to move carries more than one call", onBlocks(deinterleave), onChat(chatDeinterleave), onEvents(eventsDeinterleave)), false, "with each call's (content block's) events together"},
	{"renumber", either("the calls' (content blocks') indices already run 0, 1, … in order, one call to an index", onBlocks(renumber), onChat(chatRenumber), onEvents(eventsRenumber)), false, "with call or content block indices renumbered from 0, one call to an index"},
	{"no-text", either("no text or thinking to remove apart from the calls (or no call to keep)", onBlocks(noText), onChat(chatNoText), onEvents(eventsNoText)), false, "with text and thinking removed"},
	{"one-call", either("fewer than two calls are expected, or a chunk to drop carries more than one call", onBlocks(oneCall), onChat(chatOneCall), onEvents(eventsOneCall)), false, "with one call"},
	{"whole-arguments", either("no call's arguments come in two or more fragments (or a later fragment's chunk carries more than its fragment)", onBlocks(wholeArguments), onChat(chatWholeArguments), onEvents(eventsWholeArguments)), false, "with each call's arguments in one fragment"},
	{"re-encode", reencode, true, "re-encoded by conform's own encoder"},
}

// either applies the first of the forms whose kind the case is: a case
// holds provider bytes or canonical events, never both. idle says what it
// means that the edit found nothing to change.
func either(idle string, forms ...form) func(Variant, string, string) (Variant, Step, string) {
	return func(v Variant, protocol, _ string) (Variant, Step, string) {
		for _, f := range forms {
			next, step, why, mine := f(v, protocol)
			if !mine {
				continue
			}
			if why == declined {
				why = idle
			}
			return next, step, why
		}
		return v, Step{}, "the case is recorded " + protocol + " bytes, which no content simplification edits (only Messages and Chat Completions streams, and canonical events)"
	}
}

func noChaos(v Variant, _, chaos string) (Variant, Step, string) {
	if !v.Chaos {
		return v, Step{}, "the failing run had no chaos option"
	}
	v.Chaos = false
	return v, Step{Has: "chaos option " + chaos, Becomes: "the chaos option removed"}, ""
}

// withBody returns a copy of sc serving body instead of its own bytes.
func withBody(sc *scenarios.Scenario, body []byte) *scenarios.Scenario {
	c := *sc
	c.Body = body
	c.Events = nil
	return &c
}

// reencode serves the calls, text and finish the reference adapter
// decodes from the case, encoded by the reference adapter: every wire
// quirk of the recording (field order, extra fields, ids in odd places,
// event sizes) goes, the content stays.
func reencode(v Variant, protocol, _ string) (Variant, Step, string) {
	sc := v.Scenario
	if len(sc.Body) == 0 {
		return v, Step{}, "the case is canonical events, which conform's encoder writes already"
	}
	// A fresh adapter for each use: some keep state between calls (the
	// Mistral adapter maps the ids it encodes back when it decodes).
	fresh := func() (core.Adapter, error) {
		p, err := providers.Describe(protocol)
		if err != nil {
			return nil, err
		}
		if p.NewJSONArrayStream != nil && bytes.HasPrefix(bytes.TrimLeft(sc.Body, " \t\r\n"), []byte("[")) {
			return p.NewJSONArrayStream(), nil
		}
		return p.New(), nil
	}
	a, err := fresh()
	if err != nil {
		return v, Step{}, err.Error()
	}
	var evs []core.Event
	s := a.DecodeStream(bytes.NewReader(sc.Body))
	for {
		ev, err := s.Next()
		if err != nil {
			break
		}
		evs = append(evs, ev)
	}
	var b bytes.Buffer
	if err := a.EncodeStream(&b, evs); err != nil {
		return v, Step{}, "conform's encoder refuses the decoded stream: " + err.Error()
	}
	if bytes.Equal(b.Bytes(), sc.Body) {
		return v, Step{}, "conform's encoder writes the case's own bytes"
	}
	// The encoder must keep what the client is graded on: the same calls
	// (ids, names, arguments, signatures), text and finish.
	a1, _ := fresh()
	a2, _ := fresh()
	if outcome(a1, sc.Body) != outcome(a2, b.Bytes()) {
		return v, Step{}, "conform's encoder does not keep the calls, text and finish the case decodes to"
	}
	v.Scenario = withBody(sc, b.Bytes())
	return v, Step{Has: "the case's own bytes", Becomes: "the stream re-encoded by conform's " + protocol + " encoder"}, ""
}

// outcome is what a stream decodes to, as JSON to compare.
func outcome(a core.Adapter, body []byte) string {
	resp, err := core.Collect(a.DecodeStream(bytes.NewReader(body)))
	if resp == nil {
		resp = &core.Response{}
	}
	errText := ""
	if err != nil {
		errText = err.Error()
	}
	out, _ := json.Marshal(struct {
		Calls      []core.Call
		Incomplete []core.Call
		Text       string
		Finish     core.FinishReason
		Provider   string
		Err        string
	}{resp.Calls(), resp.Incomplete, resp.Text(), resp.Finish, resp.ProviderFinish, errText})
	return string(out)
}

// maxBody bounds the bodies the SSE simplifications take apart.
const maxBody = 16 << 20

// span returns where the value at path lies in data: each element of
// path is an object key (string) or an array position (int).
func span(data []byte, path ...any) (start, end int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	t, err := dec.Token()
	if err != nil {
		return 0, 0, false
	}
	key, isKey := path[0].(string)
	pos, isPos := path[0].(int)
	if !(isKey && t == json.Delim('{')) && !(isPos && t == json.Delim('[')) {
		return 0, 0, false
	}
	for i := 0; dec.More(); i++ {
		var name any = i
		if isKey {
			if name, err = dec.Token(); err != nil {
				return 0, 0, false
			}
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return 0, 0, false
		}
		end := int(dec.InputOffset())
		start := end - len(raw)
		if (isKey && name != key) || (isPos && i != pos) {
			continue
		}
		if len(path) == 1 {
			return start, end, true
		}
		s, e, ok := span(raw, path[1:]...)
		return start + s, start + e, ok
	}
	return 0, 0, false
}

// splice returns data with the value at path replaced by value.
func splice(data []byte, value []byte, path ...any) ([]byte, bool) {
	s, e, ok := span(data, path...)
	if !ok {
		return nil, false
	}
	return slices.Concat(data[:s], value, data[e:]), true
}

// block is what the simplifications read of an Anthropic event.
type block struct {
	Type         string `json:"type"`
	Index        *int   `json:"index"`
	ContentBlock struct {
		Type string `json:"type"`
	} `json:"content_block"`
	Delta struct {
		Type        string `json:"type"`
		PartialJSON string `json:"partial_json"`
	} `json:"delta"`
}

// blockEvent is an Anthropic event with its content block index, -1 for
// the events outside blocks.
type blockEvent struct {
	sseEvent
	block
	index int
}

// onBlocks applies an edit of an Anthropic stream's events. Other
// protocols and canonical cases are not its kind; bodies the SSE codec
// refuses and streams of several messages are left alone.
func onBlocks(edit func(evs []blockEvent, sc *scenarios.Scenario) ([]blockEvent, *scenarios.Scenario, Step, bool)) form {
	return func(v Variant, protocol string) (Variant, Step, string, bool) {
		if streamEvents(protocol) != providers.EventsMessages || len(v.Scenario.Body) == 0 {
			return v, Step{}, "", false
		}
		plain, err := parseSSE(v.Scenario.Body)
		if err != nil {
			return v, Step{}, "the body is not SSE the codec reads: " + err.Error(), true
		}
		evs := make([]blockEvent, len(plain))
		messages := 0
		for i, p := range plain {
			evs[i] = blockEvent{sseEvent: p, index: -1}
			if p.filler {
				continue
			}
			if err := json.Unmarshal(p.data, &evs[i].block); err != nil {
				return v, Step{}, fmt.Sprintf("event %d of the body is not a JSON event: %v", i+1, err), true
			}
			if evs[i].Type == "message_start" {
				messages++
			}
			if strings.HasPrefix(evs[i].Type, "content_block_") && evs[i].Index != nil {
				evs[i].index = *evs[i].Index
			}
		}
		if messages != 1 {
			// Block indices restart with each message.
			return v, Step{}, fmt.Sprintf("the stream holds %d messages, not one (block indices restart with each)", messages), true
		}
		out, sc, step, ok := edit(evs, v.Scenario)
		if !ok {
			return v, Step{}, declined, true
		}
		plain = plain[:0]
		for _, ev := range out {
			plain = append(plain, ev.sseEvent)
		}
		next, step, why := rewritten(v, sc, plain, step)
		return next, step, why, true
	}
}

// rewritten returns v with the scenario sc, its body the events written
// back, and step; or says why not when that changes no byte of v's body.
func rewritten(v Variant, sc *scenarios.Scenario, events []sseEvent, step Step) (Variant, Step, string) {
	body := writeSSE(events)
	if bytes.Equal(body, v.Scenario.Body) {
		return v, Step{}, declined
	}
	c := *sc
	c.Body = body
	v.Scenario = &c
	return v, step, ""
}

// order returns the block indices in order of first appearance.
func order(evs []blockEvent) []int {
	var out []int
	for _, ev := range evs {
		if ev.index >= 0 && !slices.Contains(out, ev.index) {
			out = append(out, ev.index)
		}
	}
	return out
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// deinterleave moves each block's events together, at the place of its
// first event, blocks in order of first appearance.
func deinterleave(evs []blockEvent, sc *scenarios.Scenario) ([]blockEvent, *scenarios.Scenario, Step, bool) {
	var seq []int
	for _, ev := range evs {
		if ev.index >= 0 && (len(seq) == 0 || seq[len(seq)-1] != ev.index) {
			seq = append(seq, ev.index)
		}
	}
	if len(seq) == len(order(evs)) {
		return nil, nil, Step{}, false
	}
	var out []blockEvent
	done := map[int]bool{}
	for _, ev := range evs {
		switch {
		case ev.index < 0:
			out = append(out, ev)
		case !done[ev.index]:
			done[ev.index] = true
			for _, e := range evs {
				if e.index == ev.index {
					out = append(out, e)
				}
			}
		}
	}
	return out, sc, Step{Has: "content blocks interleaved (order " + joinInts(seq) + ")", Becomes: "each block's events together"}, true
}

// reindex sets every block event's index from the map.
func reindex(evs []blockEvent, to map[int]int) ([]blockEvent, bool) {
	out := slices.Clone(evs)
	for i, ev := range out {
		if ev.index < 0 || to[ev.index] == ev.index {
			continue
		}
		data, ok := splice(ev.data, []byte(strconv.Itoa(to[ev.index])), "index")
		if !ok {
			return nil, false
		}
		if out[i].sseEvent, ok = ev.withData(data); !ok {
			return nil, false
		}
		out[i].index = to[ev.index]
	}
	return out, true
}

// fromZero maps the block indices, in order of appearance, to 0, 1, ….
func fromZero(evs []blockEvent) map[int]int {
	to := map[int]int{}
	for i, idx := range order(evs) {
		to[idx] = i
	}
	return to
}

// contiguous reports whether the blocks are numbered 0, 1, … in order.
func contiguous(evs []blockEvent) bool {
	for i, idx := range order(evs) {
		if idx != i {
			return false
		}
	}
	return true
}

func renumber(evs []blockEvent, sc *scenarios.Scenario) ([]blockEvent, *scenarios.Scenario, Step, bool) {
	if contiguous(evs) {
		return nil, nil, Step{}, false
	}
	out, ok := reindex(evs, fromZero(evs))
	if !ok {
		return nil, nil, Step{}, false
	}
	return out, sc, Step{Has: "content block indices " + joinInts(order(evs)), Becomes: "block indices renumbered from 0 (" + joinInts(order(out)) + ")"}, true
}

// drop removes the blocks keep refuses; blocks numbered 0, 1, … before
// stay so numbered, so that dropping never opens a gap of its own.
func drop(evs []blockEvent, keep func(index int, blockType string) bool) ([]blockEvent, []string, bool) {
	types := map[int]string{}
	for _, ev := range evs {
		if ev.Type == "content_block_start" && ev.index >= 0 {
			types[ev.index] = ev.ContentBlock.Type
		}
	}
	var out []blockEvent
	var dropped []string
	for _, ev := range evs {
		if ev.index >= 0 && !keep(ev.index, types[ev.index]) {
			if ev.Type == "content_block_start" {
				dropped = append(dropped, types[ev.index])
			}
			continue
		}
		out = append(out, ev)
	}
	if len(dropped) == 0 {
		return nil, nil, false
	}
	if contiguous(evs) {
		var ok bool
		if out, ok = reindex(out, fromZero(out)); !ok {
			return nil, nil, false
		}
	}
	return out, dropped, true
}

func noText(evs []blockEvent, sc *scenarios.Scenario) ([]blockEvent, *scenarios.Scenario, Step, bool) {
	out, dropped, ok := drop(evs, func(_ int, t string) bool { return t != "text" && t != "thinking" && t != "redacted_thinking" })
	if !ok || len(order(out)) == 0 {
		return nil, nil, Step{}, false
	}
	c := *sc
	if c.Want.Text != nil {
		empty := ""
		c.Want.Text = &empty
	}
	return out, &c, Step{Has: fmt.Sprintf("%d text or thinking block(s) (%s)", len(dropped), strings.Join(dropped, ", ")), Becomes: "text and thinking removed"}, true
}

// oneCall keeps the first tool_use block and the blocks that are not
// calls; the expected calls become the first one.
func oneCall(evs []blockEvent, sc *scenarios.Scenario) ([]blockEvent, *scenarios.Scenario, Step, bool) {
	first := -1
	for _, ev := range evs {
		if ev.Type == "content_block_start" && ev.ContentBlock.Type == "tool_use" {
			first = ev.index
			break
		}
	}
	if first < 0 || len(sc.Want.Calls) < 2 {
		return nil, nil, Step{}, false
	}
	out, dropped, ok := drop(evs, func(index int, t string) bool { return t != "tool_use" || index == first })
	if !ok {
		return nil, nil, Step{}, false
	}
	c := *sc
	c.Want.Calls = sc.Want.Calls[:1]
	return out, &c, Step{Has: fmt.Sprintf("%d tool calls", len(dropped)+1), Becomes: "one call (the first)"}, true
}

// wholeArguments puts each tool_use block's input_json_delta fragments
// into its first one and drops the rest.
func wholeArguments(evs []blockEvent, sc *scenarios.Scenario) ([]blockEvent, *scenarios.Scenario, Step, bool) {
	whole := map[int]string{}
	count := map[int]int{}
	for _, ev := range evs {
		if ev.Type == "content_block_delta" && ev.Delta.Type == "input_json_delta" {
			whole[ev.index] += ev.Delta.PartialJSON
			count[ev.index]++
		}
	}
	most := 0
	for _, n := range count {
		most = max(most, n)
	}
	if most < 2 {
		return nil, nil, Step{}, false
	}
	var out []blockEvent
	seen := map[int]bool{}
	for _, ev := range evs {
		if ev.Type == "content_block_delta" && ev.Delta.Type == "input_json_delta" {
			if seen[ev.index] {
				continue
			}
			seen[ev.index] = true
			text, _ := json.Marshal(whole[ev.index])
			data, ok := splice(ev.data, text, "delta", "partial_json")
			if !ok {
				return nil, nil, Step{}, false
			}
			if ev.sseEvent, ok = ev.withData(data); !ok {
				return nil, nil, Step{}, false
			}
		}
		out = append(out, ev)
	}
	frags := make([]string, 0, len(count))
	for _, idx := range order(evs) {
		if n, ok := count[idx]; ok {
			frags = append(frags, strconv.Itoa(n))
		}
	}
	return out, sc, Step{Has: "arguments in fragments (" + strings.Join(frags, ", ") + " per call)", Becomes: "whole arguments in one fragment per call"}, true
}

// streamEvents returns the event vocabulary of a protocol's stream; an
// unknown protocol's is its own.
func streamEvents(protocol string) providers.StreamEvents {
	p, _ := providers.Describe(protocol)
	return p.SSE.Events
}
