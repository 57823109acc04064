package providers

import (
	"strings"
	"testing"
)

func TestEveryAdapterNamesItself(t *testing.T) {
	for _, name := range Names() {
		a, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if a.Name() != name {
			t.Errorf("Lookup(%q).Name() = %q", name, a.Name())
		}
	}
	if got, want := len(All()), len(Names()); got != want {
		t.Errorf("All() has %d adapters, Names() %d", got, want)
	}
}

func TestLookupUnknownListsKnown(t *testing.T) {
	_, err := Lookup("openai")
	if err == nil {
		t.Fatal("Lookup(openai) succeeded")
	}
	for _, name := range Names() {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not list %q", err, name)
		}
	}
}
