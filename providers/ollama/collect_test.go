package ollama

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/internal/adaptertest"
)

// TestFixturesThroughCollect feeds the fixture streams through core.Collect
// and checks that the core Buffer gives the calls this package's own view
// gives, both identical calls included (D07), and the same finish.
func TestFixturesThroughCollect(t *testing.T) {
	a := New()
	for _, name := range fixtures(t, ".ndjson") {
		body, err := os.ReadFile(filepath.Join(fixtureDir, name))
		if err != nil {
			t.Fatal(err)
		}
		evs, err := adaptertest.Drain(a.DecodeStream(bytes.NewReader(body)))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := core.Collect(a.DecodeStream(bytes.NewReader(body)))
		if err != nil {
			t.Errorf("%s: Collect: %v", name, err)
			continue
		}
		if diff := cmp.Diff(streamCalls(evs), resp.Calls()); diff != "" {
			t.Errorf("%s: calls (-adapter +Collect):\n%s", name, diff)
		}
		if last := evs[len(evs)-1]; resp.Finish != last.Finish || len(resp.Incomplete) > 0 {
			t.Errorf("%s: finish %q incomplete %v, want %q and none", name, resp.Finish, resp.Incomplete, last.Finish)
		}
	}
}
