package scenarios

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/failuremodes"
	"github.com/toolconform/conform/providers"
)

// coverageProtocols are the columns of COVERAGE.md: the built-in
// protocols, in name order.
var coverageProtocols = providers.Names()

// notApplicable says, for a failure mode and the protocols listed, why no
// scenario can guard it there. A cell that has a scenario shows the count
// whatever this table says; a cell with neither is reported as missing.
var notApplicable = []struct {
	modes, protocols string
	reason           string
}{
	{"A01 A02 A03 A04 A06 A08 A09 A10 A11 A12 A13 B02 B03 B08", "openai-responses anthropic gemini cohere bedrock ollama",
		"Chat Completions delta shape: tool_calls[] entries routed by index and id on every chunk; this protocol routes by block, item or whole call"},
	{"A21", "openai-responses gemini cohere bedrock ollama",
		"Gemini and Ollama send each call whole, with no index; no Responses, Cohere or Converse stream has been reported with a gap in its indices (the reports, omlx #1353 and new-api #5482, are Anthropic-format gateways)"},
	{"A01 A02 A03 A04 A06 A08 A09 A10 A11 A12 A13 A21 B02 B03 B08", "mistral",
		"a quirk of OpenAI-compatible servers and gateways; Mistral's own API sends whole calls (A07) or index-routed increments (A14), both covered"},
	{"G05", "openai-responses cohere mistral", "results are matched to calls by id; their order is no rule of the protocol"},
	{"G08", "openai-responses", "previous_response_id (stateful replay) is outside the canonical Request; an adapter encodes the whole conversation"},
	{"A07", "openai-responses anthropic gemini cohere bedrock ollama",
		"every delta of this protocol names its call (block index, item id, or a whole call per part)"},
	{"A14", "openai-chat openai-responses anthropic gemini cohere bedrock ollama", "the Mistral adapter's whole-call assumption; Mistral only"},
	{"A15", "openai-responses anthropic cohere bedrock", "calls always stream as start, delta and stop events"},
	{"A16 A17 D08 G07 G08", "openai-chat anthropic gemini cohere bedrock mistral ollama", "Responses item ids and events; no such thing in this protocol"},
	{"D06", "openai-chat anthropic gemini cohere bedrock mistral ollama",
		"two calls with one id are reported only from a Responses server (gpt-oss PR #309); no recording or report shows it in this protocol"},
	{"A18 B14", "openai-chat openai-responses gemini cohere bedrock mistral ollama", "Anthropic content_block_start and message_start fields"},
	{"A19", "openai-chat openai-responses cohere mistral", "Anthropic/Converse content blocks; interleaved calls here are A05 cases"},
	{"A19 A20 B06 B07 B10 B11 B12 C09", "gemini ollama", "calls arrive whole as JSON objects, one part per call; there is no argument text to split or cut"},
	{"B01", "openai-chat openai-responses anthropic gemini cohere bedrock mistral ollama",
		"a cumulative resend is not guessed (the guess corrupted normal streams, hermes-agent #35860); core.WithCumulativeArgs is an opt-in per provider profile, outside an adapter's decoding"},
	{"B13", "openai-responses anthropic gemini cohere bedrock mistral ollama", "Azure content-filter chunks exist only in Azure Chat Completions"},
	{"C04", "anthropic gemini bedrock ollama", "arguments are a JSON object on the wire already"},
	{"C07", "openai-chat openai-responses anthropic gemini cohere bedrock mistral ollama",
		"a value of the wrong type against the schema is argument validation's job (tools/schema), not a wire adapter's"},
	{"D01", "openai-chat openai-responses anthropic cohere bedrock mistral", "the protocol always sends call ids"},
	{"D02", "openai-chat openai-responses anthropic cohere bedrock mistral ollama", "Gemini functionResponse ids; ids round-trip in every history case of this protocol"},
	{"F02 F04 F05", "openai-responses anthropic cohere bedrock mistral ollama", "Gemini finish reasons and candidate shape"},
	{"F08", "cohere", "Cohere v2 has no named tool choice; the adapter emulates it with REQUIRED and the one tool, so a round trip cannot be the identity"},
	{"F09", "openai-chat cohere mistral ollama",
		"no tool in this protocol runs on the provider's side: every call in a Chat Completions, Cohere v2, Mistral chat or Ollama response is the client's to run"},
	{"G01 G02 G03 G06", "ollama", "Ollama accepts any history; there is no provider rule to check"},
	{"G02 G06", "gemini", "Gemini keys functionResponse by name and position (G04, G05)"},
	{"G04", "openai-chat openai-responses anthropic cohere bedrock mistral ollama", "Gemini's count rule; the id-keyed equivalents are G01 and G03"},
	{"G12", "openai-chat gemini cohere mistral ollama", "no signed thinking blocks in this protocol (Gemini signs calls, G13)"},
	{"G13", "openai-responses anthropic cohere bedrock mistral ollama", "Gemini thoughtSignature"},
	{"G14", "openai-responses anthropic gemini cohere bedrock mistral ollama", "DeepSeek reasoning_content on Chat Completions"},
	{"G15", "openai-chat openai-responses anthropic gemini cohere mistral ollama", "Bedrock Converse shape rules"},
	{"G16", "openai-chat openai-responses anthropic gemini bedrock mistral ollama", "Cohere v2 shape rules"},
	{"B04", "gemini", "a functionCall's args is one JSON object (a protobuf Struct) on the wire; there is no argument text in which two objects could follow each other"},
	{"D03", "openai-responses anthropic cohere bedrock mistral",
		"the call id is a required field of the event that opens a streamed call (output_item.added, content_block_start, tool-call-start, contentBlockStart) or of Mistral's whole-call delta, the same field as in the body; the omission is reported from Chat Completions servers only (vllm #18412)"},
	{"D04", "gemini cohere ollama",
		"no id length rule is documented or reported for this protocol (Gemini and Ollama ids are optional and echoed as given); the over-long ids of D04 are refused by Chat Completions (40), Responses and Bedrock (64)"},
	{"D05", "openai-chat openai-responses anthropic gemini cohere bedrock ollama",
		"Mistral's rule of exactly 9 characters [A-Za-z0-9] (also vLLM's Mistral tool parser, reached with the mistral adapter's IDMap); a Mistral id is valid here as it is, and foreign ids this protocol refuses are D04"},
	{"E01 E02", "ollama", "Ollama documents no rule for tool names; it passes them into the model's chat template as given"},
	{"E02", "cohere", "Cohere's documented tool-name rule (a-z, A-Z, 0-9 and _, no leading digit; Oracle's CohereTool reference) sets no length; its alphabet is E01"},
	{"F05", "openai-chat",
		"Chat Completions has no candidate or parts: an empty turn is a message without content, read as the server sent it; the empty candidate is graded on Gemini's native shape"},
	{"G11", "openai-chat mistral ollama",
		"assistant content is one string beside tool_calls, not a list of blocks, and \"\" there is accepted (OpenAI sends null or \"\", Ollama \"\" with every call, Mistral takes \"\" with tool_calls: github/copilot-cli #4884)"},
	{"G11", "openai-responses", "an assistant's text is a message item of its own and each call a function_call item; there is no text block beside a call"},
	{"G11", "gemini",
		"an empty text part beside a functionCall is accepted: a recorded Gemini 3 request sends one and gets 200 (testdata/corpus/gemini/llm-gemini__test_tools_with_gemini_3_thought_signatures.yaml #1); the \"empty text parameter\" 400 is reported from Gemini 1.5 (Uralstech/UGemini #51)"},
}

