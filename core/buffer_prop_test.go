package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core/repair"
	"pgregory.net/rapid"
)

// genArgs generates the argument text of a call: a JSON object whose string
// values hold quotes, backslashes, control characters and multi-byte UTF-8,
// so that splits fall inside escapes and characters.
func genArgs() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		keys := rapid.SliceOfN(rapid.SampledFrom([]string{"city", "q", "n", "unit", "path", "ä"}), 0, 4).Draw(t, "keys")
		obj := map[string]any{}
		for _, k := range keys {
			switch rapid.IntRange(0, 3).Draw(t, "kind") {
			case 0:
				obj[k] = rapid.StringOf(rapid.SampledFrom([]rune("ab \"\\/\n\té€😀{}[]:,"))).Draw(t, "s")
			case 1:
				obj[k] = rapid.IntRange(-1000, 1000).Draw(t, "n")
			case 2:
				obj[k] = rapid.Bool().Draw(t, "b")
			default:
				obj[k] = []any{rapid.IntRange(0, 9).Draw(t, "e"), nil}
			}
		}
		b, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		if len(obj) == 0 && rapid.Bool().Draw(t, "empty") {
			return "" // C01: no arguments at all
		}
		return string(b)
	})
}

type propCall struct {
	id, name, args string
	index          int
}

func genCalls() *rapid.Generator[[]propCall] {
	return rapid.Custom(func(t *rapid.T) []propCall {
		n := rapid.IntRange(1, 4).Draw(t, "calls")
		calls := make([]propCall, n)
		for i := range calls {
			calls[i] = propCall{
				id:    fmt.Sprintf("call_%d", i),
				name:  rapid.SampledFrom([]string{"weather", "search", "add"}).Draw(t, "name"),
				args:  genArgs().Draw(t, "args"),
				index: i,
			}
		}
		return calls
	})
}

// split cuts s at random byte offsets, possibly inside a UTF-8 sequence.
func split(t *rapid.T, s string) []string {
	cuts := rapid.SliceOfN(rapid.IntRange(0, len(s)), 0, 12).Draw(t, "cuts")
	sort.Ints(cuts)
	var parts []string
	last := 0
	for _, c := range cuts {
		if c > last {
			parts = append(parts, s[last:c])
			last = c
		}
	}
	if last < len(s) {
		parts = append(parts, s[last:])
	}
	return parts
}

type routing int

const (
	byID routing = iota
	byIndex
	byBoth
)

// chunksOf returns one call's chunks: a start with id, index and name, its
// argument deltas, and a done, routed as r says after the first.
func chunksOf(c propCall, deltas []string, r routing) []Chunk {
	route := func(ch Chunk) Chunk {
		switch r {
		case byID:
			ch.ID = c.id
		case byIndex:
			ch.HasIndex, ch.Index = true, c.index
		default:
			ch.ID, ch.HasIndex, ch.Index = c.id, true, c.index
		}
		return ch
	}
	out := []Chunk{{ID: c.id, HasIndex: true, Index: c.index, Name: c.name, Start: true}}
	for _, d := range deltas {
		out = append(out, route(Chunk{ArgsDelta: d}))
	}
	return append(out, route(Chunk{Done: true}))
}

// interleave merges per-call chunk lists in a random order that keeps each
// list's own order.
func interleave(t *rapid.T, lists [][]Chunk) []Chunk {
	pos := make([]int, len(lists))
	var out []Chunk
	for {
		var live []int
		for i, l := range lists {
			if pos[i] < len(l) {
				live = append(live, i)
			}
		}
		if len(live) == 0 {
			return out
		}
		i := live[rapid.IntRange(0, len(live)-1).Draw(t, "next")]
		out = append(out, lists[i][pos[i]])
		pos[i]++
	}
}

func wantCalls(calls []propCall) []Call {
	want := make([]Call, len(calls))
	for i, c := range calls {
		args := c.args
		if args == "" {
			args = "{}"
		}
		want[i] = Call{ID: c.id, Name: c.name, Arguments: json.RawMessage(args)}
	}
	return want
}

