package failuremodes

import (
	"fmt"
	"testing"
)

func TestCatalogue(t *testing.T) {
	all := All()
	if len(all) != 105 {
		t.Errorf("%d failure modes, want the 105 of the catalogue", len(all))
	}
	seen := map[string]bool{}
	for _, m := range all {
		if seen[m.ID] {
			t.Errorf("%s appears twice", m.ID)
		}
		seen[m.ID] = true
		if m.Group == "" || m.What == "" || m.Scenario == "" {
			t.Errorf("%s has an empty field: %+v", m.ID, m)
		}
	}
	// Every group is numbered from 01 without gaps.
	for _, g := range "ABCDEFGHIT" {
		for n := 1; ; n++ {
			id := fmt.Sprintf("%c%02d", g, n)
			if !seen[id] {
				if n == 1 {
					t.Errorf("group %c is empty", g)
				}
				break
			}
			delete(seen, id)
		}
	}
	for id := range seen {
		t.Errorf("%s breaks its group's numbering", id)
	}
}

func TestLookup(t *testing.T) {
	m, ok := Lookup("A05")
	if !ok || m.Group != "Streaming accumulation: routing deltas to the right call" {
		t.Errorf("Lookup(A05) = %+v, %v", m, ok)
	}
	if _, ok := Lookup("Z99"); ok {
		t.Error("Lookup(Z99) found a mode")
	}
}

func TestParseRejectsMalformedRow(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("parse accepted a row with too few cells")
		}
	}()
	parse("## A. Group\n| A01 | what | CC |\n")
}
