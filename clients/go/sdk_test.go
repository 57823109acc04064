package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
	"github.com/toolconform/conform/serve"
)

// sdkProtocols pairs each SDK of this program with the protocol it speaks.
var sdkProtocols = []struct{ sdk, protocol string }{
	{"openai-go", "openai-chat"},
	{"openai-go-responses", "openai-responses"},
	{"anthropic-sdk-go", "anthropic"},
	{"genai", "gemini"},
	{"aws-sdk-go-v2", "bedrock"},
	{"ollama", "ollama"},
}

// sdkKnown are the failures that are the SDK's or this program's own, not
// conform's: the served bytes are the case's (a provider's quirk, or the
// fault the case is about), and the SDK cannot read them or the program
// rightly refuses what it read. Each must still fail. Keys are "sdk
// scenario stream=B"; sdkKnownByReason groups them.
var sdkKnown = func() map[string]string {
	out := map[string]string{}
	for why, keys := range sdkKnownByReason {
		for _, k := range keys {
			out[k] = why
		}
	}
	return out
}()

var sdkKnownByReason = map[string][]string{
	"openai-go's ChatCompletionAccumulator joins tool-call deltas by index alone: calls the stream tells apart by id, or sends without an index, become one call whose name and arguments are the others' concatenated": {
		"openai-go openai-chat/streaming/A01-parallel-calls-all-on-index-0 stream=true",
		"openai-go openai-chat/streaming/A02-index-reused-with-new-id stream=true",
		"openai-go openai-chat/streaming/A06-no-index-id-only-on-first stream=true",
		"openai-go openai-chat/streaming/A07-missing-index-whole-calls stream=true",
		"openai-go openai-chat/streaming/B02-deltas-then-full-copy stream=true",
		"openai-go openai-chat/streaming/F02-gemini-compat-stream-says-stop stream=true",
		"openai-go openai-chat/streaming/G13-gemini-compat-thought-signature-on-tool-call stream=true",
	},
	"openai-go's accumulator leaves a call without an id (an index the stream skips, a stream that sends no ids, an id only on a later delta), and the follow-up's empty tool_call_id is refused, as the API refuses it": {
		"openai-go openai-chat/recorded/vercel-ai__anthropic-fallback-tool-call.sse-0 stream=true",
		"openai-go openai-chat/streaming/A21-call-indices-skip-a-number stream=true",
		"openai-go openai-chat/streaming/D03-stream-without-call-ids stream=true",
	},
	"the streamed arguments are not JSON (the fault the case is about, which conform's Buffer repairs and reports); the SDK passes them on raw and this program refuses to run them": {
		"openai-go openai-chat/streaming/B07-raw-newline-in-argument-string stream=true",
		"openai-go openai-chat/streaming/B07-raw-newline-in-arguments-text stream=true",
		"openai-go openai-chat/streaming/C09-malformed-arguments-repair-reported stream=true",
		"openai-go openai-chat/streaming/C09-trailing-comma-repair-reported stream=true",
		"openai-go-responses openai-responses/streaming/B07-raw-newline-in-argument-string stream=true",
		"openai-go-responses openai-responses/streaming/C09-trailing-comma-repair-reported stream=true",
		"aws-sdk-go-v2 bedrock/streaming/B07-raw-newline-in-argument-string stream=true",
		"aws-sdk-go-v2 bedrock/streaming/C09-trailing-comma-repair-reported stream=true",
	},
	"anthropic-sdk-go's Message.Accumulate refuses a content_block_start whose index is not the next one, and the recorded provider numbers its blocks from 1": {
		"anthropic-sdk-go anthropic/streaming/A21-content-block-indices-start-at-1 stream=true",
	},
	"a toolUse whose input is null: the SDK gives no input document, and this program does not run a call without arguments": {
		"aws-sdk-go-v2 bedrock/response/C06-null-arguments stream=false",
	},
}

// TestSDKsReadServedScenarios starts conform serve (a fresh server for
// each run, on loopback) and runs every servable scenario of each
// protocol, whole and streamed, through the official Go SDK of that
// protocol: the first request, and the follow-up with the echo of every
// call when there are calls. An SDK must read every answer of a scenario
// that expects no error; a scenario not applicable to the SDK's request (a
// request option it lacks, a stream with no whole form) is counted apart,
// and so is a broken stream the SDK reads without error (its own
// leniency, not conform's fault).
func TestSDKsReadServedScenarios(t *testing.T) {
	cases, err := scenarios.LoadBuiltin(scenarios.VCRResolver(cassettes.Load))
	if err != nil {
		t.Fatal(err)
	}
	all, err := serve.New(serve.Options{Scenarios: cases})
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]string{}
	for k, v := range sdkKnown {
		known[k] = v
	}
	for _, sp := range sdkProtocols {
		t.Run(sp.sdk, func(t *testing.T) {
			ep, err := providers.HTTP(sp.protocol)
			if err != nil {
				t.Fatal(err)
			}
			counts := map[string]int{}
			var failures []string
			for _, name := range all.Names() {
				if p, _ := all.Protocol(name); p != sp.protocol {
					continue
				}
				sc, _ := all.Scenario(name)
				for _, stream := range []bool{false, true} {
					outcome, detail := runSDK(t, sp.sdk, name, sc, ep.DefaultModel, stream)
					mode := "whole"
					if stream {
						mode = "streamed"
					}
					key := fmt.Sprintf("%s %s stream=%v", sp.sdk, name, stream)
					if _, ok := known[key]; ok && outcome == "failed" {
						delete(known, key)
						outcome = "failed, the SDK's (sdkKnown)"
					}
					counts[mode+" "+outcome]++
					if outcome == "failed" {
						failures = append(failures, key+": "+detail)
					}
				}
			}
			var lines []string
			for k, n := range counts {
				lines = append(lines, fmt.Sprintf("%s %d", k, n))
			}
			sort.Strings(lines)
			t.Logf("%s: %s", sp.sdk, strings.Join(lines, ", "))
			for _, f := range failures {
				t.Error(f)
			}
		})
	}
	for k, why := range known {
		t.Errorf("known SDK failure no longer fails; remove it from sdkKnown: %s (%s)", k, why)
	}
}

// runSDK serves one scenario on a fresh server and runs the SDK against
// it; the outcome is "read", "not applicable", "error as expected", "read
// a broken case without error" or "failed" (with the SDK's error).
func runSDK(t *testing.T, sdk, name string, sc *scenarios.Scenario, model string, stream bool) (string, string) {
	t.Helper()
	srv, err := serve.New(serve.Options{Scenarios: []*scenarios.Scenario{sc}, Scenario: name})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c := config{base: ts.URL, model: model, stream: stream}
	for _, tl := range serve.ClientTools(sc) {
		c.tools = append(c.tools, tool{Name: tl.Name, Description: tl.Description, InputSchema: tl.InputSchema})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, runErr := sdks[sdk](ctx, c)
	v, _ := srv.Verdict(name)
	expectErr := sc.Want.ExpectsError()
	switch {
	case v.NotApplicable != "" && v.Served == 0:
		return "not applicable", ""
	case runErr == nil && !expectErr:
		return "read", ""
	case runErr != nil && expectErr:
		return "error as expected", ""
	case runErr == nil:
		return "read a broken case without error", ""
	}
	detail := runErr.Error()
	if len(detail) > 300 {
		detail = detail[:300] + "..."
	}
	if len(v.Errors) > 0 {
		detail += " (serve: " + strings.Join(slices.Clip(v.Errors), "; ") + ")"
	}
	return "failed", detail
}
