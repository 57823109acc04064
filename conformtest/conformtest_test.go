package conformtest_test

import (
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/toolconform/conform/conformtest"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios/fakeadapter"
)

// counted counts the adapters made, to show each subtest gets a fresh one.
func counted(n *atomic.Int32, name string) func() core.Adapter {
	return func() core.Adapter {
		n.Add(1)
		return fakeadapter.New(name)
	}
}

func TestRunBuiltin(t *testing.T) {
	var made atomic.Int32
	var subtests int
	t.Run("fake", func(t *testing.T) {
		conformtest.Run(t, counted(&made, "fake"), conformtest.Only("//A05"))
		subtests = 1
	})
	if subtests != 1 || made.Load() < 2 {
		t.Errorf("made %d adapters, want one to learn the name and one per subtest", made.Load())
	}
}

// dropsRouting loses every delta's routing, so interleaved arguments land
// on the latest call: it must fail the A05 scenario, which the known-failing
// entry turns into a skip (and which would be an error if it passed).
type dropsRouting struct{ *fakeadapter.Adapter }

func (d dropsRouting) DecodeStream(r io.Reader) core.EventStream {
	return &unrouted{d.Adapter.DecodeStream(r)}
}

type unrouted struct{ s core.EventStream }

func (u *unrouted) Next() (core.Event, error) {
	ev, err := u.s.Next()
	if ev.Kind == core.EventCallDelta && ev.Chunk != nil {
		c := *ev.Chunk
		c.ID, c.HasIndex, c.Index = "", false, 0
		ev.Chunk = &c
	}
	return ev, err
}

func TestRunKnownFailing(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "known-failing.txt")
	if err := os.WriteFile(list, []byte("# routing is dropped on purpose\nfake/streaming/A05\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	conformtest.Run(t, func() core.Adapter { return dropsRouting{fakeadapter.New("fake")} },
		conformtest.Only("//A05"), conformtest.KnownFailing(list))
}

func TestRunDir(t *testing.T) {
	conformtest.Run(t, func() core.Adapter { return fakeadapter.New("fake") }, conformtest.Dir(os.DirFS("testdata"), "cases"))
}

// TestRunBuiltinAdapters runs conformtest.Run on every built-in adapter with
// the shared known-failing list, as an adapter's own test would.
func TestRunBuiltinAdapters(t *testing.T) {
	for _, a := range providers.All() {
		name := a.Name()
		t.Run(name, func(t *testing.T) {
			newAdapter := func() core.Adapter {
				a, err := providers.Lookup(name)
				if err != nil {
					t.Fatal(err)
				}
				return a
			}
			conformtest.Run(t, newAdapter, conformtest.KnownFailing("../scenarios/known-failing.txt"))
		})
	}
}
