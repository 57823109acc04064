package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"pgregory.net/rapid"
)

// TestDecodeCorpus decodes every corpus file of every built-in protocol with
// conform decode and compares the output with one golden file per protocol,
// testdata/decode/<protocol>.golden: for each file its exit status and what
// it printed. Rewrite with -update, then read the diff against the
// recordings before committing.
//
// Independently of the golden files, the number of calls decoded from each
// file must equal the number the corpus's PROVENANCE.md counted in the
// recording with its own tooling, except where that note says it counted
// streamed fragments (Vertex partialArgs) rather than calls.
//
// A protocol with no recording in the corpus (Ollama) is decoded from the
// recorded-shape response bodies its adapter's
// testdata/fixtures/README.md lists, with the calls counted there; a
// protocol with neither fails.
func TestDecodeCorpus(t *testing.T) {
	recorded := callCounts(t, "../../testdata/corpus/PROVENANCE.md", 190)
	for _, protocol := range providers.Names() {
		t.Run(protocol, func(t *testing.T) {
			files, err := filepath.Glob(filepath.Join("../../testdata/corpus", protocol, "*"))
			if err != nil {
				t.Fatal(err)
			}
			counts, keyOf := recorded, func(file string) string { return protocol + "/" + filepath.Base(file) }
			if len(files) == 0 {
				files, counts = fixtureCorpus(t, protocol)
				keyOf = filepath.Base
			}
			var got bytes.Buffer
			for _, file := range files {
				var stdout, stderr bytes.Buffer
				status := Run(context.Background(), []string{"decode", "--protocol", protocol, file}, strings.NewReader(""), &stdout, &stderr)
				key := keyOf(file)
				if want, ok := counts[key]; !ok {
					t.Errorf("%s is not in the corpus note", key)
				} else if want >= 0 {
					if got := countCalls(t, stdout.Bytes()); got != want {
						t.Errorf("%s: decoded %d calls, the recording has %d", key, got, want)
					}
				}
				fmt.Fprintf(&got, "## %s\nexit %d\n%s", filepath.Base(file), status, stdout.String())
				if stderr.Len() > 0 {
					fmt.Fprintf(&got, "stderr: %s", stderr.String())
				}
				if status != exitOK {
					t.Errorf("%s: exit %d: %s", filepath.Base(file), status, stderr.String())
				}
			}
			golden := filepath.Join("testdata/decode", protocol+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got.String()); diff != "" {
				t.Errorf("decode output differs from %s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

// fixtureCorpus returns the response bodies listed in the table of
// providers/<p>/testdata/fixtures/README.md, for a protocol with no
// recording in testdata/corpus, and the calls counted there. It fails the
// test when the protocol has none: every protocol is decoded from some
// corpus.
func fixtureCorpus(t *testing.T, protocol string) (files []string, counts map[string]int) {
	t.Helper()
	dir := filepath.Join("../../providers", strings.ReplaceAll(protocol, "-", ""), "testdata/fixtures")
	readme := filepath.Join(dir, "README.md")
	if _, err := os.Stat(readme); err != nil {
		t.Fatalf("no corpus for %s: no files in testdata/corpus/%s and no %s listing recorded-shape fixtures", protocol, protocol, readme)
	}
	counts = callCounts(t, readme, 1)
	for name := range counts {
		files = append(files, filepath.Join(dir, name))
	}
	sort.Strings(files)
	return files, counts
}

// callCounts reads the tool-call count of every file in the table of a
// corpus note (testdata/corpus/PROVENANCE.md, or a fixtures README.md),
// which must list at least min files; -1 marks a count of fragments, not
// calls.
func callCounts(t *testing.T, note string, min int) map[string]int {
	t.Helper()
	data, err := os.ReadFile(note)
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `([^`]+)` \\|.*\\| ([^|]*) \\|$")
	calls := regexp.MustCompile(`(\d+) tool calls?`)
	counts := map[string]int{}
	for _, line := range strings.Split(string(data), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n := 0
		if c := calls.FindStringSubmatch(m[2]); c != nil {
			n, _ = strconv.Atoi(c[1])
		}
		if strings.Contains(m[2], "counts are functionCall parts") {
			n = -1
		}
		counts[m[1]] = n
	}
	if len(counts) < min {
		t.Fatalf("read %d files from %s, want at least %d; its table format changed?", len(counts), note, min)
	}
	return counts
}

// countCalls counts the complete calls in decode's output, one or more JSON
// objects.
func countCalls(t *testing.T, out []byte) int {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(out))
	n := 0
	for {
		var o decodeOutput
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			t.Fatalf("decode output is not JSON: %v", err)
		}
		n += len(o.Calls)
	}
}

// TestDecodeStatus checks decode's exit status on each kind of input, 0, 1
// and 2 told apart, and the place its message names.
func TestDecodeStatus(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.sse", "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	cut := write("cut.sse", "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":null}]}\n\n")
	broken := write("broken.json", `{"choices": [{"index": 0, "message": }]}`)
	foreign := write("anthropic.sse", "event: ping\ndata: {\"type\": \"ping\"}\n\n")
	provErr := write("error.json", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	missing := filepath.Join(dir, "missing.json")
	ollamaLine := `{"model":"m","created_at":"t","message":{"role":"assistant","content":"par"},"done":false}`
	tests := []struct {
		name   string
		args   []string
		stdin  string
		status int
		stderr string // a regular expression the standard error must match
	}{
		{"stream", []string{"--protocol", "openai-chat", good}, "", exitOK, `^$`},
		{"stdin", []string{"--protocol", "openai-chat"}, "{\"id\":\"c\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}", exitOK, `^$`},
		{"provider error body", []string{"--protocol", "anthropic", provErr}, "", exitOK, `^$`},
		{"broken JSON", []string{"--protocol", "openai-chat", broken}, "", exitFail, `broken\.json: .*at byte 37`},
		{"cut stream", []string{"--protocol", "openai-chat", cut}, "", exitFail, `cut\.sse: .*stream ended early: no finish event`},
		{"foreign stream", []string{"--protocol", "openai-chat", foreign}, "", exitFail, `anthropic\.sse: .*openai-chat: decode stream: at byte 0: no openai-chat event in 36 bytes: not a stream of this protocol`},
		{"foreign stream to cohere", []string{"--protocol", "cohere", good}, "", exitFail, `good\.sse: .*cohere: decode stream: at byte 0: no cohere event in \d+ bytes: not a stream of this protocol`},
		{"foreign JSON lines to ollama", []string{"--protocol", "ollama"}, "{\"x\":1}\n{\"y\":2}\n", exitFail, `standard input: .*ollama: decode stream: at byte 0: no ollama line .*: not a stream of this protocol`},
		{"one ollama line, not done", []string{"--protocol", "ollama"}, ollamaLine + "\n", exitFail, `^conform: decode: standard input: ollama: decode response: at done: false: a stream line cut before its done line, not a whole response: stream ended early\n$`},
		{"two ollama lines, not done", []string{"--protocol", "ollama"}, ollamaLine + "\n" + ollamaLine + "\n", exitFail, `^conform: decode: standard input: collect: event \d+: stream ended early: no finish event\n$`},
		{"empty stdin", []string{"--protocol", "openai-chat"}, "", exitFail, `standard input: no openai-chat events in 0 bytes`},
		{"no protocol", []string{good}, "", exitUsage, `--protocol is required`},
		{"empty protocol", []string{"--protocol", "", good}, "", exitUsage, `--protocol: empty value`},
		{"unknown protocol", []string{"--protocol", "nosuch", good}, "", exitUsage, `unknown protocol "nosuch"; known: anthropic, `},
		{"two files", []string{"--protocol", "openai-chat", good, broken}, "", exitUsage, `at most one FILE`},
		{"missing file", []string{"--protocol", "openai-chat", missing}, "", exitUsage, `open .*missing\.json: no such file or directory`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			status := Run(context.Background(), append([]string{"decode"}, tt.args...), strings.NewReader(tt.stdin), &stdout, &stderr)
			if status != tt.status {
				t.Errorf("status %d, want %d; stderr: %s", status, tt.status, stderr.String())
			}
			if !regexp.MustCompile(tt.stderr).MatchString(stderr.String()) {
				t.Errorf("stderr %q does not match %q", stderr.String(), tt.stderr)
			}
		})
	}
}

// TestDecodeFailurePrintsNothing checks that a body that fails and yields
// nothing prints nothing, and that arguments nested deeper than
// core.MaxDepth are refused with the file, the call and the byte offset
// instead of being printed.
func TestDecodeFailurePrintsNothing(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	deep := strings.Repeat("[", 9000) + strings.Repeat("]", 9000)
	deepArgs, err := json.Marshal(deep)
	if err != nil {
		t.Fatal(err)
	}
	deepStream := write("deep.sse", "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":"+string(deepArgs)+"}}]},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n")
	anthropicLines := write("anthropic.chunks.txt", `{"type":"message_start","message":{"model":"m","id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}
{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"weather","input":{}}}
{"type":"ping"}
`)
	tests := []struct {
		name, protocol, file string
		stderr               string // a regular expression the standard error must match
	}{
		{"deep arguments", "openai-chat", deepStream, `^conform: decode: .*deep\.sse: call call_1 \(f\): arguments: JSON nested too deeply: more than 512 levels at byte 512\n$`},
		{"anthropic lines as openai-chat", "openai-chat", anthropicLines, `anthropic\.chunks\.txt: exchange 0: `},
		{"anthropic lines as mistral", "mistral", anthropicLines, `anthropic\.chunks\.txt: exchange 0: `},
		{"anthropic lines as ollama", "ollama", anthropicLines, `anthropic\.chunks\.txt: exchange 0: `},
		{"anthropic lines as openai-responses", "openai-responses", anthropicLines, `anthropic\.chunks\.txt: exchange 0: `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			status := Run(context.Background(), []string{"decode", "--protocol", tt.protocol, tt.file}, strings.NewReader(""), &stdout, &stderr)
			if status != exitFail {
				t.Errorf("exit %d, want %d; stderr: %s", status, exitFail, stderr.String())
			}
			if stdout.Len() > 0 {
				t.Errorf("printed %d bytes for a body that failed:\n%.300s", stdout.Len(), stdout.String())
			}
			if !regexp.MustCompile(tt.stderr).MatchString(stderr.String()) {
				t.Errorf("stderr %q does not match %q", stderr.String(), tt.stderr)
			}
		})
	}
}

// TestDecodeOutputWrite checks that writing the text in pieces gives the
// bytes the encoder gives for the whole document, whatever the text: pieces
// end at character boundaries and escape as one string would.
func TestDecodeOutputWrite(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		unit := rapid.SampledFrom([]string{"a", "é", "日本", "🌧", "\"", "\\", "\n", "<&>", "\u2028", "\x01", "\xff"}).Draw(t, "unit")
		n := rapid.IntRange(0, 70<<10).Draw(t, "n")
		out := &decodeOutput{Protocol: "openai-chat", Stream: true, Text: strings.Repeat(unit, n/len(unit)+1) + rapid.String().Draw(t, "tail"), FinishReason: core.FinishStop}
		want, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := out.write(&got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), append(want, '\n')) {
			t.Fatalf("write differs from MarshalIndent for %d bytes of %q", len(out.Text), unit)
		}
	})
}
