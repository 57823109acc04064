package core

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// Fuzz chunk encoding: each chunk takes three bytes, op, a and n, then n%24
// bytes of text. op bits: 1 HasIndex, 2 ID, 4 ItemID, 8 Name, 16 Start,
// 32 Done; 128 alone puts the text in ArgsDelta, 64|128 in Args, 64 alone
// in a patch of key "k". a picks the index (its low 6 bits, signed), the id
// (bits 4-5), the item id (bits 2-3), the name (bits 0-1) and the turn
// (bit 6). Since the index shares its bits with the ids, an n whose n/24 is
// odd puts the chunk on index 0 instead, so that calls with different ids
// can share an index (A01, A02).
const (
	fzIndex = 1 << iota
	fzID
	fzItem
	fzName
	fzStart
	fzDone
	fzPatch
	fzDelta
)

func decodeChunks(data []byte) []Chunk {
	ids := []string{"", "call_a", "call_b", "tool_0_1"} // tool_0_1: a generated id
	items := []string{"", "fc_a", "fc_b", "call_a"}
	names := []string{"", "weather", "search", "add"}
	var out []Chunk
	for len(data) >= 3 {
		op, a, n := data[0], data[1], int(data[2]%24)
		index0 := data[2]/24%2 == 1
		data = data[3:]
		n = min(n, len(data))
		text := string(data[:n])
		data = data[n:]
		c := Chunk{Turn: int(a >> 6 & 1)}
		if op&fzIndex != 0 {
			c.HasIndex, c.Index = true, int(int8(a<<2)>>2)
			if index0 {
				c.Index = 0
			}
		}
		if op&fzID != 0 {
			c.ID = ids[a>>4&3]
		}
		if op&fzItem != 0 {
			c.ItemID = items[a>>2&3]
		}
		if op&fzName != 0 {
			c.Name = names[a&3]
		}
		c.Start = op&fzStart != 0
		c.Done = op&fzDone != 0
		switch op & (fzPatch | fzDelta) {
		case fzDelta:
			c.ArgsDelta = text
		case fzPatch | fzDelta:
			c.Args = &text
		case fzPatch:
			c.Patch = map[string]json.RawMessage{"k": json.RawMessage(text)}
		}
		out = append(out, c)
	}
	return out
}

func enc(op, a byte, text string) []byte {
	return append([]byte{op, a, byte(len(text))}, text...)
}

// enc0 is enc with the chunk on index 0 whatever a says.
func enc0(op, a byte, text string) []byte {
	return append([]byte{op, a, 24 + byte(len(text))}, text...)
}

