package conformtest_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/conformtest"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/providers/openaichat"
	"github.com/toolconform/conform/scenarios"
	"github.com/toolconform/conform/scenarios/fakeadapter"
)

// renamed is a correct adapter of openai-chat under a name of its own.
type renamed struct{ core.Adapter }

func (renamed) Name() string { return "my-openai" }

func newRenamed() core.Adapter { return renamed{openaichat.New()} }

// dropsRouting loses every delta's routing, so interleaved arguments land
// on the latest call.
type dropsRouting struct{ core.Adapter }

func (dropsRouting) Name() string { return "my-openai" }

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

// streamOnly implements one operation of core.Adapter: DecodeStream.
type streamOnly struct{ a core.Adapter }

func (s streamOnly) DecodeStream(r io.Reader) core.EventStream { return s.a.DecodeStream(r) }

func tally(results []scenarios.Result) map[scenarios.Status]int {
	n := map[scenarios.Status]int{}
	for _, r := range results {
		n[r.Status]++
	}
	return n
}

func TestRunFreshAdapterPerCase(t *testing.T) {
	var made atomic.Int32
	conformtest.Run(t, func() core.Adapter { made.Add(1); return openaichat.New() }, conformtest.Only("openai-chat/streaming/^A05"))
	if made.Load() < 3 {
		t.Errorf("made %d adapters, want one to learn the name and one per case", made.Load())
	}
}

// TestCheckNameIsNoProtocol: an adapter whose name is no built-in protocol
// and that gives none is an error listing the protocols, never a smaller
// suite.
func TestCheckNameIsNoProtocol(t *testing.T) {
	results, err := conformtest.Check(newRenamed)
	if err == nil || !strings.Contains(err.Error(), `adapter "my-openai" names no built-in protocol`) || !strings.Contains(err.Error(), "openai-chat, openai-responses") {
		t.Fatalf("Check error = %v, want one naming the adapter and listing the protocols", err)
	}
	if len(results) != 0 {
		t.Errorf("Check graded %d cases, want none", len(results))
	}
	if _, err := conformtest.Check(newRenamed, conformtest.Protocol("openai-chatt")); err == nil || !strings.Contains(err.Error(), `unknown protocol "openai-chatt"; known: anthropic`) {
		t.Errorf("Check with a misspelt protocol: error = %v", err)
	}
}

// TestCheckRenamedReference: the reference adapter under another name is
// graded on every openai-chat case and passes; its SHOULD failure is
// reported and not counted unless Strict.
func TestCheckRenamedReference(t *testing.T) {
	results, err := conformtest.Check(newRenamed, conformtest.Protocol("openai-chat"))
	if err != nil {
		t.Fatal(err)
	}
	all, _ := conformtest.Check(func() core.Adapter { return openaichat.New() })
	if len(results) != len(all) || len(results) < 100 {
		t.Errorf("graded %d cases under the name my-openai, %d under openai-chat; want the same, over 100", len(results), len(all))
	}
	var should []string
	for _, r := range results {
		if r.Adapter != "my-openai" || r.Protocol != "openai-chat" || !strings.HasPrefix(r.Name, "openai-chat/") {
			t.Fatalf("result %s labelled %q, protocol %q", r.Name, r.Adapter, r.Protocol)
		}
		if r.Status == scenarios.StatusFail {
			should = append(should, string(r.Severity)+" "+r.Name)
		}
	}
	if diff := cmp.Diff([]string{"SHOULD openai-chat/history/G09-malformed-arguments-in-string-field"}, should); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	_, err = conformtest.Check(newRenamed, conformtest.Protocol("openai-chat"), conformtest.Strict())
	if err == nil || !strings.Contains(err.Error(), "G09-malformed-arguments-in-string-field [SHOULD]") || !strings.Contains(err.Error(), "my-openai: graded") {
		t.Errorf("Strict: error = %v, want the G09 SHOULD failure and the coverage line", err)
	}
}

// TestCheckCatchesRoutingBug: the same adapter with routing dropped fails
// under its own name once it declares its protocol.
func TestCheckCatchesRoutingBug(t *testing.T) {
	_, err := conformtest.Check(func() core.Adapter { return dropsRouting{openaichat.New()} },
		conformtest.Protocol("openai-chat"), conformtest.Only("openai-chat/streaming/^A0[15]"))
	if err == nil {
		t.Fatal("an adapter that drops routing passed")
	}
	for _, want := range []string{"openai-chat/streaming/A05-two-calls-fragment-by-fragment [MUST]", "my-openai: graded 4 of 4 openai-chat cases: 2 passed, 2 failed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %s:\n%v", want, err)
		}
	}
}

// TestCheckStreamOnly: an adapter with only DecodeStream is graded on the
// recorded and constructed stream cases; every other case is not graded,
// with the operation it lacks named, and none passes.
func TestCheckStreamOnly(t *testing.T) {
	results, err := conformtest.Check(func() streamOnly { return streamOnly{openaichat.New()} }, conformtest.Protocol("openai-chat"))
	if err != nil {
		t.Fatal(err)
	}
	n := tally(results)
	if n[scenarios.StatusPass] == 0 || n[scenarios.StatusNotGraded] == 0 {
		t.Fatalf("statuses %v: want passes and cases not graded", n)
	}
	for _, r := range results {
		needsOnlyDecoder := r.Scenario.Kind == scenarios.KindStream && r.Scenario.Body != nil
		switch {
		case needsOnlyDecoder && r.Status == scenarios.StatusNotGraded:
			t.Errorf("%s: not graded, but it needs only the stream decoder", r.Name)
		case !needsOnlyDecoder && r.Status != scenarios.StatusNotGraded:
			t.Errorf("%s (%s): %s, want not graded", r.Name, r.Scenario.Kind, r.Status)
		case !needsOnlyDecoder && !strings.HasPrefix(r.Reason, "the adapter implements no "):
			t.Errorf("%s: reason %q", r.Name, r.Reason)
		}
	}
	t.Logf("stream-only adapter: %v", n)
}

func TestCheckNoOperation(t *testing.T) {
	_, err := conformtest.Check(func() int { return 0 }, conformtest.Protocol("openai-chat"))
	if err == nil || !strings.Contains(err.Error(), "implements none of the operations") {
		t.Errorf("error = %v", err)
	}
}

// TestKnownFailing: a listed case that fails is not counted; a listed case
// that passes is an error naming the entry.
func TestKnownFailing(t *testing.T) {
	list := filepath.Join(t.TempDir(), "known-failing.txt")
	if err := os.WriteFile(list, []byte("# routing is dropped on purpose\nopenai-chat/streaming/^A05-t\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	only := conformtest.Only("openai-chat/streaming/^A05-t")
	results, err := conformtest.Check(func() core.Adapter { return dropsRouting{openaichat.New()} }, conformtest.Protocol("openai-chat"), only, conformtest.KnownFailing(list))
	if err != nil {
		t.Fatal(err)
	}
	if n := tally(results); n[scenarios.StatusKnownFailing] != len(results) {
		t.Errorf("statuses %v, want every case known-failing", n)
	}
	_, err = conformtest.Check(newRenamed, conformtest.Protocol("openai-chat"), only, conformtest.KnownFailing(list))
	if err == nil || !strings.Contains(err.Error(), "known-failing case now passes: remove it from "+list+":2") {
		t.Errorf("a listed case that passes: error = %v", err)
	}
}

func TestRunDir(t *testing.T) {
	conformtest.Run(t, func() core.Adapter { return fakeadapter.New("fake") }, conformtest.Dir(os.DirFS("testdata"), "cases"), conformtest.Protocol("fake"))
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
