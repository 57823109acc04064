package scenarios

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"

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
	// Text is want/text.txt without its final newline, when present.
	Text *string
	// Finish is want/finish.txt: the normalised finish reason, optionally
	// followed by the provider's raw value.
	Finish *Finish
	// Error is want/error.txt, a regular expression the error must match.
	Error *regexp.Regexp
	// Request is want/request.json: the encoded request, compared as JSON.
	Request any
}

// Finish is an expected finish reason.
type Finish struct {
	Reason core.FinishReason
	// Provider is the provider's raw value; empty means "not checked".
	Provider string
}

// ParseError is a fault in a scenario file, with the line it is on.
type ParseError struct {
	File string
	// Line is 1-based; 0 means the fault concerns the whole file.
	Line int
	Err  error
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("parse scenario %s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("parse scenario %s: %v", e.File, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// ErrBadScenario is wrapped by every ParseError cause that concerns the
// format itself (unknown keys and sections, missing headers).
var ErrBadScenario = errors.New("bad scenario")

var (
	headerLine = regexp.MustCompile(`^([a-z][a-z-]*):(.*)$`)
	guardID    = regexp.MustCompile(`^[A-I][0-9]{2}$`)
	nameSeg    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// knownSections are the section names a scenario may hold.
var knownSections = map[string]bool{
	"tools.json":              true,
	"request.json":            true,
	"response.sse":            true,
	"response.json":           true,
	"response.ndjson":         true,
	"response.b64":            true,
	"events.json":             true,
	"canonical-response.json": true,
	"want/calls.json":         true,
	"want/text.txt":           true,
	"want/finish.txt":         true,
	"want/incomplete.json":    true,
	"want/error.txt":          true,
	"want/request.json":       true,
}

// bodySections are the sections that hold provider bytes.
var bodySections = []string{"response.sse", "response.json", "response.ndjson", "response.b64"}

// Parse parses one scenario. name is its path-like name
// (protocol/category/case) and file the path used in messages. Cassette
// references are resolved with resolve, which may be nil when the scenario
// holds no reference.
func Parse(name, file string, data []byte, resolve CassetteResolver) (*Scenario, error) {
	perr := func(line int, format string, args ...any) error {
		return &ParseError{File: file, Line: line, Err: fmt.Errorf(format, args...)}
	}
	segs := strings.Split(name, "/")
	if len(segs) != 3 {
		return nil, perr(0, "%w: name %q is not protocol/category/case", ErrBadScenario, name)
	}
	for _, s := range segs {
		if !nameSeg.MatchString(s) {
			return nil, perr(0, "%w: name segment %q of %q has characters other than letters, digits, '.', '_' and '-'", ErrBadScenario, s, name)
		}
	}
	// The txtar parser slices out of range (and panics) on the line
	// "-- --", whose marker prefix and suffix overlap; refuse it first.
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSuffix(line, "\r") == "-- --" {
			return nil, perr(i+1, "%w: section marker %q names no section", ErrBadScenario, "-- --")
		}
	}
	arch := txtar.Parse(data)
	sc := &Scenario{Name: name, File: file}
	lines := sectionLines(data)

	// Header lines and prose.
	seen := map[string]int{}
	var prose []string
	for i, line := range strings.Split(strings.TrimRight(string(arch.Comment), "\n"), "\n") {
		lineNo := i + 1
		m := headerLine.FindStringSubmatch(line)
		if m == nil {
			prose = append(prose, line)
			continue
		}
		key, val := m[1], strings.TrimSpace(m[2])
		if prev, dup := seen[key]; dup {
			return nil, perr(lineNo, "%w: header %q repeated (first on line %d)", ErrBadScenario, key, prev)
		}
		seen[key] = lineNo
		switch key {
		case "severity":
			switch Severity(val) {
			case MUST, SHOULD, INFO:
				sc.Severity = Severity(val)
			default:
				return nil, perr(lineNo, "%w: severity %q is not MUST, SHOULD or INFO", ErrBadScenario, val)
			}
		case "guards":
			for _, g := range strings.Fields(val) {
				if !guardID.MatchString(g) {
					return nil, perr(lineNo, "%w: guard %q is not a failure-mode id such as A05", ErrBadScenario, g)
				}
				sc.Guards = append(sc.Guards, g)
			}
		case "protocol":
			if strings.ContainsAny(val, " *") || val == "" {
				return nil, perr(lineNo, "%w: protocol %q must be one protocol name; use protocols: for lists and *", ErrBadScenario, val)
			}
			sc.Protocols = []string{val}
		case "protocols":
			sc.Protocols = strings.Fields(val)
			if len(sc.Protocols) == 0 {
				return nil, perr(lineNo, "%w: protocols is empty", ErrBadScenario)
			}
			if slices.Contains(sc.Protocols, "*") && len(sc.Protocols) > 1 {
				return nil, perr(lineNo, "%w: protocols mixes * with names", ErrBadScenario)
			}
		case "kind":
			switch Kind(val) {
			case KindStream, KindResponse, KindRequest, KindHistory:
				sc.Kind = Kind(val)
			default:
				return nil, perr(lineNo, "%w: kind %q is not stream, response, request or history", ErrBadScenario, val)
			}
		case "requires":
			for _, name := range strings.Fields(val) {
				f, err := core.ParseFeature(name)
				if err != nil {
					return nil, perr(lineNo, "%w: requires: %v", ErrBadScenario, err)
				}
				if slices.Contains(sc.Requires, f) {
					return nil, perr(lineNo, "%w: requires: %q listed twice", ErrBadScenario, name)
				}
				sc.Requires = append(sc.Requires, f)
			}
			if len(sc.Requires) == 0 {
				return nil, perr(lineNo, "%w: requires is empty", ErrBadScenario)
			}
		case "source":
			sc.Source = val
		case "cassette":
			sc.Cassette = val
		default:
			return nil, perr(lineNo, "%w: unknown header key %q (known: severity, guards, protocol, protocols, requires, kind, source, cassette)", ErrBadScenario, key)
		}
	}
	sc.Comment = strings.TrimSpace(strings.Join(prose, "\n"))
	for _, key := range []string{"severity", "kind"} {
		if _, ok := seen[key]; !ok {
			return nil, perr(0, "%w: missing header %q", ErrBadScenario, key)
		}
	}
	if _, ok := seen["guards"]; !ok {
		return nil, perr(0, "%w: missing header \"guards\" (it may be empty for a recorded case)", ErrBadScenario)
	}
	_, hasOne := seen["protocol"]
	_, hasMany := seen["protocols"]
	switch {
	case hasOne && hasMany:
		return nil, perr(seen["protocols"], "%w: both protocol and protocols given", ErrBadScenario)
	case !hasOne && !hasMany:
		return nil, perr(0, "%w: missing header \"protocol\" or \"protocols\"", ErrBadScenario)
	case hasOne && segs[0] != sc.Protocols[0]:
		return nil, perr(seen["protocol"], "%w: protocol %q does not match the name's first segment %q", ErrBadScenario, sc.Protocols[0], segs[0])
	case hasMany && segs[0] != AnyProtocol:
		return nil, perr(seen["protocols"], "%w: a case with protocols: must live under %q, not %q", ErrBadScenario, AnyProtocol, segs[0])
	case hasOne && len(sc.Requires) > 0:
		return nil, perr(seen["requires"], "%w: requires: is for a case declared for several protocols, not for a %s case", ErrBadScenario, sc.Protocols[0])
	}
	if sc.Comment == "" {
		return nil, perr(0, "%w: the comment must say what the case checks", ErrBadScenario)
	}

	// Sections.
	sections := map[string][]byte{}
	for i, f := range arch.Files {
		line := lines[i]
		if !knownSections[f.Name] {
			return nil, perr(line, "%w: unknown section %q", ErrBadScenario, f.Name)
		}
		if _, dup := sections[f.Name]; dup {
			return nil, perr(line, "%w: section %q repeated", ErrBadScenario, f.Name)
		}
		sections[f.Name] = f.Data
	}
	lineOf := func(section string) int {
		for i, f := range arch.Files {
			if f.Name == section {
				return lines[i]
			}
		}
		return 0
	}
	decode := func(section string, v any) error {
		d := json.NewDecoder(bytes.NewReader(sections[section]))
		d.DisallowUnknownFields()
		if err := d.Decode(v); err != nil {
			return perr(lineOf(section), "section %s: %w", section, jsonErr(sections[section], err))
		}
		if d.More() {
			return perr(lineOf(section), "section %s: trailing data after the JSON value", section)
		}
		return nil
	}
	if _, ok := sections["tools.json"]; ok {
		if err := decode("tools.json", &sc.Tools); err != nil {
			return nil, err
		}
	}
	if _, ok := sections["request.json"]; ok {
		sc.Request = new(core.Request)
		if err := decode("request.json", sc.Request); err != nil {
			return nil, err
		}
		if len(sc.Request.Tools) == 0 {
			sc.Request.Tools = sc.Tools
		}
	}
	if _, ok := sections["events.json"]; ok {
		if err := decode("events.json", &sc.Events); err != nil {
			return nil, err
		}
	}
	if _, ok := sections["canonical-response.json"]; ok {
		sc.Response = new(core.Response)
		if err := decode("canonical-response.json", sc.Response); err != nil {
			return nil, err
		}
	}
	var bodies []string
	for _, s := range bodySections {
		if _, ok := sections[s]; ok {
			bodies = append(bodies, s)
		}
	}
	if len(bodies) > 1 {
		return nil, perr(lineOf(bodies[1]), "%w: more than one response section (%s)", ErrBadScenario, strings.Join(bodies, ", "))
	}
	if len(bodies) == 1 {
		sc.BodySection = bodies[0]
		sc.Body = sections[bodies[0]]
		if bodies[0] == "response.b64" {
			raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(sc.Body)), ""))
			if err != nil {
				return nil, perr(lineOf("response.b64"), "section response.b64: %w", err)
			}
			sc.Body = raw
		}
	}
	if sc.Cassette != "" {
		if sc.Body != nil {
			return nil, perr(seen["cassette"], "%w: cassette reference and section %s both give the response", ErrBadScenario, sc.BodySection)
		}
		if resolve == nil {
			return nil, perr(seen["cassette"], "resolve cassette %q: no cassette resolver given", sc.Cassette)
		}
		body, err := resolve(sc.Cassette)
		if err != nil {
			return nil, perr(seen["cassette"], "resolve cassette: %w", err)
		}
		if len(body) > MaxScenarioSize {
			return nil, perr(seen["cassette"], "resolve cassette %s: %w: %d bytes, limit %d", sc.Cassette, ErrTooLarge, len(body), MaxScenarioSize)
		}
		sc.Body, sc.BodySection = body, "cassette"
	}

	// Wants.
	if _, ok := sections["want/calls.json"]; ok {
		if err := decodeCalls(sections["want/calls.json"], &sc.Want.Calls, true); err != nil {
			return nil, perr(lineOf("want/calls.json"), "section want/calls.json: %w", err)
		}
	}
	if _, ok := sections["want/incomplete.json"]; ok {
		if err := decodeCalls(sections["want/incomplete.json"], &sc.Want.Incomplete, false); err != nil {
			return nil, perr(lineOf("want/incomplete.json"), "section want/incomplete.json: %w", err)
		}
	}
	if b, ok := sections["want/text.txt"]; ok {
		s := strings.TrimSuffix(string(b), "\n")
		sc.Want.Text = &s
	}
	if b, ok := sections["want/finish.txt"]; ok {
		f := strings.Fields(string(b))
		if len(f) < 1 || len(f) > 2 {
			return nil, perr(lineOf("want/finish.txt"), "%w: want/finish.txt must hold a finish reason and optionally the provider's value", ErrBadScenario)
		}
		sc.Want.Finish = &Finish{Reason: core.FinishReason(f[0])}
		if len(f) == 2 {
			sc.Want.Finish.Provider = f[1]
		}
	}
	if b, ok := sections["want/error.txt"]; ok {
		re, err := regexp.Compile(strings.TrimSpace(string(b)))
		if err != nil {
			return nil, perr(lineOf("want/error.txt"), "section want/error.txt: %w", err)
		}
		// A pattern that matches the empty string matches every error, so
		// the case would pass on any failure at all.
		if re.MatchString("") {
			return nil, perr(lineOf("want/error.txt"), "%w: section want/error.txt: %q matches every error; name the rule, call or place", ErrBadScenario, re.String())
		}
		sc.Want.Error = re
	}
	if b, ok := sections["want/request.json"]; ok {
		if err := json.Unmarshal(b, &sc.Want.Request); err != nil {
			return nil, perr(lineOf("want/request.json"), "section want/request.json: %w", jsonErr(b, err))
		}
		// Only the top-level keys the want names are compared, so an empty
		// object would compare nothing.
		if m, ok := sc.Want.Request.(map[string]any); !ok || len(m) == 0 {
			return nil, perr(lineOf("want/request.json"), "%w: section want/request.json must be an object naming at least one top-level key (only those are compared)", ErrBadScenario)
		}
	}

	// What each kind needs.
	canonical := segs[0] == AnyProtocol
	need := func(cond bool, format string, args ...any) error {
		if cond {
			return nil
		}
		return perr(0, "%w: kind %s: "+format, append([]any{ErrBadScenario, sc.Kind}, args...)...)
	}
	var err error
	switch sc.Kind {
	case KindStream:
		if canonical {
			err = need(sc.Events != nil && sc.Body == nil, "a case for every protocol needs events.json and no provider bytes")
		} else {
			err = need(sc.Body != nil, "needs provider bytes (response.* or cassette:)")
		}
	case KindResponse:
		if canonical {
			err = need(sc.Response != nil && sc.Body == nil, "a case for every protocol needs canonical-response.json and no provider bytes")
		} else {
			err = need(sc.Body != nil, "needs provider bytes (response.* or cassette:)")
		}
	case KindRequest:
		err = need(sc.Request != nil, "needs request.json")
	case KindHistory:
		err = need(sc.Request != nil && (sc.Want.Request != nil || sc.Want.Error != nil), "needs request.json and want/request.json or want/error.txt")
	}
	if err != nil {
		return nil, err
	}
	return sc, nil
}

