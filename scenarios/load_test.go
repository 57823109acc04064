package scenarios

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/openaichat"
)

func TestFSResolver(t *testing.T) {
	fsys := fstest.MapFS{
		"c/x.yaml":                            {Data: []byte("version: 2\ninteractions:\n- response:\n    body: first\n- response:\n    body: |\n      data: {}\n\n")},
		"cases/openai-chat/streaming/x.txtar": {Data: []byte(goodHeader + "cassette: c/x.yaml#1\n")},
	}
	resolve := FSResolver(fsys)
	got, err := resolve("c/x.yaml#1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("data: {}\n", string(got)); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	for ref, want := range map[string]string{
		"c/x.yaml":    "want path#interaction",
		"c/x.yaml#-1": "not a non-negative number",
		"c/x.yaml#2":  "the cassette has 2 interactions",
		"c/y.yaml#0":  "read cassette",
	} {
		_, err := resolve(ref)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("resolve(%q) = %v, want an error containing %q", ref, err, want)
		}
	}
	cases, err := Load(fsys, "cases", resolve)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 1 || string(cases[0].Body) != "data: {}\n" || cases[0].Name != "openai-chat/streaming/x" {
		t.Errorf("Load = %+v, want one case with the cassette body", cases)
	}
}

func TestLoadErrors(t *testing.T) {
	fsys := fstest.MapFS{
		"cases/openai-chat/streaming/a.txtar": {Data: []byte("no headers\n")},
		"cases/openai-chat/streaming/b.json":  {Data: []byte("{}")},
		"cases/README.md":                     {Data: []byte("# notes")},
	}
	_, err := Load(fsys, "cases", nil)
	var pe *ParseError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "a.txtar") || !strings.Contains(err.Error(), "b.json: bad scenario: not a .txtar file") {
		t.Errorf("Load error = %v, want both bad files named", err)
	}
}

func TestLoadRejectsNameClash(t *testing.T) {
	const canonical = "A canonical case.\n\nseverity: MUST\nguards: A05\nprotocols: %s\nkind: stream\n-- events.json --\n[]\n"
	const specific = "A protocol-specific case.\n\nseverity: MUST\nguards: A05\nprotocol: openai-chat\nkind: stream\n-- response.sse --\ndata: [DONE]\n\n"
	tests := []struct {
		name      string
		protocols string
		extra     map[string]string
		want      []string // clashing result names; none means Load succeeds
	}{
		{name: "every protocol clashes with the specific case", protocols: "*",
			want: []string{"openai-chat/streaming/A05-x"}},
		{name: "a list naming the protocol clashes", protocols: "anthropic openai-chat",
			want: []string{"openai-chat/streaming/A05-x"}},
		{name: "a list without the protocol does not clash", protocols: "anthropic gemini"},
		{name: "another category does not clash", protocols: "gemini",
			extra: map[string]string{"cases/gemini/response/A05-x.txtar": "-"}},
		{name: "two specific cases of one suffix clash each on its own protocol", protocols: "*",
			extra: map[string]string{"cases/gemini/streaming/A05-x.txtar": strings.ReplaceAll(specific, "openai-chat", "gemini")},
			want:  []string{"gemini/streaming/A05-x", "openai-chat/streaming/A05-x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{
				"cases/any/streaming/A05-x.txtar":         {Data: []byte(fmt.Sprintf(canonical, tt.protocols))},
				"cases/openai-chat/streaming/A05-x.txtar": {Data: []byte(specific)},
			}
			for p, d := range tt.extra {
				if d == "-" {
					d = strings.ReplaceAll(specific, "openai-chat", "gemini")
				}
				fsys[p] = &fstest.MapFile{Data: []byte(d)}
			}
			cases, err := Load(fsys, "cases", nil)
			var got []string
			for _, e := range unjoin(err) {
				var nc *NameClashError
				if !errors.As(e, &nc) {
					t.Fatalf("Load error %v is not a NameClashError", e)
				}
				if !errors.Is(e, ErrNameClash) || nc.Files[0] != "cases/any/streaming/A05-x.txtar" ||
					!strings.Contains(e.Error(), nc.Files[0]) || !strings.Contains(e.Error(), nc.Files[1]) {
					t.Errorf("clash error %q does not name both files (%v)", e, nc.Files)
				}
				got = append(got, nc.Name)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("clashing names (-want +got):\n%s", diff)
			}
			if err == nil && len(cases) != 2+len(tt.extra) {
				t.Errorf("Load returned %d cases, want %d", len(cases), 2+len(tt.extra))
			}
		})
	}
}

// unjoin returns the errors joined in err (after one level of %w wrapping),
// or nil for a nil error.
func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			return j.Unwrap()
		}
	}
	return []error{err}
}

func TestCheckRejectsNameClashAcrossLoads(t *testing.T) {
	cases, err := LoadBuiltin(VCRResolver(cassettes.Load))
	if err != nil {
		t.Fatal(err)
	}
	var a05 *Scenario
	for _, sc := range cases {
		if sc.Name == "any/streaming/A05-round-robin-interleaving" {
			a05 = sc
		}
	}
	if a05 == nil {
		t.Fatal("any/streaming/A05-round-robin-interleaving not found")
	}
	// The same case loaded twice (a second directory holding a copy).
	twice := *a05
	twice.File = "elsewhere/any/streaming/A05-round-robin-interleaving.txtar"
	results, err := Check([]core.Adapter{openaichat.New()}, []*Scenario{a05, &twice}, Options{})
	var nc *NameClashError
	if !errors.As(err, &nc) || nc.Name != "openai-chat/streaming/A05-round-robin-interleaving" || nc.Files[1] != twice.File {
		t.Fatalf("Check error = %v, want a NameClashError naming both files", err)
	}
	if results != nil {
		t.Errorf("Check returned %d results beside the clash, want none", len(results))
	}
}

// TestLoadResolvesBesideTheScenario: a cassette reference names a file
// relative to the scenario that makes it, which may sit in the scenario
// directory; a reference with no such file goes to the resolver given.
func TestLoadResolvesBesideTheScenario(t *testing.T) {
	cassette := []byte("version: 2\ninteractions:\n- response:\n    body: |\n      data: {}\n\n")
	fsys := fstest.MapFS{
		"cases/openai-chat/streaming/x.txtar":  {Data: []byte(goodHeader + "cassette: x.yaml#0\n")},
		"cases/openai-chat/streaming/x.yaml":   {Data: cassette},
		"cases/openai-chat/streaming/up.txtar": {Data: []byte(goodHeader + "cassette: ../shared/s.yaml#0\n")},
		"cases/openai-chat/shared/s.yaml":      {Data: cassette},
		"cases/openai-chat/streaming/c.txtar":  {Data: []byte(goodHeader + "cassette: corpus/c.yaml#0\n")},
	}
	var asked []string
	corpus := func(ref string) ([]byte, error) {
		asked = append(asked, ref)
		return []byte("data: corpus\n\n"), nil
	}
	cases, err := Load(fsys, "cases", corpus)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, sc := range cases {
		got[sc.Name] = string(sc.Body)
	}
	want := map[string]string{
		"openai-chat/streaming/x":  "data: {}\n",
		"openai-chat/streaming/up": "data: {}\n",
		"openai-chat/streaming/c":  "data: corpus\n\n",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bodies (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"corpus/c.yaml#0"}, asked); diff != "" {
		t.Errorf("references given to the resolver (-want +got):\n%s", diff)
	}
}