func seq(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// maxFuzzBuffer bounds the inputs FuzzBuffer reads: up to about 340 chunks,
// enough to pass each limit of its buffer (8 calls, 256 bytes of
// arguments, index 16) several times over. Larger inputs are returned from
// at once: Go's fuzzer minimises every input that finds new coverage by
// trying on the order of n² cuts of its n bytes, and long inputs kept the
// workers minimising instead of fuzzing.
const maxFuzzBuffer = 1 << 10

// FuzzBuffer feeds arbitrary chunk sequences (decodeChunks) to a Buffer
// with small limits: no chunk that is rejected completes a call, a chunk
// completes at most one call and without Done only by naming it, generated
// ids are unique and never a provider's, Finish
// errs exactly when calls are left incomplete, and every completed call is
// whole, with an id, a name and JSON arguments.
func FuzzBuffer(f *testing.F) {
	// Argument fragments of the Anthropic and Chat Completions recordings
	// in testdata/corpus (multi_tool_streaming, tool_streaming).
	f.Add(seq(
		enc(fzIndex|fzID|fzName|fzStart, 0x10|1, ""),
		enc(fzIndex|fzDelta, 0, `{"locati`),
		enc(fzIndex|fzDelta, 0, `on":`),
		enc(fzIndex|fzDelta, 0, ` "Fl`),
		enc(fzIndex|fzDelta, 0, `orence,It`),
		enc(fzIndex|fzDelta, 0, `aly"}`),
		enc(fzIndex|fzDone, 0, ""),
	))
	f.Add(seq(
		enc(fzIndex|fzID|fzName, 0x10|3, ""),
		enc(fzIndex|fzID|fzName, 0x20|1|1, ""),
		enc(fzIndex|fzDelta, 1, `{"a": 2`),
		enc(fzIndex|fzDelta, 0, `{"a": 2`),
		enc(fzIndex|fzDelta, 0, `, "b"`),
		enc(fzIndex|fzDelta, 1, `, "b":`),
		enc(fzIndex|fzDelta, 0, `: 3}`),
		enc(fzIndex|fzDelta, 1, ` 3}`),
		enc(fzIndex|fzDelta, 1, ""),
	))
	// Known-bad shapes: A01 index 0 for every call, B01 cumulative, B02
	// final copy, B03 trailer, A11 negative index, B09 prefix, A16 item id.
	f.Add(seq(
		enc(fzIndex|fzID|fzName|fzDelta, 0x10|1, `{"x":1}`),
		enc(fzIndex|fzID|fzName|fzDelta, 0x20|2, `{"y":`),
		enc(fzIndex|fzDelta, 0, `{"y":2}`),
		enc(fzIndex|fzPatch|fzDelta|fzDone, 0, `{"y":2}`),
		enc(fzIndex|fzDelta, 0, ""),
		enc(fzIndex, 0x3f, ""),
		enc(fzID|fzItem|fzName, 0x10|0x04|1, `{"n":1`),
		enc(fzItem|fzDelta, 0x04, `{"n":1`),
		enc(fzItem|fzPatch, 0x04, `[1`),
	))
	// A01 with a call displaced from index 0 before its arguments: the
	// displaced call must stay open for them (A20), never complete as {}.
	f.Add(seq(
		enc0(fzIndex|fzID|fzName|fzStart, 0x10|1, ""),
		enc0(fzIndex|fzID|fzName|fzStart, 0x20|2, ""),
		enc0(fzIndex|fzID|fzDelta, 0x10, `{"x":1}`),
		enc0(fzIndex|fzDelta, 0, `{"y":2}`),
		enc(fzID|fzDone, 0x10, ""),
		enc0(fzIndex|fzDone, 0, ""),
	))
	// A provider id equal to an id generated before it: tool_0_1.
	f.Add(seq(
		enc(fzIndex|fzName|fzDone, 0x01, ""),
		enc(fzID|fzName|fzStart|fzDone, 0x30|2, ""),
		enc(fzIndex|fzName, 0x02, ""),
		enc(fzID|fzName|fzDelta, 0x30|2, "{}"),
	))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzBuffer {
			return
		}
		b := NewBuffer(WithLimits(Limits{MaxCalls: 8, MaxArgBytes: 256, MaxIndex: 16}))
		var returned []Call
		lost := map[int]bool{} // calls that had a chunk rejected
		for i, c := range decodeChunks(data) {
			routed, _ := b.route(&c)
			doneBefore := routed != nil && routed.doneSeen
			opened := len(b.calls)
			done, err := b.Add(c)
			var ce *ChunkError
			if errors.As(err, &ce) && len(done) > 0 {
				t.Fatalf("chunk %d rejected (%v) yet completed %d calls", i, err, len(done))
			}
			if ce != nil && !errors.Is(err, ErrAfterDone) && !errors.Is(err, errFinished) {
				if routed != nil {
					lost[routed.seq] = true
				}
				if len(b.calls) > opened {
					lost[opened] = true
				}
			}
			// A chunk completes at most the one call it routes to, and
			// without Done only by bringing the name of a call whose Done
			// came first; taking over an index (A01, A02) never completes
			// the call that held it (B09, A20).
			if len(done) > 1 {
				t.Fatalf("chunk %d completed %d calls: %+v", i, len(done), done)
			}
			if len(done) == 1 {
				want := len(b.calls) - 1 // a call the chunk opened
				if routed != nil {
					want = routed.seq
				}
				if got := b.completedSeq[len(b.completedSeq)-1]; got != want {
					t.Fatalf("chunk %d routes to call %d but completed call %d: %+v", i, want, got, done[0])
				}
				if !c.Done && !doneBefore {
					t.Fatalf("chunk %d completed %+v without any Done", i, done[0])
				}
			}
			returned = append(returned, done...)
		}
		done, _ := b.doneAll()
		returned = append(returned, done...)
		inc, err := b.Finish()
		if (len(inc) > 0) != (err != nil) {
			t.Fatalf("Finish() = %d incomplete, error %v", len(inc), err)
		}
		calls := b.Calls()
		if len(calls) != len(returned) {
			t.Fatalf("Calls() has %d, Add and DoneAll returned %d", len(calls), len(returned))
		}
		for i, c := range calls {
			if c.Name == "" || c.ID == "" || !json.Valid(c.Arguments) || c.Repaired != (c.Original != "") {
				t.Fatalf("completed call %d is not whole: %+v", i, c)
			}
			if c.ID != returned[i].ID {
				t.Fatalf("call %d: Calls() has %q, returned %q", i, c.ID, returned[i].ID)
			}
		}
		for _, c := range inc {
			if c.Arguments != nil {
				t.Fatalf("incomplete call has arguments: %+v", c)
			}
		}
		// Generated ids are unique and never equal a provider id.
		provider := map[string]bool{}
		for _, cs := range b.calls {
			if cs.id != "" {
				provider[cs.id] = true
			}
		}
		generated := map[string]bool{}
		for _, cs := range b.calls {
			if cs.genID == "" {
				continue
			}
			if cs.id != "" || provider[cs.genID] || generated[cs.genID] {
				t.Fatalf("call %d: generated id %q repeats an id (provider id %q)", cs.seq, cs.genID, cs.id)
			}
			generated[cs.genID] = true
		}
		if n := len(calls) + len(b.failed) + len(inc); n != len(b.calls) {
			t.Fatalf("%d calls opened, %d accounted for", len(b.calls), n)
		}
		// A call that lost a chunk is never complete.
		for i, seq := range b.completedSeq {
			if lost[seq] {
				t.Fatalf("call %d completed as %+v although a chunk of it was rejected", seq, calls[i])
			}
		}
	})
}

