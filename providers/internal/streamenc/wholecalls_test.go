package streamenc

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/core"
)

func TestWholeCalls(t *testing.T) {
	s := func(v string) *string { return &v }
	type ev struct {
		kind core.EventKind
		c    core.Chunk
	}
	tests := []struct {
		name string
		in   []ev
		want []WholeCall
	}{
		{"deltas by id, interleaved", []ev{
			{core.EventCallStart, core.Chunk{ID: "a", Index: 0, HasIndex: true, Name: "f", Start: true}},
			{core.EventCallStart, core.Chunk{ID: "b", Index: 1, HasIndex: true, Name: "g", Start: true, Signature: "sig"}},
			{core.EventCallDelta, core.Chunk{Index: 0, HasIndex: true, ArgsDelta: `{"x":`}},
			{core.EventCallDelta, core.Chunk{Index: 1, HasIndex: true, ArgsDelta: `{}`}},
			{core.EventCallDelta, core.Chunk{Index: 0, HasIndex: true, ArgsDelta: `1}`}},
			{core.EventCallEnd, core.Chunk{ID: "b", Done: true}},
			{core.EventCallEnd, core.Chunk{Index: 0, HasIndex: true}},
		}, []WholeCall{
			{ID: "b", Index: 1, HasIndex: true, Name: "g", Signature: "sig", Args: json.RawMessage(`{}`)},
			{ID: "a", Index: 0, HasIndex: true, Name: "f", Args: json.RawMessage(`{"x":1}`)},
		}},
		{"whole args win over deltas and patches", []ev{
			{core.EventCallStart, core.Chunk{Name: "f", Start: true, ArgsDelta: `{"a"`}},
			{core.EventCallDelta, core.Chunk{Patch: map[string]json.RawMessage{"p": json.RawMessage(`1`)}}},
			{core.EventCallEnd, core.Chunk{Args: s(`{"w":true}`), Done: true}},
		}, []WholeCall{{Name: "f", Args: json.RawMessage(`{"w":true}`)}}},
		{"patches merged when nothing else came", []ev{
			{core.EventCallStart, core.Chunk{ID: "p", Name: "f", Start: true}},
			{core.EventCallDelta, core.Chunk{ID: "p", Patch: map[string]json.RawMessage{"a": json.RawMessage(`1`)}}},
			{core.EventCallDelta, core.Chunk{ID: "p", Patch: map[string]json.RawMessage{"b": json.RawMessage(`"x"`)}, Done: true}},
		}, []WholeCall{{ID: "p", Name: "f", Args: json.RawMessage(`{"a":1,"b":"x"}`)}}},
		{"a start reopens, no arguments is nil", []ev{
			{core.EventCallStart, core.Chunk{ID: "a", Name: "f", Start: true, ArgsDelta: "{}"}},
			{core.EventCallStart, core.Chunk{ID: "a", Name: "g", Start: true}},
			{core.EventCallEnd, core.Chunk{ID: "a"}},
		}, []WholeCall{{ID: "a", Name: "g"}}},
		{"index without id keeps its own key", []ev{
			{core.EventCallStart, core.Chunk{Index: 3, HasIndex: true, Name: "f", Start: true}},
			{core.EventCallDelta, core.Chunk{ArgsDelta: `{"k":2}`}},
			{core.EventCallEnd, core.Chunk{Index: 3, HasIndex: true, Done: true}},
		}, []WholeCall{{Index: 3, HasIndex: true, Name: "f", Args: json.RawMessage(`{"k":2}`)}}},
	}
	for _, tc := range tests {
		var w WholeCalls
		var got []WholeCall
		for _, e := range tc.in {
			c := e.c
			call, ok, err := w.Add(core.Event{Kind: e.kind, Chunk: &c})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if ok {
				got = append(got, call)
			}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: calls (-want +got):\n%s", tc.name, diff)
		}
	}
	var w WholeCalls
	if _, _, err := w.Add(core.Event{Kind: core.EventCallEnd}); err == nil {
		t.Error("a call_end without a chunk is no error")
	}
}