// namesMode reports whether the scenario name carries the failure-mode id
// in its last element, at its start or after a separator, followed by "-"
// (A05-round-robin, two-calls-A05-...): only such a case counts towards the
// mode's coverage, so that every covered cell has a case a report can point
// to by name.
func namesMode(name, id string) bool {
	base := name[strings.LastIndex(name, "/")+1:]
	for i := 0; ; {
		j := strings.Index(base[i:], id+"-")
		if j < 0 {
			return false
		}
		j += i
		if j == 0 || !isIDChar(base[j-1]) {
			return true
		}
		i = j + 1
	}
}

func isIDChar(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
}

func naReason(mode, protocol string) (string, int) {
	for i, r := range notApplicable {
		if slices.Contains(strings.Fields(r.modes), mode) && slices.Contains(strings.Fields(r.protocols), protocol) {
			return r.reason, i
		}
	}
	return "", -1
}

// TestCoverage checks that every guard names a catalogued failure mode and
// that COVERAGE.md is up to date; -update rewrites it.
func TestCoverage(t *testing.T) {
	cases, err := LoadBuiltin(VCRResolver(cassettes.Load))
	if err != nil {
		t.Fatal(err)
	}
	adapters := map[string]core.Adapter{}
	for _, p := range coverageProtocols {
		if adapters[p], err = providers.Lookup(p); err != nil {
			t.Fatal(err)
		}
	}
	count := map[string]map[string][]string{} // mode -> protocol -> case names
	for _, sc := range cases {
		// A hand-written case is named by the first failure mode it guards.
		if base := sc.Name[strings.LastIndex(sc.Name, "/")+1:]; !strings.Contains(sc.Name, "/recorded/") {
			if len(sc.Guards) == 0 || !strings.HasPrefix(base, sc.Guards[0]+"-") {
				t.Errorf("%s: name %q does not start with its first guard (guards: %v)", sc.File, base, sc.Guards)
			}
		}
		for _, g := range sc.Guards {
			if _, ok := failuremodes.Lookup(g); !ok {
				t.Errorf("%s: guard %s is not in the failure-mode catalogue", sc.File, g)
			}
			// A secondary guard is a claim, not coverage: a cell counts
			// only the cases a report can point to by name (issue 5).
			if !namesMode(sc.Name, g) {
				continue
			}
			if count[g] == nil {
				count[g] = map[string][]string{}
			}
			for _, p := range coverageProtocols {
				if sc.Applies(adapters[p]) {
					count[g][p] = append(count[g][p], sc.NameFor(p))
				}
			}
		}
	}

	var b strings.Builder
	b.WriteString("# Scenario coverage of failure modes A–G\n\n")
	b.WriteString("Generated by `go test ./scenarios -run TestCoverage -update`; do not edit.\n\n")
	b.WriteString("Each cell is the number of built-in scenarios that guard the failure mode on that protocol\n")
	b.WriteString("and carry its id in their name (`A05-…`; cases declared for every protocol count on each),\n")
	b.WriteString("`n/a` with a note when the failure mode cannot apply there, and `missing` when no scenario\n")
	b.WriteString("named by it guards it yet. A secondary guard (`guards: F06 F07` on an `F06-…` case) and a\n")
	b.WriteString("recorded case (named by its cassette) do not count.\n\n")
	b.WriteString("| mode | " + strings.Join(coverageProtocols, " | ") + " |\n")
	b.WriteString("|---|" + strings.Repeat("---|", len(coverageProtocols)) + "\n")
	used := map[int]bool{}
	var missing, covered, na int
	for _, m := range failuremodes.All() {
		if m.ID[0] > 'G' {
			continue
		}
		row := []string{m.ID}
		for _, p := range coverageProtocols {
			n := len(count[m.ID][p])
			switch reason, i := naReason(m.ID, p); {
			case n > 0:
				row = append(row, fmt.Sprint(n))
				covered++
			case reason != "":
				row = append(row, fmt.Sprintf("n/a [%d]", i+1))
				used[i] = true
				na++
			default:
				row = append(row, "missing")
				missing++
			}
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	fmt.Fprintf(&b, "\n%d cells covered, %d not applicable, %d missing.\n\n## Why not applicable\n\n", covered, na, missing)
	for i, r := range notApplicable {
		if used[i] {
			fmt.Fprintf(&b, "%d. %s (%s on %s).\n", i+1, r.reason, r.modes, r.protocols)
		}
	}
	files, skips := generateRecorded(t)
	fmt.Fprintf(&b, "\n## Recordings\n\n%d scenarios under `cases/*/recorded/` come from cassette interactions that carry tool\n", len(files))
	if len(skips) == 0 {
		b.WriteString("calls (TestGenerate). Every interaction of every cassette was read.\n")
	} else {
		b.WriteString("calls (TestGenerate). These interactions were not read, so whether they carry calls is not known here:\n\n")
		for _, s := range skips {
			fmt.Fprintf(&b, "- `%s`: %s\n", s.ref, s.reason)
		}
	}

	got := b.String()
	if *update {
		if err := os.WriteFile("COVERAGE.md", []byte(got), 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("COVERAGE.md")
	if err != nil || string(want) != got {
		t.Errorf("COVERAGE.md is missing or stale; run go test ./scenarios -run TestCoverage -update")
	}
}

func TestNamesMode(t *testing.T) {
	for _, tc := range []struct {
		name, id string
		want     bool
	}{
		{"openai-chat/streaming/A05-round-robin", "A05", true},
		{"any/streaming/F06-call-shaped-text-stays-text", "F07", false},
		{"any/streaming/C02-call-without-argument-events", "C01", false},
		{"mistral/streaming/two-calls-A05-interleaved", "A05", true},
		{"mistral/streaming/XA05-interleaved", "A05", false},
		{"mistral/streaming/A050-interleaved", "A05", false},
		{"mistral/streaming/A05", "A05", false},
		{"A05-x/streaming/round-robin", "A05", false},
		{"gemini/recorded/vercel-ai__google-stream-no-args-tool-call.chunks.txt-0", "C01", false},
		{"mistral/streaming/xA05-A05-y", "A05", true},
	} {
		if got := namesMode(tc.name, tc.id); got != tc.want {
			t.Errorf("namesMode(%q, %q) = %v, want %v", tc.name, tc.id, got, tc.want)
		}
	}
}
