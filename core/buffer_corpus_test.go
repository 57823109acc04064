package core

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The recorded streams of testdata/corpus, one SSE data payload per line,
// are turned into Chunks by the small readers below (the adapters' own
// decoders live in providers/ and cannot be imported here) and fed to a
// Buffer. Where a recording states the final arguments itself (Responses
// function_call_arguments.done), those are the expected calls; elsewhere
// every call the stream opens must complete, unrepaired, with valid JSON.

type corpusStream struct {
	chunks []Chunk
	// finishAt lists chunk positions after which the stream's finish
	// ends every open call (Chat Completions finish_reason).
	finishAt map[int]bool
	// want holds the arguments the recording states for a call id.
	want map[string]string
	// opened counts the calls the recording opens.
	opened int
}

func readLines(t *testing.T, path string) []map[string]json.RawMessage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line == "[DONE]" {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func unmarshal(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	if len(raw) == 0 {
		return
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
}

func chatStream(t *testing.T, path string) corpusStream {
	s := corpusStream{finishAt: map[int]bool{}}
	seen := map[[2]int]bool{}
	for _, line := range readLines(t, path) {
		var choices []struct {
			Index int `json:"index"`
			Delta struct {
				ToolCalls []struct {
					Index    *int   `json:"index"`
					ID       string `json:"id"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"delta"`
			FinishReason *string `json:"finish_reason"`
		}
		unmarshal(t, line["choices"], &choices)
		for _, ch := range choices {
			for _, tc := range ch.Delta.ToolCalls {
				c := Chunk{Turn: ch.Index, ID: tc.ID, Name: tc.Function.Name, ArgsDelta: tc.Function.Arguments}
				if tc.Index != nil {
					c.HasIndex, c.Index = true, *tc.Index
					if !seen[[2]int{ch.Index, *tc.Index}] {
						seen[[2]int{ch.Index, *tc.Index}] = true
						s.opened++
					}
				}
				s.chunks = append(s.chunks, c)
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				s.finishAt[len(s.chunks)] = true
			}
		}
	}
	return s
}

func anthropicStream(t *testing.T, path string) corpusStream {
	s := corpusStream{finishAt: map[int]bool{}}
	tools := map[int]bool{}
	for _, line := range readLines(t, path) {
		var typ string
		var index int
		unmarshal(t, line["type"], &typ)
		unmarshal(t, line["index"], &index)
		switch typ {
		case "content_block_start":
			var block struct {
				Type string `json:"type"`
				ID   string `json:"id"`
				Name string `json:"name"`
			}
			unmarshal(t, line["content_block"], &block)
			if block.Type == "tool_use" {
				tools[index] = true
				s.opened++
				s.chunks = append(s.chunks, Chunk{HasIndex: true, Index: index, ID: block.ID, Name: block.Name, Start: true})
			}
		case "content_block_delta":
			var d struct {
				Type        string `json:"type"`
				PartialJSON string `json:"partial_json"`
			}
			unmarshal(t, line["delta"], &d)
			if d.Type == "input_json_delta" && tools[index] {
				s.chunks = append(s.chunks, Chunk{HasIndex: true, Index: index, ArgsDelta: d.PartialJSON})
			}
		case "content_block_stop":
			if tools[index] {
				s.chunks = append(s.chunks, Chunk{HasIndex: true, Index: index, Done: true})
			}
		}
	}
	return s
}

func responsesStream(t *testing.T, path string) corpusStream {
	s := corpusStream{finishAt: map[int]bool{}, want: map[string]string{}}
	callOf := map[string]string{}
	deltas := map[string]int{}
	for _, line := range readLines(t, path) {
		var typ, itemID, delta, args string
		var outIndex int
		unmarshal(t, line["type"], &typ)
		unmarshal(t, line["item_id"], &itemID)
		unmarshal(t, line["output_index"], &outIndex)
		var item struct {
			Type      string          `json:"type"`
			ID        string          `json:"id"`
			CallID    string          `json:"call_id"`
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		unmarshal(t, line["item"], &item)
		switch typ {
		case "response.output_item.added":
			if item.Type == "function_call" {
				s.opened++
				callOf[item.ID] = item.CallID
				s.chunks = append(s.chunks, Chunk{HasIndex: true, Index: outIndex, ID: item.CallID, ItemID: item.ID, Name: item.Name, Start: true})
			}
		case "response.function_call_arguments.delta":
			unmarshal(t, line["delta"], &delta)
			deltas[itemID]++
			s.chunks = append(s.chunks, Chunk{HasIndex: true, Index: outIndex, ItemID: itemID, ArgsDelta: delta})
		case "response.function_call_arguments.done":
			unmarshal(t, line["arguments"], &args)
			s.want[callOf[itemID]] = args
			c := Chunk{ItemID: itemID, Done: true}
			if deltas[itemID] == 0 {
				// Arguments only in the done event (A17).
				c.Args = &args
			}
			s.chunks = append(s.chunks, c)
		case "response.output_item.done":
			if item.Type == "function_call" {
				// The item repeats the whole arguments after the
				// call is done (B02): an identical copy is a no-op.
				var a string
				unmarshal(t, item.Arguments, &a)
				s.chunks = append(s.chunks, Chunk{ItemID: item.ID, ID: item.CallID, Args: &a, Done: true})
			}
		}
	}
	return s
}

func TestBufferCorpus(t *testing.T) {
	readers := map[string]func(*testing.T, string) corpusStream{
		"openai-chat":      chatStream,
		"anthropic":        anthropicStream,
		"openai-responses": responsesStream,
	}
	total := map[string]int{}
	for proto, read := range readers {
		files, err := filepath.Glob(filepath.Join("..", "testdata", "corpus", proto, "*.chunks.txt"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			t.Run(proto+"/"+filepath.Base(path), func(t *testing.T) {
				s := read(t, path)
				b := NewBuffer()
				for i, c := range s.chunks {
					if _, err := b.Add(c); err != nil {
						t.Fatalf("chunk %d %+v: %v", i, c, err)
					}
					if s.finishAt[i+1] {
						if _, err := b.doneAll(); err != nil {
							t.Fatal(err)
						}
					}
				}
				if inc, err := b.Finish(); err != nil {
					t.Fatalf("Finish: %v (%+v)", err, inc)
				}
				calls := b.Calls()
				if len(calls) != s.opened {
					t.Fatalf("%d calls completed, the recording opens %d", len(calls), s.opened)
				}
				got := map[string]string{}
				for _, c := range calls {
					if c.Repaired || !json.Valid(c.Arguments) || c.Name == "" || c.ID == "" {
						t.Errorf("call not clean: %+v", c)
					}
					got[c.ID] = string(c.Arguments)
				}
				if s.want != nil {
					if diff := cmp.Diff(s.want, got); diff != "" {
						t.Errorf("arguments against the recording's own (-want +got):\n%s", diff)
					}
				}
				total[proto] += len(calls)
			})
		}
	}
	// The recordings hold calls of each protocol; a reader that found none
	// would make this test vacuous.
	for proto := range readers {
		if total[proto] == 0 {
			t.Errorf("no calls read from the %s recordings", proto)
		}
	}
	t.Logf("calls checked: %v", total)
}
