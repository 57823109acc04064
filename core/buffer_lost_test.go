package core

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestCollectNoSplice is the splice of issue 13: a delta that pushes a call
// over the argument limit is rejected, and the deltas after it must not
// complete the call with its middle missing.
func TestCollectNoSplice(t *testing.T) {
	delta := func(s string) Event {
		return Event{Kind: EventCallDelta, Chunk: &Chunk{HasIndex: true, ArgsDelta: s}}
	}
	events := []Event{
		{Kind: EventCallStart, Chunk: &Chunk{HasIndex: true, ID: "call_1", Name: "sh"}},
		delta(`{"cmd":"rm -rf ./build`),
		delta(strings.Repeat("/x", 40)),
		delta(`"}`),
		{Kind: EventFinish, Finish: FinishToolCalls},
	}
	resp, err := Collect(SliceStream(events), WithLimits(Limits{MaxArgBytes: 64}))
	if calls := resp.Calls(); len(calls) != 0 {
		t.Fatalf("Collect completed %+v, want no call", calls)
	}
	want := []Call{{ID: "call_1", Name: "sh", Original: `{"cmd":"rm -rf ./build`}}
	if diff := cmp.Diff(want, resp.Incomplete); diff != "" {
		t.Errorf("Incomplete (-want +got):\n%s", diff)
	}
	for _, sentinel := range []error{ErrArgumentsTooLarge, ErrLostChunk, ErrIncomplete} {
		if !errors.Is(err, sentinel) {
			t.Errorf("Collect error does not wrap %v:\n%v", sentinel, err)
		}
	}
	wantText := `collect: event 6: buffer finish: 1 tool call incomplete: "call_1" (sh) after 22 bytes of arguments (tool call lost a chunk: chunk 3 rejected: arguments too large; 1 later chunks dropped)`
	if !strings.Contains(err.Error(), wantText) {
		t.Errorf("Collect error:\n%v\nwant it to hold:\n%s", err, wantText)
	}
}

