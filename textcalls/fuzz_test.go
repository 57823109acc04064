package textcalls_test

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/textcalls"
)

// fuzzFormat is the fuzz property of one format's parser, seeded from the
// format's vectors: any text, cut where seed says and with the reasoning
// region opened by the prompt or not, gives the same events, joined, as
// the whole text, and collects without a panic into calls whose
// arguments are JSON, every incomplete call reported.
func fuzzFormat(f *testing.F, name string) {
	format, err := textcalls.Lookup(name)
	if err != nil {
		f.Fatal(err)
	}
	files, _ := filepath.Glob("../testdata/textcalls/*.jsonl")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			var v struct {
				Format string `json:"format"`
				Text   string `json:"text"`
			}
			if json.Unmarshal([]byte(line), &v) == nil && v.Format == name {
				f.Add(v.Text, uint64(len(v.Text)))
			}
		}
	}
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		r := rand.New(rand.NewPCG(seed, seed>>7))
		opts := textcalls.Options{ThinkingOpen: seed&1 == 1, MaxBody: 1 << 16}
		var pieces []string
		for rest := text; rest != ""; {
			n := min(len(rest), 1+r.IntN(8))
			pieces = append(pieces, rest[:n])
			rest = rest[n:]
		}
		whole := joined(textcalls.Parse(format, opts, text))
		cut := joined(textcalls.Parse(format, opts, pieces...))
		if diff := cmp.Diff(whole, cut); diff != "" {
			t.Fatalf("%q cut into %q: events differ (-whole +cut):\n%s", text, pieces, diff)
		}
		resp, err := textcalls.Collect(format, opts, pieces...)
		for _, c := range resp.Calls() {
			if !json.Valid(c.Arguments) {
				t.Fatalf("%q: call %s completed with arguments %q", text, c.Name, c.Arguments)
			}
		}
		if len(resp.Incomplete) > 0 && err == nil {
			t.Fatalf("%q: %d calls incomplete and no error said so", text, len(resp.Incomplete))
		}
	})
}

func FuzzHermes(f *testing.F)         { fuzzFormat(f, "hermes") }
func FuzzThink(f *testing.F)          { fuzzFormat(f, "think") }
func FuzzQwen3Coder(f *testing.F)     { fuzzFormat(f, "qwen3-coder") }
func FuzzGLM45(f *testing.F)          { fuzzFormat(f, "glm45") }
func FuzzGLM47(f *testing.F)          { fuzzFormat(f, "glm47") }
func FuzzDeepSeekV3(f *testing.F)     { fuzzFormat(f, "deepseek-v3") }
func FuzzDeepSeekV31(f *testing.F)    { fuzzFormat(f, "deepseek-v31") }
func FuzzDeepSeekV32(f *testing.F)    { fuzzFormat(f, "deepseek-v32") }
func FuzzKimiK2(f *testing.F)         { fuzzFormat(f, "kimi-k2") }
func FuzzMistralV3(f *testing.F)      { fuzzFormat(f, "mistral-v3") }
func FuzzMistralV11(f *testing.F)     { fuzzFormat(f, "mistral-v11") }
func FuzzGranite(f *testing.F)        { fuzzFormat(f, "granite") }
func FuzzPhi4Mini(f *testing.F)       { fuzzFormat(f, "phi4-mini") }
func FuzzLlama3JSON(f *testing.F)     { fuzzFormat(f, "llama3-json") }
func FuzzBareJSON(f *testing.F)       { fuzzFormat(f, "bare-json") }
func FuzzJSONList(f *testing.F)       { fuzzFormat(f, "json-list") }
func FuzzMiniMaxM2(f *testing.F)      { fuzzFormat(f, "minimax-m2") }
func FuzzPythonic(f *testing.F)       { fuzzFormat(f, "pythonic") }
func FuzzLlama4Pythonic(f *testing.F) { fuzzFormat(f, "llama4-pythonic") }
func FuzzLFM2(f *testing.F)           { fuzzFormat(f, "lfm2") }
func FuzzOLMo3(f *testing.F)          { fuzzFormat(f, "olmo3") }
func FuzzHarmony(f *testing.F)        { fuzzFormat(f, "gpt-oss-harmony") }
func FuzzGemma4(f *testing.F)         { fuzzFormat(f, "gemma4") }
func FuzzFunctionGemma(f *testing.F)  { fuzzFormat(f, "functiongemma") }
func FuzzSeedOSS(f *testing.F)        { fuzzFormat(f, "seed-oss") }
func FuzzCohereCommand(f *testing.F)  { fuzzFormat(f, "cohere-command") }

// TestEveryFormatFuzzed checks that each built-in format has its fuzz
// target in this file.
func TestEveryFormatFuzzed(t *testing.T) {
	src, err := os.ReadFile("fuzz_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range textcalls.Formats() {
		if !strings.Contains(string(src), "fuzzFormat(f, \""+f.Name+"\")") {
			t.Errorf("format %s has no fuzz target in fuzz_test.go", f.Name)
		}
	}
}
