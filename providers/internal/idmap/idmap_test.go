package idmap

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"

	"pgregory.net/rapid"
)

func nineValid(id string) bool {
	if len(id) != 9 {
		return false
	}
	for _, c := range id {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

func TestIDMap(t *testing.T) {
	m := New(nineValid, func(id string, n int) string { return Hash(id, n, 9) }, 3)
	for _, valid := range []string{"", "gSIMJiOkT", "abc123XYZ"} {
		if got, err := m.ToWire(valid); err != nil || got != valid {
			t.Errorf("ToWire(%q) = %q, %v; want it unchanged", valid, got, err)
		}
	}
	a, _ := m.ToWire("call_ehIWdjL1abZk1h8FWGLQ0Hie")
	a2, _ := m.ToWire("call_ehIWdjL1abZk1h8FWGLQ0Hie")
	b, _ := m.ToWire("toolu_01")
	if !nineValid(a) || !nineValid(b) || a != a2 || a == b {
		t.Errorf("replacements %q %q %q: want valid, stable, distinct", a, a2, b)
	}
	if got := m.FromWire(a); got != "call_ehIWdjL1abZk1h8FWGLQ0Hie" {
		t.Errorf("FromWire(%q) = %q", a, got)
	}
	if got := m.FromWire("gSIMJiOkT"); got != "gSIMJiOkT" {
		t.Errorf("FromWire of an unmapped id = %q", got)
	}
	// A fresh map derives the same replacement: the mapping is a function of the id.
	fresh := New(nineValid, func(id string, n int) string { return Hash(id, n, 9) }, 0)
	if f, _ := fresh.ToWire("toolu_01"); f != b {
		t.Errorf("fresh map gave %q, want %q", f, b)
	}
	m.ToWire("third-id")
	if _, err := m.ToWire("fourth-id"); !errors.Is(err, ErrTooMany) || !errors.Is(err, core.ErrTooLarge) {
		t.Errorf("past the limit: %v, want ErrTooMany, a kind of core.ErrTooLarge", err)
	}
}

func TestIDMapCollision(t *testing.T) {
	// A mint that always collides on the first attempt must move on.
	m := New(nineValid, func(id string, n int) string {
		if n == 0 {
			return "AAAAAAAAA"
		}
		return Hash(id, n, 9)
	}, 0)
	x, _ := m.ToWire("x-1")
	y, _ := m.ToWire("y-1")
	if x != "AAAAAAAAA" || y == x || m.FromWire(y) != "y-1" || m.FromWire(x) != "x-1" {
		t.Errorf("collision handling: x=%q y=%q", x, y)
	}
}

// TestIDMapProperty: any id maps to a valid id and back.
func TestIDMapProperty(t *testing.T) {
	m := New(nineValid, func(id string, n int) string { return Hash(id, n, 9) }, 1<<20)
	rapid.Check(t, func(t *rapid.T) {
		id := rapid.String().Draw(t, "id")
		w, err := m.ToWire(id)
		if err != nil {
			t.Fatal(err)
		}
		if id != "" && !nineValid(w) {
			t.Fatalf("ToWire(%q) = %q, not valid", id, w)
		}
		if back := m.FromWire(w); back != id {
			t.Fatalf("FromWire(ToWire(%q)) = %q", id, back)
		}
	})
}

func TestMessages(t *testing.T) {
	short := func(id string) bool { return len(id) <= 8 }
	m := New(short, func(id string, n int) string { return "c" + Hash(id, n, 7) }, 0)
	long := "call_0123456789abcdefghij"
	msgs := []core.Message{
		{Role: core.RoleUser, Parts: []core.Part{core.TextPart("hi")}},
		{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart("ok"), core.CallPart(core.Call{ID: long, Name: "f"}), core.CallPart(core.Call{ID: "c_ok", Name: "g"})}},
		{Role: core.RoleTool, Parts: []core.Part{core.ResultPart(core.Result{CallID: long}), core.ResultPart(core.Result{CallID: "c_ok"})}},
	}
	before := fmt.Sprint(msgs)
	got, err := m.ToWireMessages(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(msgs) != before {
		t.Errorf("ToWireMessages changed its input:\n%s\nnow\n%s", before, fmt.Sprint(msgs))
	}
	wire := got[1].Parts[1].Call.ID
	if !short(wire) || got[2].Parts[0].Result.CallID != wire {
		t.Errorf("call id %q and result id %q: want one valid id for both", wire, got[2].Parts[0].Result.CallID)
	}
	if got[1].Parts[2].Call.ID != "c_ok" || got[2].Parts[1].Result.CallID != "c_ok" {
		t.Errorf("a valid id was changed: %v", got)
	}
	if &got[0].Parts[0] != &msgs[0].Parts[0] {
		t.Errorf("a message with no id was copied")
	}
	back := []core.Message{m.FromWireMessage(got[1]), m.FromWireMessage(got[2])}
	if diff := cmp.Diff(msgs[1:], back); diff != "" {
		t.Errorf("FromWireMessage (-want +got):\n%s", diff)
	}

	full := New(short, func(id string, n int) string { return "c" + Hash(id, n, 7) }, 1)
	two := []core.Message{{Role: core.RoleAssistant, Parts: []core.Part{core.CallPart(core.Call{ID: long}), core.CallPart(core.Call{ID: long + "x"})}}}
	if _, err := full.ToWireMessages(two); !errors.Is(err, ErrTooMany) || !errors.Is(err, core.ErrTooLarge) || !strings.Contains(err.Error(), "message 0") {
		t.Errorf("past the limit: %v, want ErrTooMany (core.ErrTooLarge) naming message 0", err)
	}
}