// decodeCalls reads a JSON array of call objects; each must have a name,
// and arguments when needArgs is set.
func decodeCalls(b []byte, dst *[]map[string]any, needArgs bool) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var calls []map[string]any
	if err := d.Decode(&calls); err != nil {
		return jsonErr(b, err)
	}
	if calls == nil {
		calls = []map[string]any{}
	}
	allowed := map[string]bool{"id": true, "item_id": true, "name": true, "arguments": true, "signature": true, "repaired": true, "original": true}
	for i, c := range calls {
		for k := range c {
			if !allowed[k] {
				return fmt.Errorf("%w: [%d].%s is not a call field", ErrBadScenario, i, k)
			}
		}
		if _, ok := c["name"].(string); !ok {
			return fmt.Errorf("%w: [%d].name is missing or not a string", ErrBadScenario, i)
		}
		if _, ok := c["arguments"]; !ok && needArgs {
			return fmt.Errorf("%w: [%d].arguments is missing", ErrBadScenario, i)
		}
	}
	*dst = calls
	return nil
}

// jsonErr adds the byte offset to a JSON syntax error.
func jsonErr(b []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("offset %d: %w", se.Offset, err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("offset %d, field %q: %w", te.Offset, te.Field, err)
	}
	return err
}

// sectionLines returns the 1-based line number of each txtar file marker.
func sectionLines(data []byte) []int {
	var lines []int
	for i, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(strings.TrimRight(line, "\r"), " --") && len(strings.TrimSpace(line)) > 5 {
			lines = append(lines, i+1)
		}
	}
	return lines
}

