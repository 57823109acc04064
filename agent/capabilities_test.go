package agent

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolconform/conform/core"
)

func TestAutoModeFromModelName(t *testing.T) {
	caps := DefaultCapabilities()
	tests := []struct {
		model string
		want  Mode
	}{
		{"gpt-4o", ModeStructured},
		{"gpt-4o-mini-2024-07-18", ModeStructured},
		{"gpt-4.1-nano", ModeStructured},
		{"o1", ModeStructured},
		{"o3-mini", ModeStructured},
		{"o4-mini", ModeStructured},
		{"claude-sonnet-4-5", ModeNative},
		{"Claude-3-7-Sonnet", ModeNative},
		{"gemini-2.5-flash", ModeNative},
		{"models/gemini-2.5-pro", ModeNative},
		{"llama3.1:8b", ModeNative},
		{"qwen2.5-coder", ModeNative},
		{"deepseek-chat", ModeNative},
		{"mistral-large-latest", ModeNative},
		{"openai/gpt-4o", ModeNative},
		{"meta-llama/llama-4-scout", ModeNative},
		{"anthropic.claude-3-5-sonnet-20240620-v1:0", ModeNative},
		{"us.anthropic.claude-3-7-sonnet-20250219-v1:0", ModeNative},
		{"eu.anthropic.claude-sonnet-4-20250514-v1:0", ModeNative},
		{"global.anthropic.claude-sonnet-4-5-20250929-v1:0", ModeNative},
		{"apac.meta.llama3-2-90b-instruct-v1:0", ModeNative},
		{"meta.llama3-1-70b-instruct-v1:0", ModeNative},
		{"mistral.mistral-large-2407-v1:0", ModeNative},
		{"arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0", ModeNative},
		{"open-mistral-nemo", ModeNative},
		{"open-mixtral-8x22b", ModeNative},
		{"ministral-8b-latest", ModeNative},
		{"codestral-latest", ModeNative},
		{"pixtral-large-latest", ModeNative},
		{"groq/llama-3.1-8b-instant", ModeNative},
		{"accounts/fireworks/models/qwen3-235b-a22b", ModeNative},
		{"openrouter/openai/gpt-4o", ModeNative},
		{"amazon.nova-pro-v1:0", ModeValidated},
		{"phi-3-mini", ModeValidated},
		{"ollama/phi-3-mini", ModeValidated},
		{"eu.phi-3-mini", ModeValidated},
		{"", ModeValidated},
	}
	for _, tt := range tests {
		if got := caps.Mode(ModeAuto, tt.model); got != tt.want {
			t.Errorf("Mode(auto, %q) = %s, want %s", tt.model, got, tt.want)
		}
	}
	if got := caps.Mode(ModeParsed, "gpt-4o"); got != ModeParsed {
		t.Errorf("an explicit mode was overridden: got %s", got)
	}
}

// TestRejectedParams checks H04: o-series models reject parallel_tool_calls
// even when false, so the request builder leaves it out; others keep it.
func TestRejectedParams(t *testing.T) {
	caps := DefaultCapabilities()
	f := false
	for _, tt := range []struct {
		model       string
		wantRemoved []string
	}{
		{"o3-mini", []string{ParamParallelToolCalls}},
		{"o1-2024-12-17", []string{ParamParallelToolCalls}},
		{"gpt-4o", nil},
		{"claude-opus-4", nil},
	} {
		req := &core.Request{Model: tt.model, ParallelToolCalls: &f}
		removed := caps.Apply(req)
		if diff := cmp.Diff(tt.wantRemoved, removed); diff != "" {
			t.Errorf("%s: removed (-want +got):\n%s", tt.model, diff)
		}
		if kept := req.ParallelToolCalls != nil; kept != (tt.wantRemoved == nil) {
			t.Errorf("%s: parallel_tool_calls kept = %v", tt.model, kept)
		}
	}
}

