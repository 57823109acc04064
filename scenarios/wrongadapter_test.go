package scenarios

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/openaichat"
)

// latestCallAdapter is a deliberately wrong adapter kept as a fixture: it
// wraps the real openai-chat adapter but, as some real clients do
// (langchaingo's updateToolCalls, bifrost #1829), appends every argument
// delta to the most recently started call. It does so by stripping the
// routing (id, item id, index) from every call_delta event, which core.Chunk
// defines as "continue the most recently started call".
type latestCallAdapter struct{ core.Adapter }

func (w latestCallAdapter) DecodeStream(r io.Reader) core.EventStream {
	return latestCallStream{w.Adapter.DecodeStream(r)}
}

type latestCallStream struct{ s core.EventStream }

func (l latestCallStream) Next() (core.Event, error) {
	ev, err := l.s.Next()
	if ev.Kind == core.EventCallDelta && ev.Chunk != nil && !ev.Chunk.Start && ev.Chunk.Name == "" {
		c := *ev.Chunk
		c.ID, c.ItemID, c.Index, c.HasIndex = "", "", 0, false
		ev.Chunk = &c
	}
	return ev, err
}

// TestWrongAdapterFailsInterleaving shows that the interleaving scenarios
// catch an accumulator that appends to the latest call, with diffs a person
// can read, while the real adapter passes the same scenarios.
func TestWrongAdapterFailsInterleaving(t *testing.T) {
	cases, err := LoadBuiltin(VCRResolver(cassettes.Load))
	if err != nil {
		t.Fatal(err)
	}
	run := Options{Run: []Pattern{MustCompilePattern("openai-chat/streaming/^A05-")}}

	good, err := Check([]core.Adapter{openaichat.New()}, cases, run)
	if err != nil {
		t.Fatal(err)
	}
	wrong, err := Check([]core.Adapter{latestCallAdapter{openaichat.New()}}, cases, run)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range good {
		names = append(names, r.Name)
		if r.Status != StatusPass {
			t.Errorf("real openai-chat adapter: %s: %s, want pass: %v", r.Name, r.Status, r.Problems)
		}
	}
	wantNames := []string{
		"openai-chat/streaming/A05-round-robin-interleaving", // any/, expanded
		"openai-chat/streaming/A05-three-calls-round-robin-id-on-first-chunk",
		"openai-chat/streaming/A05-two-calls-fragment-by-fragment",
	}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Fatalf("interleaving scenarios run (-want +got):\n%s", diff)
	}

	// The canonical case is encoded by the openai-chat encoder, which is free
	// to send each call's arguments whole with its start; only the
	// hand-written byte streams pin the interleaving down.
	wrong = wrong[1:]
	for _, r := range wrong {
		if r.Status != StatusFail {
			t.Errorf("wrong adapter: %s: %s, want fail", r.Name, r.Status)
			continue
		}
		var calls *Problem
		for i := range r.Problems {
			if r.Problems[i].Rule == "calls" {
				calls = &r.Problems[i]
			}
		}
		if calls == nil {
			t.Errorf("wrong adapter: %s: no calls problem among %v", r.Name, r.Problems)
			continue
		}
		text := calls.String()
		if !strings.HasPrefix(text, "[A05") || !strings.Contains(text, "(-want +got)") {
			t.Errorf("wrong adapter: %s: problem does not name A05 and the diff direction:\n%s", r.Name, text)
		}
		t.Logf("%s:\n%s", r.Name, text)
	}

	// The hand-written round-robin case: the first two calls lose their
	// arguments to the third, whose text becomes an invalid mash that is
	// left incomplete.
	r := wrong[0]
	var all []string
	for _, p := range r.Problems {
		all = append(all, p.String())
	}
	text := strings.Join(all, "\n")
	for _, line := range []struct {
		sign    byte
		content string
	}{
		{'-', `"city": "Paris"`},
		{'-', `"zone": "Europe/Paris"`},
		{'+', `"arguments": {},`},
		{'+', `"original": "{\"city\": {\"zone\": {\"city\": \"Paris\"}\"Europe/Paris\"}\"Lyon\"}"`},
	} {
		found := false
		for _, p := range r.Problems {
			if HasDiffLine(p.Diff, line.sign, line.content) {
				found = true
			}
		}
		if !found {
			t.Errorf("wrong adapter: %s: no %c line %s in the diffs; first problem:\n%s", r.Name, line.sign, line.content, text)
		}
	}
}