// TestBufferLost covers each way a call loses a chunk, and what happens to
// the chunks after.
func TestBufferLost(t *testing.T) {
	tests := []struct {
		name       string
		lim        Limits
		chunks     []Chunk
		errs       map[int]error
		want       []Call
		doneAll    []Call
		incomplete []Call
		// refused counts the chunks refused past the call limit, which
		// Finish reports.
		refused int
		dropped int
	}{
		{
			name: "first chunk too large opens the call lost",
			lim:  Limits{MaxArgBytes: 8},
			chunks: []Chunk{
				{ID: "a", Name: "f", ArgsDelta: `{"x":"123456789"`},
				{ID: "a", Name: "f", ArgsDelta: `{}`},
				{ID: "a", Name: "f", Done: true},
			},
			errs:       map[int]error{0: ErrArgumentsTooLarge},
			incomplete: []Call{{ID: "a", Name: "f"}},
			dropped:    2,
		},
		{
			name: "an index out of range on a call routed by id",
			chunks: []Chunk{
				{ID: "a", Name: "f", ArgsDelta: `{"x":`},
				{ID: "a", HasIndex: true, Index: -7, ArgsDelta: `1`},
				{ID: "a", ArgsDelta: `2}`, Done: true},
			},
			errs:       map[int]error{1: ErrIndexOutOfRange},
			incomplete: []Call{{ID: "a", Name: "f", Original: `{"x":`}},
			dropped:    1,
		},
		{
			name: "a new call with an index out of range and an id opens lost",
			chunks: []Chunk{
				{ID: "a", HasIndex: true, Index: 5000, Name: "f", ArgsDelta: `{"x":1`},
				{ID: "a", Name: "f", ArgsDelta: `}`, Done: true},
			},
			errs:       map[int]error{0: ErrIndexOutOfRange},
			incomplete: []Call{{ID: "a", Name: "f"}},
			dropped:    1,
		},
		{
			// Past the call limit, a call that would open lost is
			// counted, not kept: an attacker's million ids cost a count.
			name: "calls with an index out of range past the call limit are counted",
			lim:  Limits{MaxCalls: 2},
			chunks: []Chunk{
				{ID: "a", HasIndex: true, Index: 5000, Name: "f"},
				{ID: "b", HasIndex: true, Index: 5001, Name: "f"},
				{ID: "c", HasIndex: true, Index: 5002, Name: "f"},
				{ID: "d", HasIndex: true, Index: 5003, Name: "f"},
				{ID: "c", HasIndex: true, Index: 5002, ArgsDelta: `{}`, Done: true},
			},
			errs:       map[int]error{0: ErrIndexOutOfRange, 1: ErrIndexOutOfRange, 2: ErrIndexOutOfRange, 3: ErrIndexOutOfRange, 4: ErrIndexOutOfRange},
			incomplete: []Call{{ID: "a", Name: "f"}, {ID: "b", Name: "f"}},
			refused:    3,
		},
		{
			name: "Args and ArgsDelta together",
			chunks: []Chunk{
				{HasIndex: true, Name: "f", ArgsDelta: `{`},
				{HasIndex: true, Args: sp(`{}`), ArgsDelta: `"a":1`},
				{HasIndex: true, ArgsDelta: `}`, Done: true},
				{HasIndex: true, Index: 1, Name: "g", Done: true},
			},
			errs:       map[int]error{1: ErrConflict},
			want:       []Call{rawCall("tool_0_1", "g", `{}`)},
			incomplete: []Call{{ID: "tool_0_0", Name: "f", Original: `{`}},
			dropped:    1,
		},
		{
			name: "a lost call's index taken by a new id (A02) opens a new call",
			lim:  Limits{MaxArgBytes: 4},
			chunks: []Chunk{
				{HasIndex: true, ID: "a", Name: "f", ArgsDelta: `{"x":1}`},
				{HasIndex: true, ID: "b", Name: "f", ArgsDelta: `{}`, Done: true},
			},
			errs:       map[int]error{0: ErrArgumentsTooLarge},
			want:       []Call{rawCall("b", "f", `{}`)},
			incomplete: []Call{{ID: "a", Name: "f"}},
		},
		{
			// Routed by neither id nor index, the chunks after a call that
			// could not open are that call's, not the previous one's.
			name: "a call that cannot open shadows the latest",
			lim:  Limits{MaxCalls: 1},
			chunks: []Chunk{
				{Name: "f", ArgsDelta: `{"a":1}`},
				{Name: "g", ArgsDelta: `{"rm":`},
				{ArgsDelta: `"-rf"}`},
				{Done: true},
				{Name: "f", ArgsDelta: `,`},
			},
			// DoneAll still completes the first call: none of its own
			// chunks was lost.
			errs:    map[int]error{1: ErrTooManyCalls},
			doneAll: []Call{rawCall("tool_0_0", "f", `{"a":1}`)},
			dropped: 3,
			refused: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuffer(WithLimits(tt.lim))
			var got []Call
			for i, c := range tt.chunks {
				before := snapshot(b)
				done, err := b.Add(c)
				want := tt.errs[i]
				if !errors.Is(err, want) || (want == nil) != (err == nil) {
					t.Fatalf("Add(chunk %d) error = %v, want %v", i, err, want)
				}
				if err != nil {
					checkRejected(t, before, b, c)
				}
				got = append(got, done...)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("completed (-want +got):\n%s", diff)
			}
			if b.dropped != tt.dropped {
				t.Errorf("Dropped() = %d, want %d", b.dropped, tt.dropped)
			}
			done, _ := b.doneAll()
			if diff := cmp.Diff(tt.doneAll, done); diff != "" {
				t.Errorf("DoneAll (-want +got):\n%s", diff)
			}
			inc, err := b.Finish()
			var ie *incompleteError
			if errors.As(err, &ie) && ie.Refused != tt.refused {
				t.Errorf("Finish error = %v, counting %d refused chunks, want %d", err, ie.Refused, tt.refused)
			}
			if tt.refused > 0 && !errors.Is(err, ErrTooManyCalls) {
				t.Errorf("Finish error = %v, want one wrapping ErrTooManyCalls", err)
			}
			if len(tt.incomplete) == 0 {
				if inc != nil || (err != nil) != (tt.refused > 0) {
					t.Errorf("Finish = %+v, %v, want no incomplete call, and an error only for refused chunks", inc, err)
				}
				return
			}
			if diff := cmp.Diff(tt.incomplete, inc); diff != "" {
				t.Errorf("Finish (-want +got):\n%s", diff)
			}
			if !errors.As(err, &ie) || !errors.Is(err, ErrLostChunk) || !errors.Is(err, tt.errs[firstKey(tt.errs)]) {
				t.Errorf("Finish error = %v, want an *IncompleteError wrapping ErrLostChunk and %v", err, tt.errs[firstKey(tt.errs)])
			}
		})
	}
}

