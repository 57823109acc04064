package outside

import (
	"strings"
	"testing"

	"github.com/toolconform/conform/conformtest"
	"github.com/toolconform/conform/scenarios"
)

// TestIndexRouterNeedsProtocol: named my-openai and declaring no protocol,
// the broken adapter is an error, never graded on a smaller suite.
func TestIndexRouterNeedsProtocol(t *testing.T) {
	results, err := conformtest.Check(NewIndexRouter)
	if err == nil || !strings.Contains(err.Error(), `adapter "my-openai" names no built-in protocol`) {
		t.Fatalf("error = %v, want one saying the adapter names no protocol", err)
	}
	if len(results) > 0 {
		t.Errorf("%d cases graded, want none", len(results))
	}
}

// TestIndexRouterFails: with its protocol declared, the planted bug fails.
func TestIndexRouterFails(t *testing.T) {
	_, err := conformtest.Check(NewIndexRouter, conformtest.Protocol("openai-chat"))
	if err == nil {
		t.Fatal("the index-only router passed")
	}
	for _, want := range []string{"openai-chat/streaming/A01-parallel-calls-all-on-index-0 [MUST]", "openai-chat/streaming/A02-index-reused-with-new-id [MUST]"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %s", want)
		}
	}
	t.Log(err.Error()[strings.LastIndex(err.Error(), "\n")+1:])
}

// TestWrapperPasses: the correct wrapper passes by default, its SHOULD
// failure reported and not counted.
func TestWrapperPasses(t *testing.T) {
	conformtest.Run(t, NewWrapper, conformtest.Protocol("openai-chat"))
	results, err := conformtest.Check(NewWrapper, conformtest.Protocol("openai-chat"))
	if err != nil {
		t.Fatal(err)
	}
	var should []string
	for _, r := range results {
		if r.Status == scenarios.StatusFail {
			should = append(should, string(r.Severity)+" "+r.Name)
		}
	}
	if len(should) != 1 || should[0] != "SHOULD openai-chat/history/G09-malformed-arguments-in-string-field" {
		t.Errorf("failures %v, want the one SHOULD case G09", should)
	}
}

// TestStreamOnly: the stream accumulator is graded on the stream cases
// and passes; every other case is not graded.
func TestStreamOnly(t *testing.T) {
	conformtest.Run(t, NewStreamOnly, conformtest.Protocol("openai-chat"))
	results, err := conformtest.Check(NewStreamOnly, conformtest.Protocol("openai-chat"))
	if err != nil {
		t.Fatal(err)
	}
	n := map[scenarios.Status]int{}
	for _, r := range results {
		n[r.Status]++
		graded := r.Status != scenarios.StatusNotGraded
		if stream := r.Scenario.Kind == scenarios.KindStream && r.Scenario.Body != nil; graded != stream {
			t.Errorf("%s: %s (%s)", r.Name, r.Status, r.Reason)
		}
	}
	t.Logf("stream-only: %d cases, %d passed, %d not graded", len(results), n[scenarios.StatusPass], n[scenarios.StatusNotGraded])
}
