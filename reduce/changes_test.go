package reduce

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestChanges checks that the lines a cause changed are quoted from the
// variant the cause was applied to: after the kept simplifications, not
// from the case as served.
func TestChanges(t *testing.T) {
	cases := builtin(t)
	const a21 = "anthropic/streaming/A21-content-block-indices-start-at-1"
	tests := []struct {
		name, chaos string
		fails       Fails
		want        []Change
	}{
		{
			// Fails while the first block is not block 0; the chaos
			// option is kept and changes no byte of the case.
			name: "first block not 0", chaos: "split=7",
			fails: func(v Variant) bool {
				_, after, _ := strings.Cut(string(v.Scenario.Body), `"content_block_start","index":`)
				return !strings.HasPrefix(after, "0")
			},
			want: []Change{{
				Step:    Step{"renumber", "content block indices 1, 2", "block indices renumbered from 0 (0, 1)"},
				Before:  `data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01Blk1","name":"add","input":{}}}`,
				After:   `data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_01Blk1","name":"add","input":{}}}`,
				Removed: 22, Added: 22,
			}},
		},
		{
			// Fails while arguments come in fragments: renumber and
			// one-call are kept, so the quoted line has block index 0
			// and the second call is gone.
			name: "fragments",
			fails: func(v Variant) bool {
				return strings.Contains(string(v.Scenario.Body), `"partial_json":"{\"a\": 2"`)
			},
			want: []Change{{
				Step:    Step{"whole-arguments", "arguments in fragments (2 per call)", "whole arguments in one fragment per call"},
				Before:  `data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\": 2"}}`,
				After:   `data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\": 2, \"b\": 3}"}}`,
				Removed: 4, Added: 1,
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := find(t, cases, a21)
			r := Reduce(sc, "anthropic", tt.chaos, 0, tt.fails)
			if r == nil || len(r.Causes) != 1 {
				t.Fatalf("Reduce = %+v, want one cause", r)
			}
			if diff := cmp.Diff(tt.want, r.Changes(sc, "anthropic", tt.chaos)); diff != "" {
				t.Errorf("Changes (-want +got):\n%s", diff)
			}
		})
	}
	// A cause that is the chaos option alone changed no byte of the case.
	sc := find(t, cases, a21)
	r := Reduce(sc, "anthropic", "keepalive", 0, func(v Variant) bool { return v.Chaos })
	if got := r.Changes(sc, "anthropic", "keepalive"); len(got) != 0 {
		t.Errorf("Changes of a no-chaos cause = %+v, want none", got)
	}
}

func TestLineChange(t *testing.T) {
	tests := []struct {
		name, before, after string
		want                Change
	}{
		{"replaced", "event: a\ndata: 1\n\nevent: b\ndata: 2\n\n", "event: a\ndata: 1\n\nevent: b\ndata: 3\n\n", Change{Before: "data: 2", After: "data: 3", Removed: 1, Added: 1}},
		{"removed", "event: a\ndata: 1\n\nevent: b\ndata: 2\n\nevent: c\ndata: 3\n", "event: a\ndata: 1\n\nevent: c\ndata: 3\n", Change{Before: "data: 2", Removed: 3}},
		{"first line when no data line", "x\ny\nz\n", "x\nw\nz\n", Change{Before: "y", After: "w", Removed: 1, Added: 1}},
		{"crlf", "data: 1\r\ndata: 2\r\n", "data: 1\r\ndata: 9\r\n", Change{Before: "data: 2", After: "data: 9", Removed: 1, Added: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, lineChange([]byte(tt.before), []byte(tt.after))); diff != "" {
				t.Errorf("lineChange (-want +got):\n%s", diff)
			}
		})
	}
}
