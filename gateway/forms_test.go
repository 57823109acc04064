package gateway

import (
	"testing"

	"github.com/toolconform/conform/providers"
)

// TestCarriesErrorFlag checks which protocols' requests carry a tool
// result's error flag, as their adapters encode and decode it.
func TestCarriesErrorFlag(t *testing.T) {
	got := map[string]bool{}
	for _, a := range providers.All() {
		got[a.Name()] = carriesErrorFlag(a)
	}
	t.Logf("carries the error flag: %v", got)
	for _, p := range []string{"anthropic", "bedrock"} {
		if !got[p] {
			t.Errorf("%s: the error flag is not carried", p)
		}
	}
	if got["openai-chat"] {
		t.Error("openai-chat: an error flag is carried, but Chat Completions has none")
	}
}

// TestFormsVary checks that the follow-up's forms are spread over the
// cases: of many case names each form is picked for some.
func TestFormsVary(t *testing.T) {
	front, err := providers.Lookup("anthropic")
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for i := range 60 {
		n[formFor("anthropic>anthropic/streaming/case-"+string(rune('a'+i%26))+string(rune('a'+i/26)), front).name]++
	}
	forms := formsOf(front)
	if len(forms) != 3 {
		t.Errorf("anthropic: forms %+v, want text, error and content as a string", forms)
	}
	for _, f := range forms {
		if n[f.name] < 60/len(forms)/2 {
			t.Errorf("form %s picked for %d of 60 cases", f.name, n[f.name])
		}
	}
	chat, err := providers.Lookup("openai-chat")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if f := formFor("openai-chat>x/"+string(rune('a'+i)), chat); f.isError {
			t.Fatalf("an error form for a front that cannot carry the flag")
		}
	}
}