func runChunks(t *rapid.T, chunks []Chunk) []Call {
	b := NewBuffer()
	for i, c := range chunks {
		if _, err := b.Add(c); err != nil {
			t.Fatalf("Add(chunk %d %+v): %v", i, c, err)
		}
	}
	if b.nopen != 0 {
		t.Fatalf("%d calls still open", b.nopen)
	}
	got := b.Calls()
	sort.Slice(got, func(i, j int) bool { return got[i].ID < got[j].ID })
	return got
}

// TestPropSplits: any split of each call's argument text into deltas gives
// the same calls.
func TestPropSplits(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		calls := genCalls().Draw(t, "calls")
		var chunks []Chunk
		for _, c := range calls {
			chunks = append(chunks, chunksOf(c, split(t, c.args), byBoth)...)
		}
		if diff := cmp.Diff(wantCalls(calls), runChunks(t, chunks)); diff != "" {
			t.Fatalf("calls (-want +got):\n%s", diff)
		}
	})
}

// TestPropInterleavings: any interleaving of several calls' chunks that
// keeps each call's own order gives the same calls (A05).
func TestPropInterleavings(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		calls := genCalls().Draw(t, "calls")
		r := routing(rapid.IntRange(0, 2).Draw(t, "routing"))
		lists := make([][]Chunk, len(calls))
		for i, c := range calls {
			lists[i] = chunksOf(c, split(t, c.args), r)
		}
		if diff := cmp.Diff(wantCalls(calls), runChunks(t, interleave(t, lists))); diff != "" {
			t.Fatalf("calls (-want +got):\n%s", diff)
		}
	})
}

// TestPropRouting: the same stream routed by id and routed by index gives
// the same calls.
func TestPropRouting(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		calls := genCalls().Draw(t, "calls")
		deltas := make([][]string, len(calls))
		for i, c := range calls {
			deltas[i] = split(t, c.args)
		}
		order := rapid.SliceOfN(rapid.IntRange(0, 1<<20), 64, 64).Draw(t, "order")
		stream := func(r routing) []Chunk {
			lists := make([][]Chunk, len(calls))
			for i, c := range calls {
				lists[i] = chunksOf(c, deltas[i], r)
			}
			// The same interleaving for both routings.
			pos := make([]int, len(lists))
			var out []Chunk
			for k := 0; ; k++ {
				var live []int
				for i, l := range lists {
					if pos[i] < len(l) {
						live = append(live, i)
					}
				}
				if len(live) == 0 {
					return out
				}
				i := live[order[k%len(order)]%len(live)]
				out = append(out, lists[i][pos[i]])
				pos[i]++
			}
		}
		idCalls := runChunks(t, stream(byID))
		indexCalls := runChunks(t, stream(byIndex))
		if diff := cmp.Diff(idCalls, indexCalls); diff != "" {
			t.Fatalf("routed by id (-) and by index (+):\n%s", diff)
		}
	})
}

// bufferModel is the simple model of Buffer the state machine test checks
// against: open calls with their text, and the calls completed, in order.
type bufferModel struct {
	open      map[string]*modelCall
	order     []string // ids of open calls, in order of opening
	completed []Call
	failed    int
	opened    int
	dropped   int
	refused   int // chunks refused past the call limit
}

type modelCall struct {
	name  string
	index int
	// indexed is false once another call took the index over (A01): the
	// call is then routed by its id only.
	indexed bool
	args    strings.Builder
	// lost is set once a chunk of the call was rejected: the call then
	// drops every chunk and ends incomplete.
	lost bool
}

const (
	smMaxCalls = 12
	smMaxArgs  = 48
)

func (m *bufferModel) pick(t *rapid.T) (string, *modelCall) {
	if len(m.order) == 0 {
		t.Skip("no open call")
	}
	id := rapid.SampledFrom(m.order).Draw(t, "call")
	return id, m.open[id]
}

func (m *bufferModel) close(id string) {
	delete(m.open, id)
	for i, x := range m.order {
		if x == id {
			m.order = append(m.order[:i], m.order[i+1:]...)
			return
		}
	}
}

