package scenarios

import (
	"regexp"
	"slices"
	"strings"

	"github.com/toolconform/conform/core"
)

// Severity says how strictly a scenario's rule binds an adapter.
type Severity string

// The severities, in the sense of RFC 2119.
const (
	MUST   Severity = "MUST"
	SHOULD Severity = "SHOULD"
	INFO   Severity = "INFO"
)

// Kind says what a scenario exercises.
type Kind string

// The kinds of scenario.
const (
	// KindStream decodes a streamed response body (or the stream an adapter
	// encodes from canonical events) and checks the collected response.
	KindStream Kind = "stream"
	// KindResponse decodes a whole response body (or one the adapter
	// encodes from a canonical response) and checks it.
	KindResponse Kind = "response"
	// KindRequest encodes a canonical request, decodes it again and checks
	// that nothing the protocol keeps was lost.
	KindRequest Kind = "request"
	// KindHistory encodes a canonical conversation and checks the
	// protocol's replay rules: the encoded request, or the error the
	// adapter must return.
	KindHistory Kind = "history"
)

// AnyProtocol is the first segment of the name of a scenario that is
// declared once and expanded over adapters (header "protocols:").
const AnyProtocol = "any"

// Scenario is one conformance case, parsed from a txtar file.
type Scenario struct {
	// Name is the path-like name protocol/category/case, derived from the
	// file's path. A case expanded over adapters has AnyProtocol as its
	// first segment; its results carry the adapter's name there instead.
	Name string
	// File is the file the scenario was read from, for messages.
	File string
	// Comment is the prose of the txtar comment, header lines removed.
	Comment  string
	Severity Severity
	// Guards lists the failure-mode ids (A05, G12) the case guards.
	Guards []string
	// Protocols lists the protocols the case applies to; ["*"] means every
	// adapter.
	Protocols []string
	// Requires lists the features (core.Feature) an adapter's protocol must
	// have for the case to apply to it.
	Requires []core.Feature
	Kind     Kind
	// Source names the recording the case was generated from, if any.
	Source string
	// Cassette is the "path#interaction" reference the provider bytes were
	// read from, if the case references a cassette.
	Cassette string

	// Tools are the tools of tools.json.
	Tools []core.ToolSpec
	// Request is the canonical request of request.json.
	Request *core.Request
	// Body is the provider bytes (response.sse, .json, .ndjson, or .b64
	// decoded), or nil for a canonical case.
	Body []byte
	// BodySection is the section Body came from.
	BodySection string
	// Events are the canonical events of events.json, for a stream case
	// expanded over adapters.
	Events []core.Event
	// Response is the canonical response of canonical-response.json, for
	// a response case expanded over adapters.
	Response *core.Response

	Want Want
}

// Want is what a scenario expects.
type Want struct {
	// Calls is want/calls.json: the complete calls, in order. A missing
	// section means the response must carry no calls.
	Calls []map[string]any
	// Incomplete is want/incomplete.json: the calls still open when the
	// stream ended. A missing section means there must be none.
	Incomplete []map[string]any
	// LimitCalls is want/limit-calls.json: calls complete on the wire that
	// conform's own decoder leaves incomplete at one of its limits (A12:
	// an index past core.Buffer's). A client or gateway without that limit
	// may run them, with these arguments, or refuse them; neither is a
	// fault of the wire's contract.
	LimitCalls []map[string]any
	// Text is want/text.txt without its final newline, when present.
	Text *string
	// Finish is want/finish.txt: the normalised finish reason, optionally
	// followed by the provider's raw value.
	Finish *Finish
	// Error is want/error.txt, a regular expression the error must match.
	Error *regexp.Regexp
	// DecodeError is want/decode-error.json: the decoding must fail with
	// a decode error (not a provider error, not a truncation) that names a
	// byte offset within the range, whatever its wording.
	DecodeError *ByteRange
	// Request is want/request.json: the encoded request, compared as JSON.
	Request any
}

// ByteRange is a range of byte offsets, From to To inclusive: the
// tolerance within which an error's position is right (a malformed
// event's start, the end of its data and the byte just after it all name
// the same fault).
type ByteRange struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// Contains reports whether off is within the range.
func (r ByteRange) Contains(off int64) bool { return off >= r.From && off <= r.To }

// ExpectsError reports whether the scenario's decoding must fail
// (want/error.txt or want/decode-error.json).
func (w Want) ExpectsError() bool { return w.Error != nil || w.DecodeError != nil }

// Finish is an expected finish reason.
type Finish struct {
	Reason core.FinishReason
	// Provider is the provider's raw value; empty means "not checked".
	Provider string
}

// String returns the scenario's name.
func (s *Scenario) String() string { return s.Name }

// Applies reports whether the scenario runs on adapter a: it is declared
// for a's protocol (a.Name()), and that protocol has every feature the
// scenario requires, by the features a declares (core.FeatureDeclarer). An
// adapter that declares none is offered every case of its protocol.
func (s *Scenario) Applies(a core.Adapter) bool {
	if !s.declaredFor(a.Name()) {
		return false
	}
	d, ok := a.(core.FeatureDeclarer)
	if !ok {
		return true
	}
	return len(s.missing(d.Features())) == 0
}

// declaredFor reports whether the scenario is declared for the named
// protocol, whatever features it requires.
func (s *Scenario) declaredFor(protocol string) bool {
	return slices.Contains(s.Protocols, "*") || slices.Contains(s.Protocols, protocol)
}

// missing returns the features the scenario requires that are not in
// features.
func (s *Scenario) missing(features []core.Feature) []core.Feature {
	var out []core.Feature
	for _, f := range s.Requires {
		if !slices.Contains(features, f) {
			out = append(out, f)
		}
	}
	return out
}

// NameFor returns the name of the scenario's result for the named
// protocol: the scenario's own name, or, for a case expanded over adapters,
// the name with the protocol in place of AnyProtocol.
func (s *Scenario) NameFor(protocol string) string {
	if rest, ok := strings.CutPrefix(s.Name, AnyProtocol+"/"); ok {
		return protocol + "/" + rest
	}
	return s.Name
}

// ForAnyProtocol reports whether the scenario is declared once under
// AnyProtocol (header "protocols:") and expanded over the adapters it
// applies to.
func (s *Scenario) ForAnyProtocol() bool { return strings.HasPrefix(s.Name, AnyProtocol+"/") }