func firstKey(m map[int]error) int {
	k := -1
	for i := range m {
		if k < 0 || i < k {
			k = i
		}
	}
	return k
}

// TestPropNoSplice: over random streams with random limit hits and other
// rejected chunks, every call that completes has exactly the arguments its
// deltas sent, all of them; a call with a rejected chunk never completes.
func TestPropNoSplice(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		calls := genCalls().Draw(t, "calls")
		maxArg := rapid.IntRange(4, 64).Draw(t, "max arg bytes")
		r := routing(rapid.IntRange(0, 2).Draw(t, "routing"))
		lists := make([][]Chunk, len(calls))
		for i, c := range calls {
			deltas := split(t, c.args)
			// Random rejected chunks among the deltas: too large, a
			// conflicting name, both Args and ArgsDelta, a bad patch.
			var withBad []string
			for _, d := range deltas {
				if rapid.IntRange(0, 5).Draw(t, "bad?") == 0 {
					withBad = append(withBad, "\x00bad")
				}
				withBad = append(withBad, d)
			}
			lists[i] = chunksOf(c, withBad, r)
			for k := range lists[i] {
				ch := &lists[i][k]
				if ch.ArgsDelta != "\x00bad" {
					continue
				}
				switch rapid.IntRange(0, 3).Draw(t, "bad kind") {
				case 0:
					ch.ArgsDelta = strings.Repeat("x", maxArg+1)
				case 1:
					ch.ArgsDelta, ch.Name = "", "other"
				case 2:
					ch.ArgsDelta, ch.Args = `{`, sp(`{}`)
				default:
					ch.ArgsDelta, ch.Patch = "", map[string]json.RawMessage{"k": json.RawMessage(`nope`)}
				}
			}
		}
		stream := interleave(t, lists)
		// sent is every argument delta addressed to each call, rejected or
		// not; rejected marks the calls that had a chunk refused.
		sent := map[string]*strings.Builder{}
		rejected := map[string]bool{}
		byIndexID := map[int]string{}
		for _, c := range calls {
			sent[c.id] = &strings.Builder{}
			byIndexID[c.index] = c.id
		}
		b := NewBuffer(WithLimits(Limits{MaxArgBytes: maxArg}))
		for _, ch := range stream {
			id := ch.ID
			if id == "" {
				id = byIndexID[ch.Index]
			}
			sent[id].WriteString(ch.ArgsDelta)
			if _, err := b.Add(ch); err != nil {
				var ce *ChunkError
				if errors.As(err, &ce) {
					rejected[id] = true
				}
			}
		}
		b.doneAll()
		b.Finish()
		for _, call := range b.Calls() {
			if rejected[call.ID] {
				t.Fatalf("call %q completed with %s although a chunk of it was rejected", call.ID, call.Arguments)
			}
			want := sent[call.ID].String()
			got := string(call.Arguments)
			if call.Repaired {
				got = call.Original
			}
			if want == "" {
				want = "{}"
			}
			if got != want {
				t.Fatalf("call %q completed with %q, its deltas sent %q", call.ID, got, want)
			}
		}
		if n := len(b.Calls()) + len(b.failed); n+countIncomplete(b) != len(calls) {
			t.Fatalf("%d calls sent, %d completed or failed, %d incomplete", len(calls), n, countIncomplete(b))
		}
	})
}

func countIncomplete(b *Buffer) int {
	inc, _ := b.Finish()
	return len(inc)
}

// TestArgumentsInvalidAcrossDeltas checks that a byte sequence spread over
// two deltas that never forms a character fails the call: each delta alone
// passes the per-delta check, which allows a character cut at its edges.
func TestArgumentsInvalidAcrossDeltas(t *testing.T) {
	b := NewBuffer()
	for _, c := range []Chunk{
		{ID: "c1", Name: "f", ArgsDelta: "{\"a\":\"\xe6"},
		{ID: "c1", ArgsDelta: "\x97\"}"},
		{ID: "c1", Done: true},
	} {
		if _, err := b.Add(c); err != nil {
			if !errors.Is(err, ErrInvalidUTF8) || !strings.Contains(err.Error(), "byte 6") {
				t.Fatalf("Add: %v, want ErrInvalidUTF8 at byte 6", err)
			}
			return
		}
	}
	t.Fatalf("the call completed with arguments that are not UTF-8: %+v", b.Calls())
}
