package streamenc

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

func TestResponseMeta(t *testing.T) {
	evs := []core.Event{{Kind: core.EventText}, {Kind: core.EventText, Model: "m"}, {Kind: core.EventText, ID: "r2", Model: "m2"}}
	if id, model := ResponseMeta(evs); id != "" || model != "m" {
		t.Errorf("ResponseMeta = %q, %q; want \"\", m (the first event naming either)", id, model)
	}
	if id, model := ResponseMeta(nil); id != "" || model != "" {
		t.Errorf("ResponseMeta(nil) = %q, %q", id, model)
	}
}

func TestIndexes(t *testing.T) {
	var x Indexes
	var got []int
	got = append(got, x.Alloc())
	if !x.Take(2) || x.Take(2) || x.Take(-1) {
		t.Error("Take: 2 must be free once, and -1 never")
	}
	got = append(got, x.Alloc(), x.Alloc(), x.Alloc())
	if diff := cmp.Diff([]int{0, 1, 3, 4}, got); diff != "" {
		t.Errorf("allocated (-want +got):\n%s", diff)
	}
	if x.Take(3) {
		t.Error("Take(3) after Alloc gave 3")
	}
}

// TestAppendCallArgs: the argument texts of call chunks, in the order a
// stream encoder writes them, with the decoder's {} for a call without
// arguments left out.
func TestAppendCallArgs(t *testing.T) {
	s := func(v string) *string { return &v }
	tests := []struct {
		name  string
		kind  core.EventKind
		chunk core.Chunk
		wrote bool
		want  []string
	}{
		{"delta: whole then delta", core.EventCallDelta, core.Chunk{Args: s(`{"a"`), ArgsDelta: `:1}`}, false, []string{`{"a"`, `:1}`}},
		{"delta: empty texts left out", core.EventCallDelta, core.Chunk{Args: s(""), ArgsDelta: ""}, true, nil},
		{"delta: {} is written", core.EventCallDelta, core.Chunk{Args: s("{}")}, false, []string{"{}"}},
		{"end: delta then whole", core.EventCallEnd, core.Chunk{Args: s(`{"b":2}`), ArgsDelta: `x`}, false, []string{"x", `{"b":2}`}},
		{"end: {} of a call without arguments left out", core.EventCallEnd, core.Chunk{Args: s("{}")}, false, nil},
		{"end: {} after argument text kept", core.EventCallEnd, core.Chunk{Args: s("{}")}, true, []string{"{}"}},
		{"end: {} after its own delta kept", core.EventCallEnd, core.Chunk{Args: s("{}"), ArgsDelta: " "}, false, []string{" ", "{}"}},
		{"end: nothing", core.EventCallEnd, core.Chunk{}, true, nil},
		{"start: not this function's", core.EventCallStart, core.Chunk{Args: s("{}"), ArgsDelta: "x"}, false, nil},
	}
	for _, tt := range tests {
		got := AppendCallArgs(nil, tt.kind, &tt.chunk, tt.wrote)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	if got := AppendCallArgs([]string{"kept"}, core.EventCallDelta, &core.Chunk{ArgsDelta: "d"}, false); !cmp.Equal(got, []string{"kept", "d"}) {
		t.Errorf("AppendCallArgs does not append to dst: %q", got)
	}
}