// String returns the scenario's name.
func (s *Scenario) String() string { return s.Name }

// Applies reports whether the scenario is declared for the named protocol,
// whatever features it requires (see AppliesWith).
func (s *Scenario) Applies(protocol string) bool {
	return slices.Contains(s.Protocols, "*") || slices.Contains(s.Protocols, protocol)
}

// AppliesWith reports whether the scenario runs on the named protocol, whose
// features are features: it is declared for the protocol and the protocol
// has every feature it requires.
func (s *Scenario) AppliesWith(protocol string, features []core.Feature) bool {
	if !s.Applies(protocol) {
		return false
	}
	for _, f := range s.Requires {
		if !slices.Contains(features, f) {
			return false
		}
	}
	return true
}

// AppliesTo reports whether the scenario runs on adapter a: Applies with the
// features a declares (core.FeatureDeclarer). An adapter that declares none
// is offered every case of its protocol.
func (s *Scenario) AppliesTo(a core.Adapter) bool {
	d, ok := a.(core.FeatureDeclarer)
	if !ok {
		return s.Applies(a.Name())
	}
	return s.AppliesWith(a.Name(), d.Features())
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

// Canonical reports whether the scenario is declared once for several
// protocols.
func (s *Scenario) Canonical() bool { return strings.HasPrefix(s.Name, AnyProtocol+"/") }
