package cohere

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// TestCorpusResponses decodes every recorded response, streamed or not, and
// checks its calls, plan, text, finish and usage against a golden file.
func TestCorpusResponses(t *testing.T) {
	a := New()
	var streams, bodies, calls int
	for _, path := range corpusFiles(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			var got []summary
			for i, ex := range loadExchanges(t, path) {
				var s summary
				if ex.Stream {
					streams++
					evs, err := drain(a.DecodeStream(bytes.NewReader(ex.Response)))
					if err != nil {
						t.Fatalf("exchange %d: %v", i, err)
					}
					if s, err = assemble(evs); err != nil {
						t.Fatalf("exchange %d: %v", i, err)
					}
				} else {
					bodies++
					resp, err := a.DecodeResponse(ex.Response)
					if err != nil {
						t.Fatalf("exchange %d: %v", i, err)
					}
					if ex.Status >= 400 && resp.Error == nil {
						t.Errorf("exchange %d: HTTP %d body decoded without Response.Error", i, ex.Status)
					}
					s = summarize(resp)
				}
				for j := range s.Calls {
					s.Calls[j].Arguments = json.RawMessage(compact(t, s.Calls[j].Arguments))
				}
				calls += len(s.Calls)
				got = append(got, s)
			}
			checkGolden(t, name, got)
		})
	}
	t.Logf("%d streams, %d bodies, %d calls", streams, bodies, calls)
	if streams == 0 || bodies == 0 || calls == 0 {
		t.Errorf("corpus gave %d streams, %d bodies, %d calls; want some of each", streams, bodies, calls)
	}
}

func checkGolden(t *testing.T, name string, got any) {
	t.Helper()
	data, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	golden := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.WriteFile(golden, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(data)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", golden, diff)
	}
}

// unmodelled lists the request fields conform does not model, dropped from
// both sides before comparing a re-encoded request with the recording.
var unmodelled = []string{"temperature", "p", "k", "seed", "frequency_penalty", "presence_penalty", "stop_sequences", "documents", "citation_options", "safety_mode", "logprobs", "thinking"}

// TestCorpusRequests decodes every recorded request, encodes it again and
// compares the two as parsed JSON.
func TestCorpusRequests(t *testing.T) {
	var n int
	for _, path := range corpusFiles(t) {
		for i, ex := range loadExchanges(t, path) {
			if ex.Request == nil {
				continue
			}
			n++
			t.Run(fmt.Sprintf("%s/%d", filepath.Base(path), i), func(t *testing.T) {
				a := New()
				req, err := a.DecodeRequest(ex.Request)
				if err != nil {
					t.Fatal(err)
				}
				out, err := a.EncodeRequest(req)
				if err != nil {
					t.Fatal(err)
				}
				want, got := parseDropping(t, ex.Request), parseDropping(t, out)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("re-encoded request differs (-want +got):\n%s", diff)
				}
			})
		}
	}
	if n == 0 {
		t.Error("no recorded requests in the corpus")
	}
}

func parseDropping(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("%v in %s", err, body)
	}
	for _, k := range unmodelled {
		delete(m, k)
	}
	return m
}

// TestCorpusCollect drains every recorded stream through core.Collect, the
// core Buffer's accumulation, and checks it gives the calls of the golden
// files with nothing incomplete and no error.
func TestCorpusCollect(t *testing.T) {
	var n int
	for _, path := range corpusFiles(t) {
		for i, ex := range loadExchanges(t, path) {
			if !ex.Stream {
				continue
			}
			n++
			t.Run(fmt.Sprintf("%s/%d", filepath.Base(path), i), func(t *testing.T) {
				resp, err := core.Collect(New().DecodeStream(bytes.NewReader(ex.Response)))
				if err != nil {
					t.Fatal(err)
				}
				if len(resp.Incomplete) > 0 {
					t.Errorf("incomplete calls %+v", resp.Incomplete)
				}
				evs, err := drain(New().DecodeStream(bytes.NewReader(ex.Response)))
				if err != nil {
					t.Fatal(err)
				}
				want, err := assemble(evs)
				if err != nil {
					t.Fatal(err)
				}
				got := resp.Calls()
				if got == nil {
					got = []core.Call{}
				}
				for j := range got {
					if got[j].Repaired {
						t.Errorf("call %d was repaired: %+v", j, got[j])
					}
					got[j].Arguments = json.RawMessage(compact(t, got[j].Arguments))
				}
				for j := range want.Calls {
					want.Calls[j].Arguments = json.RawMessage(compact(t, want.Calls[j].Arguments))
				}
				if diff := cmp.Diff(want.Calls, got); diff != "" {
					t.Errorf("calls (-want +got):\n%s", diff)
				}
				if resp.Text() != want.Text {
					t.Errorf("text %q, want %q", resp.Text(), want.Text)
				}
			})
		}
	}
	if n == 0 {
		t.Error("no recorded streams")
	}
}