// FuzzBufferSplice feeds argument deltas (decodeChunks without Args and
// patches) to a Buffer whose argument limit is 24 bytes, so that limits are
// hit all the time: every call that completes has, as its text, exactly
// the concatenation of every delta routed to it, rejected ones included;
// a call with a rejected chunk never completes.
func FuzzBufferSplice(f *testing.F) {
	// The splice of issue 13: a delta over the limit between two that fit.
	f.Add(seq(
		enc(fzIndex|fzID|fzName|fzStart, 0x10|1, ""),
		enc(fzIndex|fzDelta, 0, `{"cmd":"rm -rf ./b`),
		enc(fzIndex|fzDelta, 0, `/everything/else`),
		enc(fzIndex|fzDelta, 0, `"}`),
		enc(fzIndex|fzDone, 0, ""),
	))
	// The first chunk of a call over the limit, the rest of it after.
	f.Add(seq(
		enc(fzID|fzName|fzDelta, 0x20|2, `{"q":"aaaaaaaaaaaaaaaaa`),
		enc(fzID|fzDelta, 0x20, `aaaaaaaa"`),
		enc(fzID|fzName|fzDelta|fzDone, 0x20|2, `}`),
	))
	// Too many calls by neither id nor index: the later deltas are the
	// lost call's, not the previous one's.
	f.Add(seq(
		enc(fzName|fzDelta, 1, `{"a":1`),
		enc(fzName|fzDelta, 2, `{"b":`),
		enc(fzDelta, 0, `2`),
		enc(fzDelta|fzDone, 0, `}`),
	))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzBuffer {
			return
		}
		b := NewBuffer(WithLimits(Limits{MaxCalls: 4, MaxArgBytes: 24, MaxIndex: 16}))
		sent := map[int]string{} // deltas routed to each call, by seq
		rejected := map[int]bool{}
		for _, c := range decodeChunks(data) {
			c.Args, c.Patch = nil, nil
			routed, _ := b.route(&c)
			if routed != nil && routed.done {
				b.Add(c) // after Done: rejected or a no-op, never appended
				continue
			}
			opened, dropped := len(b.calls), b.dropped
			_, err := b.Add(c)
			if b.dropped > dropped {
				continue // a lost call's, or a call that could not open
			}
			seq := -1
			switch {
			case routed != nil:
				seq = routed.seq
			case len(b.calls) > opened:
				seq = opened
			}
			if seq < 0 {
				continue
			}
			sent[seq] += c.ArgsDelta
			var ce *ChunkError
			if errors.As(err, &ce) {
				rejected[seq] = true
			}
		}
		b.doneAll()
		b.Finish()
		for i, call := range b.Calls() {
			seq := b.completedSeq[i]
			if rejected[seq] {
				t.Fatalf("call %d completed as %+v although a chunk of it was rejected", seq, call)
			}
			got := string(call.Arguments)
			if call.Repaired {
				got = call.Original
			}
			want := sent[seq]
			if strings.TrimSpace(want) == "" {
				want = "{}"
			}
			if got != want {
				t.Fatalf("call %d completed with %q, its deltas sent %q", seq, got, want)
			}
		}
	})
}