// TestPropStateMachine drives a Buffer with random operations (open, delta,
// done, trailer, limit breaches) and compares it with bufferModel after
// each step.
func TestPropStateMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := NewBuffer(WithLimits(Limits{MaxCalls: smMaxCalls, MaxArgBytes: smMaxArgs}))
		m := &bufferModel{open: map[string]*modelCall{}}
		route := func(id string, c *modelCall, ch Chunk) Chunk {
			if rapid.Bool().Draw(t, "by id") || !c.indexed {
				ch.ID = id
			} else {
				ch.HasIndex, ch.Index = true, c.index
			}
			return ch
		}
		rejected := func(ch Chunk, want error) {
			before := snapshot(b)
			if _, err := b.Add(ch); !errors.Is(err, want) {
				t.Fatalf("Add(%+v) error = %v, want %v", ch, err, want)
			}
			checkRejected(t, before, b, ch)
		}
		// dropped feeds a chunk of a lost call, which must be dropped.
		dropped := func(ch Chunk) {
			before := snapshot(b)
			if done, err := b.Add(ch); err != nil || len(done) > 0 {
				t.Fatalf("Add(%+v) to a lost call = %v, %v; want it dropped", ch, done, err)
			}
			checkRejected(t, before, b, ch)
			m.dropped++
		}
		t.Repeat(map[string]func(*rapid.T){
			"open": func(t *rapid.T) {
				id := fmt.Sprintf("c%d", m.opened)
				name := rapid.SampledFrom([]string{"f", "g"}).Draw(t, "name")
				ch := Chunk{ID: id, HasIndex: true, Index: m.opened, Name: name, Start: true}
				if m.opened >= smMaxCalls {
					rejected(ch, ErrTooManyCalls)
					m.refused++
					return
				}
				if _, err := b.Add(ch); err != nil {
					t.Fatalf("open: %v", err)
				}
				m.open[id] = &modelCall{name: name, index: m.opened, indexed: true}
				m.order = append(m.order, id)
				m.opened++
			},
			// A01, A02: a new id opens a call on the index of an open one.
			// The old call keeps its id route and its text and completes
			// nothing: not even empty or valid arguments are proof that
			// it is whole (B09, A20).
			"reuse index": func(t *rapid.T) {
				var held []string
				for _, id := range m.order {
					if m.open[id].indexed {
						held = append(held, id)
					}
				}
				if len(held) == 0 {
					t.Skip("no open call holds an index")
				}
				old := m.open[rapid.SampledFrom(held).Draw(t, "displaced")]
				id := fmt.Sprintf("c%d", m.opened)
				name := rapid.SampledFrom([]string{"f", "g"}).Draw(t, "name")
				ch := Chunk{ID: id, HasIndex: true, Index: old.index, Name: name, Start: rapid.Bool().Draw(t, "start")}
				if m.opened >= smMaxCalls {
					rejected(ch, ErrTooManyCalls)
					m.refused++
					return
				}
				done, err := b.Add(ch)
				if err != nil || len(done) > 0 {
					t.Fatalf("reuse index %d: completed %+v, error %v; want nothing", old.index, done, err)
				}
				old.indexed = false
				m.open[id] = &modelCall{name: name, index: old.index, indexed: true}
				m.order = append(m.order, id)
				m.opened++
			},
			"delta": func(t *rapid.T) {
				id, c := m.pick(t)
				d := rapid.StringOfN(rapid.SampledFrom([]rune(`{}[]":,a1 `)), 1, 8, -1).Draw(t, "delta")
				ch := route(id, c, Chunk{ArgsDelta: d})
				if c.lost {
					dropped(ch)
					return
				}
				if c.args.Len()+len(d) > smMaxArgs {
					rejected(ch, ErrArgumentsTooLarge)
					c.lost = true
					return
				}
				if _, err := b.Add(ch); err != nil {
					t.Fatalf("delta: %v", err)
				}
				c.args.WriteString(d)
			},
			"done": func(t *rapid.T) {
				id, c := m.pick(t)
				if c.lost {
					dropped(route(id, c, Chunk{Done: true}))
					return
				}
				done, err := b.Add(route(id, c, Chunk{Done: true}))
				m.close(id)
				text := c.args.String()
				// The model of completion: empty is {}, valid is kept,
				// one document twice is kept once, anything else is
				// what core/repair makes of it, or a failure.
				var args string
				var rerr error
				repaired := false
				trimmed := strings.TrimSpace(text)
				half := trimmed[:len(trimmed)/2]
				switch {
				case trimmed == "":
					args = "{}"
				case json.Valid([]byte(text)):
					args = text
				case len(trimmed)%2 == 0 && half+half == trimmed && json.Valid([]byte(half)):
					args, repaired = half, true
				default:
					args, _, rerr = repair.Repair(text)
					repaired = true
					if rerr != nil {
						rerr = rerr.(*repair.Error).Err
					} else if !strings.HasPrefix(strings.TrimSpace(args), "{") {
						rerr = ErrInvalidArguments
					}
				}
				if rerr != nil {
					m.failed++
					var ce *CallError
					if !errors.As(err, &ce) || ce.Call.ID != id || ce.Call.Original != text || !errors.Is(err, rerr) {
						t.Fatalf("done of %q with %q: error %v, want a CallError for %v", id, text, err, rerr)
					}
					return
				}
				want := Call{ID: id, Name: c.name, Arguments: json.RawMessage(args)}
				if repaired {
					want.Repaired, want.Original = true, text
				}
				if err != nil {
					t.Fatalf("done: %v", err)
				}
				if diff := cmp.Diff([]Call{want}, done); diff != "" {
					t.Fatalf("done (-want +got):\n%s", diff)
				}
				m.completed = append(m.completed, want)
			},
			"trailer": func(t *rapid.T) {
				if len(m.completed) == 0 {
					t.Skip("no completed call")
				}
				c := rapid.SampledFrom(m.completed).Draw(t, "completed")
				if _, err := b.Add(Chunk{ID: c.ID, Name: c.Name}); err != nil {
					t.Fatalf("trailer: %v", err)
				}
			},
			"bad index": func(t *rapid.T) {
				rejected(Chunk{HasIndex: true, Index: singleCallIndex - 1 - rapid.IntRange(0, 5).Draw(t, "neg")}, ErrIndexOutOfRange)
			},
			"": func(t *rapid.T) {
				if b.nopen != len(m.open) {
					t.Fatalf("Pending() = %d, model has %d open", b.nopen, len(m.open))
				}
				if diff := cmp.Diff(m.completed, b.Calls()); diff != "" {
					t.Fatalf("Calls() (-model +buffer):\n%s", diff)
				}
				if len(b.failed) != m.failed {
					t.Fatalf("Failed() has %d, model %d", len(b.failed), m.failed)
				}
				if b.dropped != m.dropped {
					t.Fatalf("Dropped() = %d, model %d", b.dropped, m.dropped)
				}
				for id, c := range m.open {
					got, ok := b.Preview(Chunk{ID: id})
					want, wok := repair.Preview(c.args.String())
					if strings.TrimSpace(c.args.String()) == "" {
						want, wok = json.RawMessage("{}"), true
					}
					if c.lost {
						want, wok = nil, false
					}
					if ok != wok || string(got) != string(want) {
						t.Fatalf("Preview(%q) = %s, %v, want %s, %v", id, got, ok, want, wok)
					}
				}
			},
		})
		inc, err := b.Finish()
		if len(inc) != len(m.open) || (len(inc) > 0 || m.refused > 0) != (err != nil) {
			t.Fatalf("Finish() = %d incomplete, %v; model has %d open, %d refused", len(inc), err, len(m.open), m.refused)
		}
		if errors.Is(err, ErrTooManyCalls) != (m.refused > 0) {
			t.Fatalf("Finish() = %v; model refused %d chunks past the call limit", err, m.refused)
		}
		lost := 0
		for _, c := range m.open {
			if c.lost {
				lost++
			}
		}
		var ie *incompleteError
		if errors.As(err, &ie) {
			if ie.Refused != m.refused {
				t.Fatalf("Finish() error %v counts %d refused chunks, model %d", err, ie.Refused, m.refused)
			}
			got := 0
			for _, l := range ie.Lost {
				if l != nil {
					got++
				}
			}
			if got != lost || (lost > 0) != errors.Is(err, ErrArgumentsTooLarge) {
				t.Fatalf("Finish() error %v names %d lost calls, model has %d", err, got, lost)
			}
		}
	})
}