// TestUserEntryOverridesBuiltin checks H05, for entries given as options
// and read from a file: a user entry beats a built-in one, even a longer
// built-in match, and adds models the table did not know.
func TestUserEntryOverridesBuiltin(t *testing.T) {
	fromOption, err := NewCapabilities(WithEntries(
		Capability{Match: "o3", Mode: ModeNative},
		Capability{Match: "gpt", Mode: ModeParsed},
	))
	if err != nil {
		t.Fatal(err)
	}
	for model, want := range map[string]Capability{
		"o3-mini":      {Match: "o3", Mode: ModeNative},
		"gpt-4o":       {Match: "gpt", Mode: ModeParsed},
		"claude-haiku": {Match: "claude", Mode: ModeNative},
	} {
		got, ok := fromOption.Lookup(model)
		if !ok {
			t.Errorf("%s: no entry", model)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: entry (-want +got):\n%s", model, diff)
		}
	}
	// A user entry for a family reaches the family's Bedrock and router
	// names too, and one for a Bedrock prefix beats the family entry.
	bedrock, err := NewCapabilities(WithEntries(
		Capability{Match: "claude", Mode: ModeParsed},
		Capability{Match: "eu.anthropic.", Mode: ModeValidated},
	))
	if err != nil {
		t.Fatal(err)
	}
	for model, want := range map[string]Mode{
		"us.anthropic.claude-3-7-sonnet-20250219-v1:0": ModeParsed,
		"anthropic/claude-sonnet-4":                    ModeParsed,
		"eu.anthropic.claude-3-7-sonnet-20250219-v1:0": ModeValidated,
		"meta.llama3-1-70b-instruct-v1:0":              ModeNative,
	} {
		if got := bedrock.Mode(ModeAuto, model); got != want {
			t.Errorf("%s: mode %s, want %s", model, got, want)
		}
	}
	// The user's o3 entry lists no rejected parameter, so it is sent.
	f := false
	if removed := fromOption.Apply(&core.Request{Model: "o3", ParallelToolCalls: &f}); removed != nil {
		t.Errorf("user entry without rejects still removed %v", removed)
	}

	fromFile, err := NewCapabilities(WithFile(filepath.Join("testdata", "capabilities.json")))
	if err != nil {
		t.Fatal(err)
	}
	if got := fromFile.Mode(ModeAuto, "gpt-4o-mini"); got != ModeNative {
		t.Errorf("file entry for gpt-4o: got %s, want native", got)
	}
	if got := fromFile.Mode(ModeAuto, "gpt-4.1"); got != ModeStructured {
		t.Errorf("built-in gpt-4.1 lost: got %s", got)
	}
	req := &core.Request{Model: "my-local-model-7b", ToolChoice: &core.ToolChoice{Mode: core.ToolChoiceAuto}}
	if diff := cmp.Diff([]string{ParamToolChoice}, fromFile.Apply(req)); diff != "" || req.ToolChoice != nil {
		t.Errorf("file entry rejects tool_choice: (-want +got):\n%s", diff)
	}
}

func TestWithoutBuiltins(t *testing.T) {
	caps, err := NewCapabilities(WithoutBuiltins())
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := caps.Lookup("claude-3"); ok || got.Mode != FallbackMode {
		t.Errorf("got %+v, %v; want the fallback", got, ok)
	}
}

func TestCapabilityFileErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		want string
	}{
		{"syntax", `{"models": [`, "capabilities: at byte 12: unexpected end of file"},
		{"bad json", `{"models": [}`, "capabilities: at byte 13: invalid character '}' looking for beginning of value"},
		{"unknown field", `{"models": [{"match": "a", "mode": "native", "speed": 3}]}`, `capabilities: at byte 58: json: unknown field "speed"`},
		{"wrong type", `{"models": [{"match": 3}]}`, "capabilities: at byte 23: field models.match: want a string, not number"},
		{"wrong type, Go type not named", `{"models": [{"match": "o3", "rejects": "x"}]}`, "capabilities: at byte 42: field models.rejects: want an array, not string"},
		{"unknown mode", `{"models": [{"match": "a", "mode": "native"}, {"match": "b", "mode": "fast"}]}`, `capabilities: at /models/1/mode: mode "fast" is not one of native, structured, validated, parsed`},
		{"auto is not a mode here", `{"models": [{"match": "b", "mode": "auto"}]}`, `capabilities: at /models/0/mode: mode "auto" is not one of native, structured, validated, parsed`},
		{"unknown param", `{"models": [{"match": "a", "mode": "native", "rejects": ["temperature"]}]}`, `capabilities: at /models/0/rejects/0: unknown parameter "temperature"; known: max_tokens, parallel_tool_calls, response_format, tool_choice`},
		{"empty match", `{"models": [{"match": " ", "mode": "native"}]}`, "capabilities: at /models/0/match: empty"},
		{"trailing data", `{"models": []} x`, "capabilities: at byte 15: data after the top-level object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseCapabilities([]byte(tt.file))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrBadCapability) {
				t.Errorf("error %v does not wrap ErrBadCapability", err)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "caps.json")
	if err := os.WriteFile(p, []byte(`{"models": [{"match": "a", "mode": "x"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := NewCapabilities(WithFile(p)); err == nil || !errors.Is(err, ErrBadCapability) {
		t.Errorf("WithFile on a bad file: %v", err)
	}
	if _, err := NewCapabilities(WithEntries(Capability{Match: "a", Mode: "x"})); !errors.Is(err, ErrBadCapability) {
		t.Errorf("WithEntries with a bad mode: %v", err)
	}
}
