package core

import (
	"fmt"
	"slices"
)

// A Feature is a property of a wire protocol that decides whether a
// conformance case applies to it: whether the protocol can force a named
// tool, carries arguments as text, binds results to calls by id. Features
// belong to the protocol, not to one implementation of it: every adapter of
// a protocol is held to the protocol's features, so an adapter cannot skip
// a case by declaring less than its protocol offers.
type Feature string

// The features. A case that requires a feature runs only on the adapters
// whose protocol has it.
const (
	// FeatureArgumentText: tool-call arguments travel as JSON text, in a
	// stream as pieces of text that only make JSON once joined (not as a
	// JSON value, as in Gemini and Ollama).
	FeatureArgumentText Feature = "argument-text"
	// FeatureNamedToolChoice: a request can force one named tool.
	FeatureNamedToolChoice Feature = "named-tool-choice"
	// FeatureResultIDs: a tool result names the call it answers by the
	// call's id, so a result without one, or with an unknown one, cannot be
	// bound to a call.
	FeatureResultIDs Feature = "result-ids"
	// FeatureToolNameLimit: the API accepts tool names of at most 64
	// characters from a small alphabet (letters, digits, "_" and "-";
	// Gemini also "." and ":"), and answers 400 to others.
	FeatureToolNameLimit Feature = "tool-name-limit"
	// FeatureResultsRequired: the API rejects a history in which a call has
	// no result.
	FeatureResultsRequired Feature = "results-required"
	// FeatureParallelSwitch: a request can turn parallel tool calls off.
	FeatureParallelSwitch Feature = "parallel-switch"
)

// features lists every Feature, in a fixed order.
var features = []Feature{
	FeatureArgumentText,
	FeatureNamedToolChoice,
	FeatureResultIDs,
	FeatureToolNameLimit,
	FeatureResultsRequired,
	FeatureParallelSwitch,
}

// ParseFeature returns the Feature named s, or an error listing the known
// ones.
func ParseFeature(s string) (Feature, error) {
	if f := Feature(s); slices.Contains(features, f) {
		return f, nil
	}
	return "", fmt.Errorf("unknown feature %q (known: %v)", s, features)
}

// FeatureDeclarer is implemented by adapters that declare the features of
// their protocol. An adapter that does not is offered every case of its
// protocol, and a case it refuses with errors.ErrUnsupported is skipped.
type FeatureDeclarer interface {
	Adapter
	// Features returns the features of the adapter's protocol.
	Features() []Feature
}
