package scenarios

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
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
