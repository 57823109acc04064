package scenarios

import (
	"io"
	"slices"
	"strings"

	"github.com/toolconform/conform/core"
)

// Subject is an adapter under grading: an implementation of some or all of
// core.Adapter's operations, graded as an adapter of one protocol and
// reported under its own label. It is how the engine meets an adapter from
// elsewhere (a Go value, a subprocess):
//
//   - its Name is the protocol, which selects and names the cases; the
//     implementation's own name is only the label;
//   - it declares the protocol's features, so that a case the protocol
//     supports cannot be skipped by refusing it;
//   - an operation the implementation lacks (it has no such method, or says
//     so with core.Implementer) fails with core.NotImplementedError, and a
//     case that needs it is not graded.
type Subject struct {
	impl     any
	protocol string
	features []core.Feature
	label    string
}

var (
	_ core.FeatureDeclarer = (*Subject)(nil)
	_ core.Implementer     = (*Subject)(nil)
)

// NewSubject returns impl graded as an adapter of protocol, whose features
// are features, under label. impl is a core.Adapter or any value with some
// of its methods (a core.StreamDecoder, say).
func NewSubject(impl any, protocol string, features []core.Feature, label string) *Subject {
	return &Subject{impl: impl, protocol: protocol, features: slices.Clone(features), label: label}
}

// Name returns the protocol.
func (s *Subject) Name() string { return s.protocol }

// Label returns the name results are reported under.
func (s *Subject) Label() string { return s.label }

// Features returns the protocol's features.
func (s *Subject) Features() []core.Feature { return slices.Clone(s.features) }

// Implements reports whether the implementation implements op.
func (s *Subject) Implements(op core.Operation) bool { return core.Implements(s.impl, op) }

// Unwrap returns the implementation.
func (s *Subject) Unwrap() any { return s.impl }

func (s *Subject) lacks(op core.Operation) error {
	if s.Implements(op) {
		return nil
	}
	return &core.NotImplementedError{Op: op}
}

// EncodeRequest calls the implementation's EncodeRequest.
func (s *Subject) EncodeRequest(req *core.Request) ([]byte, error) {
	if err := s.lacks(core.OpEncodeRequest); err != nil {
		return nil, err
	}
	return s.impl.(core.RequestEncoder).EncodeRequest(req)
}

// DecodeRequest calls the implementation's DecodeRequest.
func (s *Subject) DecodeRequest(body []byte) (*core.Request, error) {
	if err := s.lacks(core.OpDecodeRequest); err != nil {
		return nil, err
	}
	return s.impl.(core.RequestDecoder).DecodeRequest(body)
}

// EncodeResponse calls the implementation's EncodeResponse.
func (s *Subject) EncodeResponse(resp *core.Response) ([]byte, error) {
	if err := s.lacks(core.OpEncodeResponse); err != nil {
		return nil, err
	}
	return s.impl.(core.ResponseEncoder).EncodeResponse(resp)
}

// DecodeResponse calls the implementation's DecodeResponse.
func (s *Subject) DecodeResponse(body []byte) (*core.Response, error) {
	if err := s.lacks(core.OpDecodeResponse); err != nil {
		return nil, err
	}
	return s.impl.(core.ResponseDecoder).DecodeResponse(body)
}

// DecodeStream calls the implementation's DecodeStream.
func (s *Subject) DecodeStream(r io.Reader) core.EventStream {
	if err := s.lacks(core.OpDecodeStream); err != nil {
		return failedStream{err}
	}
	return s.impl.(core.StreamDecoder).DecodeStream(r)
}

// EncodeStream calls the implementation's EncodeStream.
func (s *Subject) EncodeStream(w io.Writer, events []core.Event) error {
	if err := s.lacks(core.OpEncodeStream); err != nil {
		return err
	}
	return s.impl.(core.StreamEncoder).EncodeStream(w, events)
}

type failedStream struct{ err error }

func (f failedStream) Next() (core.Event, error) { return core.Event{}, f.err }

// needs returns the operations a case needs of an adapter.
func (s *Scenario) needs() []core.Operation {
	switch s.Kind {
	case KindStream:
		if s.Body == nil {
			return []core.Operation{core.OpEncodeStream, core.OpDecodeStream}
		}
		return []core.Operation{core.OpDecodeStream}
	case KindResponse:
		if s.Body == nil {
			return []core.Operation{core.OpEncodeResponse, core.OpDecodeResponse}
		}
		return []core.Operation{core.OpDecodeResponse}
	case KindRequest:
		return []core.Operation{core.OpEncodeRequest, core.OpDecodeRequest}
	case KindHistory:
		return []core.Operation{core.OpEncodeRequest}
	}
	return nil
}

// NotApplicable tallies, by reason, the cases declared for a's protocol
// that do not apply to it because the protocol lacks a feature they
// require ("the protocol has no named-tool-choice").
func NotApplicable(a core.Adapter, cases []*Scenario) map[string]int {
	out := map[string]int{}
	var features []core.Feature
	if d, ok := a.(core.FeatureDeclarer); ok {
		features = d.Features()
	}
	for _, sc := range cases {
		if !sc.declaredFor(a.Name()) || sc.Applies(a) {
			continue
		}
		var missing []string
		for _, f := range sc.missing(features) {
			missing = append(missing, string(f))
		}
		out["the protocol has no "+strings.Join(missing, ", no ")]++
	}
	return out
}
