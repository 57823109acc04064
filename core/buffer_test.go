package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/toolconform/conform/core/repair"
)

func sp(s string) *string { return &s }

func rawCall(id, name, args string) Call {
	return Call{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

// dumpBuffer renders every part of a buffer's state, so that two states can
// be compared with cmp.Diff.
func dumpBuffer(b *Buffer) string {
	var s strings.Builder
	fmt.Fprintf(&s, "lim=%+v cum=%v finished=%v\n", b.lim, b.cumulative, b.finished)
	for _, cs := range b.calls {
		keys := make([]string, 0, len(cs.patch))
		for k := range cs.patch {
			keys = append(keys, k+"="+string(cs.patch[k]))
		}
		sort.Strings(keys)
		fmt.Fprintf(&s, "call %d turn=%d index=%d/%v ord=%d id=%q item=%q name=%q sig=%q args=%q patch=%v/%d doneSeen=%v done=%v cum=%v text=%q final=%q fromArgs=%v gen=%q\n",
			cs.seq, cs.turn, cs.index, cs.hasIndex, cs.ordinal, cs.id, cs.itemID, cs.name, cs.sig, cs.args, keys, cs.patchLen, cs.doneSeen, cs.done, cs.looksCum, cs.text, cs.final, cs.fromArgs, cs.genID)
	}
	for _, cs := range b.open {
		if cs != nil {
			fmt.Fprintf(&s, "open %d\n", cs.seq)
		}
	}
	var keys []string
	for k, v := range b.byID {
		keys = append(keys, fmt.Sprintf("id %q->%d", k, v.seq))
	}
	for k, v := range b.byItem {
		keys = append(keys, fmt.Sprintf("item %q->%d", k, v.seq))
	}
	for k, v := range b.byIndex {
		keys = append(keys, fmt.Sprintf("index %v->%d", k, v.seq))
	}
	for k, v := range b.perTurn {
		keys = append(keys, fmt.Sprintf("turn %d:%d", k, v))
	}
	for k := range b.genIDs {
		keys = append(keys, "gen "+k)
	}
	sort.Strings(keys)
	s.WriteString(strings.Join(keys, "\n"))
	fmt.Fprintf(&s, "\ncompleted=%v failed=%d incomplete=%v", b.completed, len(b.failed), b.incomplete)
	return s.String()
}

// bufferSnapshot is what a rejected chunk must leave as it was: the state
// of every call (lost or not), and the calls completed, failed and
// incomplete.
type bufferSnapshot struct {
	calls []string
	ended string
}

func snapshot(b *Buffer) bufferSnapshot {
	var s bufferSnapshot
	for _, cs := range b.calls {
		s.calls = append(s.calls, fmt.Sprintf("call %d turn=%d index=%d/%v id=%q item=%q name=%q sig=%q args=%q patch=%v/%d doneSeen=%v done=%v text=%q final=%q fromArgs=%v gen=%q",
			cs.seq, cs.turn, cs.index, cs.hasIndex, cs.id, cs.itemID, cs.name, cs.sig, cs.args, cs.patch, cs.patchLen, cs.doneSeen, cs.done, cs.text, cs.final, cs.fromArgs, cs.genID))
	}
	s.ended = fmt.Sprintf("completed=%v failed=%d incomplete=%v", b.completed, len(b.failed), b.incomplete)
	return s
}

// checkRejected checks what a rejected chunk c did: nothing to the calls
// there were, but mark the one it routes to lost; or open one new call,
// lost, holding nothing of c but its route and name.
func checkRejected(t interface {
	Helper()
	Errorf(string, ...any)
}, before bufferSnapshot, b *Buffer, c Chunk) {
	t.Helper()
	after := snapshot(b)
	if diff := cmp.Diff(before.ended, after.ended); diff != "" {
		t.Errorf("rejected chunk changed the ended calls (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(before.calls, after.calls[:min(len(before.calls), len(after.calls))], cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("rejected chunk changed a call (-before +after):\n%s", diff)
	}
	switch n := len(after.calls) - len(before.calls); {
	case n == 1:
		cs := b.calls[len(b.calls)-1]
		if cs.lost == nil || len(cs.args) > 0 || len(cs.patch) > 0 || cs.doneSeen || cs.name != c.Name {
			t.Errorf("rejected chunk opened call %s, want it lost, empty and named %q", after.calls[len(after.calls)-1], c.Name)
		}
	case n != 0:
		t.Errorf("rejected chunk opened %d calls", n)
	}
}

func TestBuffer(t *testing.T) {
	tests := []struct {
		name   string
		opts   []BufferOption
		chunks []Chunk
		// errs maps a chunk's position to the sentinel its Add must
		// return; every other Add must succeed.
		errs       map[int]error
		doneAll    bool
		want       []Call
		failed     map[string]error // call id -> sentinel
		incomplete []Call
		dropped    int // chunks dropped after their call lost one
	}{
		{
			name: "A05 interleaved by index",
			chunks: []Chunk{
				{HasIndex: true, Index: 0, ID: "a", Name: "f", Start: true},
				{HasIndex: true, Index: 1, ID: "b", Name: "g", Start: true},
				{HasIndex: true, Index: 1, ArgsDelta: `{"y"`},
				{HasIndex: true, Index: 0, ArgsDelta: `{"x"`},
				{HasIndex: true, Index: 0, ArgsDelta: `:1}`},
				{HasIndex: true, Index: 1, ArgsDelta: `:2}`, Done: true},
				{HasIndex: true, Index: 0, Done: true},
			},
			want: []Call{rawCall("b", "g", `{"y":2}`), rawCall("a", "f", `{"x":1}`)},
		},
		{
			name: "A01 every call on index 0, one after another",
			chunks: []Chunk{
				{HasIndex: true, ID: "a", Name: "f", ArgsDelta: `{"x":1}`},
				{HasIndex: true, ID: "b", Name: "g", ArgsDelta: `{"y":2}`},
			},
			doneAll: true,
			want:    []Call{rawCall("a", "f", `{"x":1}`), rawCall("b", "g", `{"y":2}`)},
		},
		{
			name: "A01 A02 index 0 reused while the first call is unfinished",
			chunks: []Chunk{
				{HasIndex: true, ID: "a", Name: "f", ArgsDelta: `{"x":`},
				{HasIndex: true, ID: "b", Name: "g", ArgsDelta: `{"y":2}`},
				{HasIndex: true, ID: "a", ArgsDelta: `1}`},
			},
			doneAll: true,
			want:    []Call{rawCall("a", "f", `{"x":1}`), rawCall("b", "g", `{"y":2}`)},
		},
		{
			name: "A02 displaced call never finishes",
			chunks: []Chunk{
				{HasIndex: true, ID: "a", Name: "f", ArgsDelta: `{"x":`},
				{HasIndex: true, ID: "b", Name: "g", ArgsDelta: `{"y":2}`, Done: true},
			},
			want:       []Call{rawCall("b", "g", `{"y":2}`)},
			incomplete: []Call{{ID: "a", Name: "f", Original: `{"x":`}},
		},
		{
			name: "A01 A20 a call displaced before its arguments stays open for them",
			chunks: []Chunk{
				{HasIndex: true, Index: 0, ID: "a", Name: "f", Start: true},
				{HasIndex: true, Index: 0, ID: "b", Name: "g", Start: true},
				{HasIndex: true, Index: 0, ID: "a", ArgsDelta: `{"x":1}`},
				{HasIndex: true, Index: 0, ArgsDelta: `{"y":2}`},
			},
			doneAll: true,
			want:    []Call{rawCall("a", "f", `{"x":1}`), rawCall("b", "g", `{"y":2}`)},
		},
		{
			name: "A01 a displaced call ends on its own Done, by id",
			chunks: []Chunk{
				{HasIndex: true, Index: 0, ID: "a", Name: "f", Start: true},
				{HasIndex: true, Index: 0, ID: "b", Name: "g", Start: true},
				{HasIndex: true, Index: 0, ID: "a", Done: true},
				{HasIndex: true, Index: 0, ArgsDelta: `{"y":2}`, Done: true},
			},
			want: []Call{rawCall("a", "f", `{}`), rawCall("b", "g", `{"y":2}`)},
		},
		{
			name: "A01 B11 displaced calls with whole arguments are still incomplete at Finish",
			chunks: []Chunk{
				{HasIndex: true, ID: "a", Name: "f", ArgsDelta: `{"x":1}`},
				{HasIndex: true, ID: "b", Name: "g", ArgsDelta: `{"y":2}`},
			},
			incomplete: []Call{{ID: "a", Name: "f", Original: `{"x":1}`}, {ID: "b", Name: "g", Original: `{"y":2}`}},
		},
		{
			name: "A03 empty-string id on continuations",
			chunks: []Chunk{
				{HasIndex: true, ID: "call_1", Name: "f", ArgsDelta: ""},
				{HasIndex: true, ID: "", ArgsDelta: `{"a":`},
				{HasIndex: true, ID: "", ArgsDelta: `1}`},
			},
			doneAll: true,
			want:    []Call{rawCall("call_1", "f", `{"a":1}`)},
		},
		{
			name: "A04 id and name repeated on every chunk",
			chunks: []Chunk{
				{ID: "chatcmpl-tool-aa62", Name: "web_fetch", ArgsDelta: `{"url":`},
				{ID: "chatcmpl-tool-aa62", Name: "web_fetch", ArgsDelta: `"x"}`},
				{ID: "chatcmpl-tool-aa62", Name: "web_fetch", Done: true},
			},
			want: []Call{rawCall("chatcmpl-tool-aa62", "web_fetch", `{"url":"x"}`)},
		},
		{
			name: "A06 no id nor index, name only on the first fragment",
			chunks: []Chunk{
				{Name: "f", ArgsDelta: `{"a"`},
				{ArgsDelta: `:1}`},
				{Name: "g", ArgsDelta: `{}`},
				{Name: "f", ArgsDelta: `{"a":2}`},
			},
			doneAll: true,
			want: []Call{
				rawCall("tool_0_0", "f", `{"a":1}`),
				rawCall("tool_0_1", "g", `{}`),
				rawCall("tool_0_2", "f", `{"a":2}`),
			},
		},
		{
			name: "A08 two entries with one index in one chunk",
			chunks: []Chunk{
				{HasIndex: true, Index: 2, ID: "c", Name: "f", Start: true},
				{HasIndex: true, Index: 2, ArgsDelta: `{"q":`, Start: true},
				{HasIndex: true, Index: 2, ArgsDelta: `"z"}`, Done: true},
			},
			want: []Call{rawCall("c", "f", `{"q":"z"}`)},
		},
		{
			name: "A09 name after the arguments, Done before the name",
			chunks: []Chunk{
				{HasIndex: true, ArgsDelta: `{"a":1}`},
				{HasIndex: true, Done: true},
				{HasIndex: true, Name: "late"},
			},
			want: []Call{rawCall("tool_0_0", "late", `{"a":1}`)},
		},
		{
			name: "A10 another name for the same call",
			chunks: []Chunk{
				{ID: "a", Name: "web_fetch"},
				{ID: "a", Name: "web_search"},
				{ID: "a", Done: true},
			},
			// The call lost a chunk: it is never complete, and its Done
			// is dropped.
			errs:       map[int]error{1: ErrConflict},
			incomplete: []Call{{ID: "a", Name: "web_fetch"}},
			dropped:    1,
		},
		{
			name: "A11 A12 index out of range",
			chunks: []Chunk{
				{HasIndex: true, Index: -2, Name: "f"},
				{HasIndex: true, Index: 1_000_000_000, Name: "f"},
				{HasIndex: true, Index: DefaultMaxIndex, Name: "f", Done: true},
			},
			errs: map[int]error{0: ErrIndexOutOfRange, 1: ErrIndexOutOfRange},
			want: []Call{rawCall("tool_0_1023", "f", `{}`)},
		},
		{
			name: "A11 index -1 for a lone call, as Bedrock's OpenAI-compatible endpoint sends it",
			chunks: []Chunk{
				{HasIndex: true, Index: -1, ID: "tooluse_1", Name: "get_weather", ArgsDelta: `{"city":`},
				{HasIndex: true, Index: -1, ArgsDelta: `"Lima"}`},
				{HasIndex: true, Index: -1, Done: true},
			},
			want: []Call{rawCall("tooluse_1", "get_weather", `{"city":"Lima"}`)},
		},
		{
			name: "A13 two turns on the same index",
			chunks: []Chunk{
				{Turn: 0, HasIndex: true, Name: "f", ArgsDelta: `{"n":`},
				{Turn: 1, HasIndex: true, Name: "f", ArgsDelta: `{"n":`},
				{Turn: 1, HasIndex: true, ArgsDelta: `2}`},
				{Turn: 0, HasIndex: true, ArgsDelta: `1}`},
			},
			doneAll: true,
			want:    []Call{rawCall("tool_0_0", "f", `{"n":1}`), rawCall("tool_1_0", "f", `{"n":2}`)},
		},
		{
			name: "A16 A17 Responses item id and done-only arguments",
			chunks: []Chunk{
				{HasIndex: true, Index: 1, ID: "call_1", ItemID: "fc_1", Name: "f", Start: true},
				{HasIndex: true, Index: 1, ItemID: "fc_1", Args: sp(`{"a":1}`), Done: true},
				{HasIndex: true, Index: 1, ItemID: "fc_1", Args: sp(`{"a": 1}`), Done: true},
			},
			want: []Call{{ID: "call_1", ItemID: "fc_1", Name: "f", Arguments: json.RawMessage(`{"a":1}`)}},
		},
		{
			name: "A18 input on the start, then deltas",
			chunks: []Chunk{
				{HasIndex: true, Index: 1, ID: "t1", Name: "f", Args: sp(`{}`), Start: true},
				{HasIndex: true, Index: 1, ArgsDelta: `{"a":`},
				{HasIndex: true, Index: 1, ArgsDelta: `1}`},
				{HasIndex: true, Index: 2, ID: "t2", Name: "f", Args: sp(`{"b":2}`), Start: true},
				{HasIndex: true, Index: 2, ArgsDelta: `{"b":`},
				{HasIndex: true, Index: 2, ArgsDelta: `2}`},
				{HasIndex: true, Index: 2, Done: true},
				{HasIndex: true, Index: 1, Done: true},
			},
			want: []Call{rawCall("t2", "f", `{"b":2}`), rawCall("t1", "f", `{"a":1}`)},
		},
		{
			name: "G13 signature kept",
			chunks: []Chunk{
				{ID: "a", Name: "f", Args: sp(`{}`)},
				{ID: "a", Signature: "sig", Done: true},
			},
			want: []Call{{ID: "a", Name: "f", Arguments: json.RawMessage(`{}`), Signature: "sig"}},
		},
		{
			name: "B01 cumulative resend is not guessed",
			chunks: []Chunk{
				{ID: "a", Name: "f", ArgsDelta: `{"a":`},
				{ID: "a", ArgsDelta: `{"a":1`},
				{ID: "a", ArgsDelta: `{"a":1}`, Done: true},
			},
			errs:   map[int]error{2: repair.ErrTruncated},
			failed: map[string]error{"a": repair.ErrTruncated},
		},
		{
			name: "B01 cumulative resend with WithCumulativeArgs",
			opts: []BufferOption{WithCumulativeArgs()},
			chunks: []Chunk{
				{ID: "a", Name: "f", ArgsDelta: `{"a":`},
				{ID: "a", ArgsDelta: `{"a":1`},
				{ID: "a", ArgsDelta: `{"a":1}`, Done: true},
			},
			want: []Call{rawCall("a", "f", `{"a":1}`)},
		},
		{
			name: "B02 final full copy as Args, then a different copy",
			chunks: []Chunk{
				{ID: "a", Name: "f", ArgsDelta: `{"a":`},
				{ID: "a", ArgsDelta: `1}`},
				{ID: "a", Args: sp(`{"a":1}`), Done: true},
				{ID: "a", Args: sp(`{"a":1}`)},
				{ID: "a", Args: sp(`{"a":2}`)},
			},
			errs: map[int]error{4: ErrAfterDone},
			want: []Call{rawCall("a", "f", `{"a":1}`)},
		},
		{
			name: "B02 final full copy as a delta",
			chunks: []Chunk{
				{ID: "a", Name: "f", ArgsDelta: `{"a":`},
				{ID: "a", ArgsDelta: `1}`},
				{ID: "a", ArgsDelta: `{"a":1}`, Done: true},
			},
			want: []Call{{ID: "a", Name: "f", Arguments: json.RawMessage(`{"a":1}`), Repaired: true, Original: `{"a":1}{"a":1}`}},
		},
		{
			name: "B03 trailing empty delta after Done",
			chunks: []Chunk{
				{HasIndex: true, ID: "a", Name: "f", ArgsDelta: `{}`, Done: true},
				{HasIndex: true, ArgsDelta: ""},
				{HasIndex: true, ID: "a", Name: "f"},
				{},
			},
			want: []Call{rawCall("a", "f", `{}`)},
		},
		{
			name: "B09 valid-looking prefix is not finished early",
			chunks: []Chunk{
				{ID: "a", Name: "f", ArgsDelta: `{"n":1`},
				{ID: "a", ArgsDelta: `2}`},
				{ID: "a", Done: true},
				{ID: "b", Name: "g", ArgsDelta: `{"n":1}`},
			},
			want:       []Call{rawCall("a", "f", `{"n":12}`)},
			incomplete: []Call{{ID: "b", Name: "g", Original: `{"n":1}`}},
		},
		{
			name: "B10 truncated arguments at the finish",
			chunks: []Chunk{
				{ID: "a", Name: "f", ArgsDelta: `{"city":"Par`},
				{ID: "b", Name: "g", ArgsDelta: `{}`},
			},
			doneAll: true,
			want:    []Call{rawCall("b", "g", `{}`)},
			failed:  map[string]error{"a": repair.ErrTruncated},
		},
		{
			name: "B11 no name, no completion",
			chunks: []Chunk{
				{HasIndex: true, ArgsDelta: `{"a":1}`},
			},
			doneAll:    true,
			incomplete: []Call{{ID: "tool_0_0", Original: `{"a":1}`}},
		},
		{
			name: "C01 C02 empty and absent arguments",
			chunks: []Chunk{
				{ID: "a", Name: "f", ArgsDelta: ""},
				{ID: "a", Done: true},
				{ID: "b", Name: "g", Args: sp("  "), Done: true},
				{ID: "c", Name: "h", Done: true},
			},
			want: []Call{rawCall("a", "f", `{}`), rawCall("b", "g", `{}`), rawCall("c", "h", `{}`)},
		},
		{
			name: "C09 repaired arguments are reported",
			chunks: []Chunk{
				{ID: "a", Name: "f", ArgsDelta: `{'a': 1,}`, Done: true},
			},
			want: []Call{{ID: "a", Name: "f", Arguments: json.RawMessage(`{"a": 1}`), Repaired: true, Original: `{'a': 1,}`}},
		},
		{
			name: "C09 a repair into a non-object fails",
			chunks: []Chunk{
				{ID: "a", Name: "f", ArgsDelta: `Paris`, Done: true},
				{ID: "a", Args: sp(`{bad`)},
			},
			errs:   map[int]error{0: ErrInvalidArguments, 1: ErrAfterDone},
			failed: map[string]error{"a": ErrInvalidArguments},
		},
		{
			name: "valid non-object arguments are kept for validation to judge",
			chunks: []Chunk{
				{ID: "a", Name: "f", ArgsDelta: `"{\"a\":1}"`, Done: true},
			},
			want: []Call{rawCall("a", "f", `"{\"a\":1}"`)},
		},
		{
			name: "B04 two different objects fail",
			chunks: []Chunk{
				{ID: "a", Name: "f", ArgsDelta: `{"q":"a"}{"q":"b"}`, Done: true},
			},
			errs:   map[int]error{0: repair.ErrUnrepairable},
			failed: map[string]error{"a": repair.ErrUnrepairable},
		},
		{
			name: "D06 a second call reusing an ended call's id",
			chunks: []Chunk{
				{ID: "a", Name: "f", Args: sp(`{"n":1}`), Done: true},
				{ID: "a", Name: "f", Args: sp(`{"n":2}`), Start: true, Done: true},
				{ID: "a", ArgsDelta: `x`},
			},
			errs: map[int]error{2: ErrAfterDone},
			want: []Call{rawCall("a", "f", `{"n":1}`), rawCall("a", "f", `{"n":2}`)},
		},
		{
			name: "generated ids stay unique",
			chunks: []Chunk{
				{HasIndex: true, Name: "f", Done: true},
				{HasIndex: true, Name: "f", Start: true, Done: true},
				{HasIndex: true, Index: 1, ID: "tool_0_1", Name: "g", Done: true},
				{HasIndex: true, Index: 2, Name: "h", Done: true},
			},
			want: []Call{rawCall("tool_0_0", "f", `{}`), rawCall("tool_0_0_1", "f", `{}`), rawCall("tool_0_1", "g", `{}`), rawCall("tool_0_2", "h", `{}`)},
		},
		{
			// A generated id is chosen when its call ends: it skips the
			// provider ids seen so far (_<position>, then _2, _3, …), and a
			// provider id that later repeats it is rejected, never
			// rewritten, so ids stay unique.
			name: "generated ids never equal a provider id",
			chunks: []Chunk{
				{ID: "tool_0_1", Name: "g"},
				{ID: "tool_0_1_2", Name: "g"},
				{HasIndex: true, Index: 1, Name: "h", Done: true},
				{ID: "tool_0_1_2_2", Name: "f", Done: true},
				{HasIndex: true, Index: 1, ID: "tool_0_1_2_2", Name: "h", Start: true},
				{HasIndex: true, Index: 5, Name: "k"},
				{HasIndex: true, Index: 5, ID: "tool_0_1_2_2"},
				{HasIndex: true, Index: 5, ID: "tool_0_5"},
			},
			// Chunk 6 gives the call at index 5 a clashing id: the call
			// is lost, and chunk 7 of it dropped.
			errs:    map[int]error{3: ErrConflict, 4: ErrConflict, 6: ErrConflict},
			doneAll: true,
			want: []Call{
				rawCall("tool_0_1_2_2", "h", `{}`),
				rawCall("tool_0_1", "g", `{}`), rawCall("tool_0_1_2", "g", `{}`),
			},
			incomplete: []Call{{ID: "tool_0_5", Name: "k"}},
			dropped:    1,
		},
		{
			name: "a provider id equal to a generated one, both at Finish",
			chunks: []Chunk{
				{HasIndex: true, Name: "f", ArgsDelta: `{"a":`},
				{HasIndex: true, Index: 1, ID: "tool_0_0", Name: "g", ArgsDelta: `{"b":`},
			},
			incomplete: []Call{{ID: "tool_0_0_0", Name: "f", Original: `{"a":`}, {ID: "tool_0_0", Name: "g", Original: `{"b":`}},
		},
		{
			name: "patches merged key by key",
			chunks: []Chunk{
				{ID: "a", Name: "f", ArgsDelta: `{"z":0,"a":1}`},
				{ID: "a", Patch: map[string]json.RawMessage{"b": json.RawMessage(`"x"`)}},
				{ID: "a", Patch: map[string]json.RawMessage{"b": json.RawMessage(`[1]`), "a": json.RawMessage(`2`)}, Done: true},
				{ID: "b", Name: "g", Patch: map[string]json.RawMessage{"k": json.RawMessage(`nope`)}},
				{ID: "c", Name: "h", ArgsDelta: `[1]`, Patch: map[string]json.RawMessage{"k": json.RawMessage(`1`)}, Done: true},
			},
			// Call b opens lost with its first chunk rejected.
			errs:       map[int]error{3: ErrInvalidPatch, 4: ErrInvalidPatch},
			want:       []Call{rawCall("a", "f", `{"a":2,"b":[1],"z":0}`)},
			failed:     map[string]error{"c": ErrInvalidPatch},
			incomplete: []Call{{ID: "b", Name: "g"}},
		},
		{
			name: "conflicting ids on one call",
			chunks: []Chunk{
				{ID: "a", ItemID: "x", Name: "f"},
				{ID: "b", ItemID: "x", ArgsDelta: `{}`},
				{ItemID: "y", ID: "a"},
				{HasIndex: true, Index: 3, ItemID: "z", Name: "g"},
				{HasIndex: true, Index: 3, ID: "c"},
				{ID: "a", Args: sp(`{}`), ArgsDelta: `{}`},
				{ID: "a", Done: true},
			},
			// Chunk 1 contradicts call a, which is lost: its later
			// chunks 2, 5 and 6 are dropped.
			errs:       map[int]error{1: ErrConflict},
			doneAll:    true,
			want:       []Call{{ID: "c", ItemID: "z", Name: "g", Arguments: json.RawMessage(`{}`)}},
			incomplete: []Call{{ID: "a", ItemID: "x", Name: "f"}},
			dropped:    3,
		},
		{
			name: "chunk without routing after every call ended",
			chunks: []Chunk{
				{Name: "f", Done: true},
				{ArgsDelta: `{"late":1}`},
				{Start: true, Name: "g", Done: true},
			},
			errs: map[int]error{1: ErrAfterDone},
			want: []Call{rawCall("tool_0_0", "f", `{}`), rawCall("tool_0_1", "g", `{}`)},
		},
		{
			name: "first chunk without routing or name opens a call",
			chunks: []Chunk{
				{ArgsDelta: `{"a":1}`},
				{Name: "f", Done: true},
			},
			want: []Call{rawCall("tool_0_0", "f", `{"a":1}`)},
		},
		{
			name: "chunks after Done are rejected",
			chunks: []Chunk{
				{ID: "a", Name: "f", Done: true},
				{ID: "a", Name: "g"},
				{ID: "a", Patch: map[string]json.RawMessage{"k": json.RawMessage(`1`)}},
				{ID: "a", Done: true},
			},
			errs: map[int]error{1: ErrAfterDone, 2: ErrAfterDone},
			want: []Call{rawCall("a", "f", `{}`)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuffer(tt.opts...)
			var got []Call
			for i, c := range tt.chunks {
				before := snapshot(b)
				done, err := b.Add(c)
				want := tt.errs[i]
				if !errors.Is(err, want) || (want == nil) != (err == nil) {
					t.Fatalf("Add(chunk %d) error = %v, want %v", i, err, want)
				}
				var ce *ChunkError
				if errors.As(err, &ce) {
					checkRejected(t, before, b, c)
					if ce.Chunk != i+1 {
						t.Errorf("ChunkError.Chunk = %d, want %d", ce.Chunk, i+1)
					}
				}
				got = append(got, done...)
			}
			if tt.doneAll {
				done, _ := b.doneAll()
				got = append(got, done...)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("completed calls as returned by Add (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, b.Calls()); diff != "" {
				t.Errorf("Calls() (-want +got):\n%s", diff)
			}
			failed := map[string]error{}
			for _, ce := range b.failed {
				failed[ce.Call.ID] = ce.Err
				if ce.Call.Arguments != nil {
					t.Errorf("failed call %q has arguments %s", ce.Call.ID, ce.Call.Arguments)
				}
			}
			if len(failed) != len(tt.failed) {
				t.Errorf("Failed() = %v, want %v", failed, tt.failed)
			}
			for id, want := range tt.failed {
				if !errors.Is(failed[id], want) {
					t.Errorf("failed call %q error = %v, want %v", id, failed[id], want)
				}
			}
			inc, err := b.Finish()
			if diff := cmp.Diff(tt.incomplete, inc); diff != "" {
				t.Errorf("Finish() incomplete (-want +got):\n%s", diff)
			}
			if (err != nil) != (len(tt.incomplete) > 0) || (err != nil && !errors.Is(err, ErrIncomplete)) {
				t.Errorf("Finish() error = %v", err)
			}
			if b.nopen != 0 {
				t.Errorf("Pending() after Finish = %d", b.nopen)
			}
			if b.dropped != tt.dropped {
				t.Errorf("Dropped() = %d, want %d", b.dropped, tt.dropped)
			}
		})
	}
}

func TestBufferLimits(t *testing.T) {
	tests := []struct {
		name   string
		lim    Limits
		chunks []Chunk
		want   error // error of the last chunk
		text   string
	}{
		{
			name:   "too many calls",
			lim:    Limits{MaxCalls: 2},
			chunks: []Chunk{{ID: "a", Name: "f"}, {ID: "b", Name: "f", Done: true}, {ID: "c", Name: "f"}},
			want:   ErrTooManyCalls,
			text:   `buffer add chunk 3 (id "c"): tool call count too large: limit 2`,
		},
		{
			name:   "arguments too large by delta",
			lim:    Limits{MaxArgBytes: 8},
			chunks: []Chunk{{HasIndex: true, Index: 4, Name: "f", ArgsDelta: `{"a":`}, {HasIndex: true, Index: 4, ArgsDelta: `1234}`}},
			want:   ErrArgumentsTooLarge,
			text:   `buffer add chunk 2 (index 4 of turn 0): arguments too large: 10 bytes, limit 8`,
		},
		{
			name:   "arguments too large by replacement",
			lim:    Limits{MaxArgBytes: 8},
			chunks: []Chunk{{ItemID: "i", Name: "f", Args: sp(`{}`)}, {ItemID: "i", Args: sp(`{"a":123}`)}},
			want:   ErrArgumentsTooLarge,
			text:   `buffer add chunk 2 (item id "i"): arguments too large: 9 bytes, limit 8`,
		},
		{
			name: "arguments too large by patch",
			lim:  Limits{MaxArgBytes: 8},
			chunks: []Chunk{
				{Name: "f", Patch: map[string]json.RawMessage{"a": json.RawMessage(`12`)}},
				{Patch: map[string]json.RawMessage{"a": json.RawMessage(`1234`)}},
				{Patch: map[string]json.RawMessage{"b": json.RawMessage(`1234`)}},
			},
			want: ErrArgumentsTooLarge,
			text: `buffer add chunk 3 (latest call of turn 0): arguments too large: 10 bytes, limit 8`,
		},
		{
			name:   "cumulative replacement counts once",
			lim:    Limits{MaxArgBytes: 8},
			chunks: []Chunk{{Name: "f", ArgsDelta: `{"a":`}, {ArgsDelta: `{"a":12}`}},
		},
		{
			name:   "a delta after Args counts from zero (A18)",
			lim:    Limits{MaxArgBytes: 8},
			chunks: []Chunk{{Name: "f", Args: sp(`{"a":12}`)}, {ArgsDelta: `{"a":123`}},
		},
		{
			name:   "index limit",
			lim:    Limits{MaxIndex: 3},
			chunks: []Chunk{{HasIndex: true, Index: 4}},
			want:   ErrIndexOutOfRange,
			text:   `buffer add chunk 1 (index 4 of turn 0): tool call index out of range: index 4, allowed 0 to 3, or -1 for a lone call`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuffer(WithLimits(tt.lim), WithCumulativeArgs())
			var err error
			var before bufferSnapshot
			for i, c := range tt.chunks {
				before = snapshot(b)
				_, err = b.Add(c)
				if i < len(tt.chunks)-1 && err != nil {
					t.Fatalf("Add(chunk %d): %v", i, err)
				}
			}
			if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Fatalf("last Add error = %v, want %v", err, tt.want)
			}
			if err == nil {
				return
			}
			if err.Error() != tt.text {
				t.Errorf("error text = %q, want %q", err.Error(), tt.text)
			}
			checkRejected(t, before, b, tt.chunks[len(tt.chunks)-1])
		})
	}
}

func TestLimitsDefaults(t *testing.T) {
	got := Limits{MaxCalls: 5, MaxIndex: -1}.withDefaults()
	want := Limits{MaxCalls: 5, MaxArgBytes: DefaultMaxArgBytes, MaxIndex: DefaultMaxIndex, MaxTextBytes: DefaultMaxTextBytes}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("withDefaults (-want +got):\n%s", diff)
	}
	want = Limits{MaxCalls: 256, MaxArgBytes: 4 << 20, MaxIndex: 1023, MaxTextBytes: 16 << 20}
	if diff := cmp.Diff(want, Limits{}.withDefaults()); diff != "" {
		t.Errorf("zero Limits (-want +got):\n%s", diff)
	}
}

func TestBufferErrorsText(t *testing.T) {
	b := NewBuffer()
	if _, err := b.Add(Chunk{ID: "a", Name: "f", ArgsDelta: `{"x":`}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Add(Chunk{ID: "b", Name: "g", ArgsDelta: `{"q":"a"}{"q":"b"}`}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Add(Chunk{HasIndex: true, Index: 1, Name: "h"}); err != nil {
		t.Fatal(err)
	}
	_, err := b.doneAll()
	want := `buffer complete call "a" (f): repair json: at byte 5: input is truncated: it ends with "{" still open` + "\n" +
		`buffer complete call "b" (g): repair json: at byte 9: input is not repairable: unexpected character "{" at position 9: unexpected character`
	if err == nil || err.Error() != want {
		t.Errorf("DoneAll error:\n%v\nwant:\n%s", err, want)
	}
	if _, err := b.Add(Chunk{ID: "c", Name: "f", ArgsDelta: `{"n":`}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Add(Chunk{ID: "d", ArgsDelta: `{}`}); err != nil {
		t.Fatal(err)
	}
	inc, err := b.Finish()
	want = `buffer finish: 2 tool calls incomplete: "c" (f) after 5 bytes of arguments, "d" () after 2 bytes of arguments`
	if err == nil || err.Error() != want || len(inc) != 2 {
		t.Errorf("Finish error = %v, want %s", err, want)
	}
	var ie *incompleteError
	if !errors.As(err, &ie) || len(ie.Calls) != 2 {
		t.Errorf("Finish error %v is not an *IncompleteError with 2 calls", err)
	}
	inc2, err2 := b.Finish()
	if diff := cmp.Diff(inc, inc2); diff != "" || err2 == nil {
		t.Errorf("second Finish differs (-first +second):\n%s", diff)
	}
	_, err = b.Add(Chunk{ID: "c"})
	if want := `buffer add chunk 6 (id "c"): buffer is finished`; err == nil || err.Error() != want {
		t.Errorf("Add after Finish = %v, want %s", err, want)
	}

	one := &incompleteError{Calls: []Call{{ID: "x", Name: "f"}}}
	if want := `buffer finish: 1 tool call incomplete: "x" (f) after 0 bytes of arguments`; one.Error() != want {
		t.Errorf("IncompleteError = %q, want %q", one.Error(), want)
	}
	b = NewBuffer()
	_, err = b.Add(Chunk{Name: "f", ArgsDelta: "{}", Done: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Add(Chunk{ArgsDelta: "x"})
	if want := `buffer add chunk 2 (latest call of turn 0): chunk adds to a completed tool call: 1 bytes of argument delta`; err == nil || err.Error() != want {
		t.Errorf("Add after Done = %v, want %s", err, want)
	}
}

func TestBufferPreview(t *testing.T) {
	b := NewBuffer()
	chunks := []Chunk{
		{HasIndex: true, Index: 0, ID: "a", Name: "f", ArgsDelta: `{"city":"Par`},
		{HasIndex: true, Index: 1, ItemID: "i", Name: "g"},
		{HasIndex: true, Index: 2, Name: "h", Patch: map[string]json.RawMessage{"k": json.RawMessage(`1`)}},
		{ID: "done", Name: "f", Done: true},
		{ID: "bad", Name: "f", ArgsDelta: `{"a":x`},
	}
	for _, c := range chunks {
		if _, err := b.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		route Chunk
		want  string
	}{
		{Chunk{ID: "a"}, `{"city":"Par"}`},
		{Chunk{HasIndex: true, Index: 0}, `{"city":"Par"}`},
		{Chunk{ItemID: "i"}, `{}`},
		{Chunk{HasIndex: true, Index: 2}, `{"k":1}`},
		{Chunk{ID: "done"}, ""},
		{Chunk{ID: "bad"}, ""},
		{Chunk{ID: "nope"}, ""},
		{Chunk{HasIndex: true, Index: 9}, ""},
		{Chunk{}, ""},
	}
	for _, tt := range tests {
		got, ok := b.Preview(tt.route)
		if (tt.want == "") == ok || string(got) != tt.want {
			t.Errorf("Preview(%+v) = %s, %v, want %q", tt.route, got, ok, tt.want)
		}
	}
	if b.nopen != 4 {
		t.Errorf("Pending() = %d after Preview, want 4", b.nopen)
	}
}

func repairErrTruncated() error { return repair.ErrTruncated }
