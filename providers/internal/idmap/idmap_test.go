package idmap

import (
	"errors"
	"testing"

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
	if _, err := m.ToWire("fourth-id"); !errors.Is(err, ErrTooMany) {
		t.Errorf("past the limit: %v, want ErrTooMany", err)
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
