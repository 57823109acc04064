package mistral

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

var update = flag.Bool("update", false, "rewrite golden files")

const corpusDir = "../../testdata/corpus/mistral"

// recording is one corpus file's response body. The mistral corpus holds
// only vercel-ai fixtures: .json bodies and .chunks.txt (one SSE data
// payload per line).
type recording struct {
	name   string
	body   []byte
	stream bool
}

func loadCorpus(t testing.TB) []recording {
	t.Helper()
	ents, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatalf("read corpus: %v", err)
	}
	var out []recording
	for _, e := range ents {
		path := filepath.Join(corpusDir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasSuffix(e.Name(), ".chunks.txt"):
			var b bytes.Buffer
			for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
				if strings.TrimSpace(line) != "" {
					b.WriteString("data: " + line + "\n\n")
				}
			}
			out = append(out, recording{name: strings.TrimSuffix(e.Name(), ".txt"), body: b.Bytes(), stream: true})
		case strings.HasSuffix(e.Name(), ".json"):
			out = append(out, recording{name: strings.TrimSuffix(e.Name(), ".json"), body: data})
		default:
			t.Fatalf("unknown corpus file %s", e.Name())
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	if len(out) != 3 {
		t.Fatalf("found %d mistral recordings, want 3", len(out))
	}
	return out
}

func drain(st core.EventStream) ([]core.Event, error) {
	var evs []core.Event
	for {
		ev, err := st.Next()
		if err == io.EOF {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

type goldenCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type summary struct {
	Kind           string              `json:"kind"`
	ID             string              `json:"id,omitempty"`
	Model          string              `json:"model,omitempty"`
	Text           string              `json:"text,omitempty"`
	Calls          []goldenCall        `json:"calls"`
	Incomplete     []string            `json:"incomplete,omitempty"`
	Finish         core.FinishReason   `json:"finish,omitempty"`
	ProviderFinish string              `json:"provider_finish,omitempty"`
	Usage          *core.Usage         `json:"usage,omitempty"`
	Error          *core.ProviderError `json:"error,omitempty"`
	Events         []string            `json:"events,omitempty"`
}

// assemble is a test-only reading of call events into calls (by id, else
// index, else the last call), enough to state a recording's calls in a
// golden file; the core Buffer is the real router.
func assemble(evs []core.Event) summary {
	s := summary{Kind: "stream", Calls: []goldenCall{}}
	type acc struct {
		id, name string
		idx      int
		hasIdx   bool
		args     strings.Builder
	}
	var calls []*acc
	for _, ev := range evs {
		desc := string(ev.Kind)
		if ev.Chunk != nil {
			desc += fmt.Sprintf(" id=%q name=%q index=%d has_index=%v args=%q", ev.Chunk.ID, ev.Chunk.Name, ev.Chunk.Index, ev.Chunk.HasIndex, ev.Chunk.ArgsDelta)
		}
		s.Events = append(s.Events, desc)
		if ev.ID != "" && s.ID == "" {
			s.ID, s.Model = ev.ID, ev.Model
		}
		switch ev.Kind {
		case core.EventText:
			s.Text += ev.Text
		case core.EventCallStart, core.EventCallDelta:
			k := ev.Chunk
			var cur *acc
			for _, c := range calls {
				if k.ID != "" && c.id == k.ID || k.ID == "" && k.HasIndex && c.hasIdx && c.idx == k.Index {
					cur = c
				}
			}
			if cur == nil && k.ID == "" && !k.HasIndex && len(calls) > 0 {
				cur = calls[len(calls)-1]
			}
			if cur == nil {
				cur = &acc{id: k.ID, idx: k.Index, hasIdx: k.HasIndex}
				calls = append(calls, cur)
			}
			if k.Name != "" {
				cur.name = k.Name
			}
			if k.Args != nil {
				cur.args.Reset()
				cur.args.WriteString(*k.Args)
			}
			cur.args.WriteString(k.ArgsDelta)
		case core.EventFinish:
			s.Finish, s.ProviderFinish = ev.Finish, ev.ProviderFinish
		case core.EventUsage:
			s.Usage = ev.Usage
		case core.EventError:
			s.Error = ev.Error
		}
	}
	for _, c := range calls {
		args := c.args.String()
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		if !json.Valid([]byte(args)) {
			s.Incomplete = append(s.Incomplete, c.id)
			continue
		}
		s.Calls = append(s.Calls, goldenCall{ID: c.id, Name: c.name, Arguments: json.RawMessage(args)})
	}
	return s
}

func summarize(r *core.Response) summary {
	s := summary{Kind: "response", ID: r.ID, Model: r.Model, Text: r.Text(), Calls: []goldenCall{}, Finish: r.Finish, ProviderFinish: r.ProviderFinish, Usage: r.Usage, Error: r.Error}
	for _, c := range r.Calls() {
		s.Calls = append(s.Calls, goldenCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	for _, c := range r.Incomplete {
		s.Incomplete = append(s.Incomplete, c.ID)
	}
	return s
}

func checkGolden(t *testing.T, name string, got any) {
	t.Helper()
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if diff := cmp.Diff(string(want), string(b)); diff != "" {
		t.Errorf("golden %s (-want +got):\n%s", path, diff)
	}
}
