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
	"want/decode-error.json":  true,
	"want/limit-calls.json":   true,
	"want/request.json":       true,
}

// bodySections are the sections that hold provider bytes.
var bodySections = []string{"response.sse", "response.json", "response.ndjson", "response.b64"}

// Parse parses one scenario. name is its path-like name
// (protocol/category/case) and file the path used in messages. Cassette
// references are resolved with resolve, which may be nil when the scenario
// holds no reference.
func Parse(name, file string, data []byte, resolve CassetteResolver) (*Scenario, error) {
	p := &parser{file: file, resolve: resolve, headers: map[string]int{}, sections: map[string][]byte{}, lines: map[string]int{}}
	if err := p.parseName(name); err != nil {
		return nil, err
	}
	if err := p.split(data); err != nil {
		return nil, err
	}
	sc := &Scenario{Name: name, File: file}
	for _, step := range []func(*Scenario) error{
		p.parseHeader,
		p.checkHeader,
		p.checkSections,
		p.parseInputs,
		p.parseBody,
		p.parseWants,
		p.checkKind,
	} {
		if err := step(sc); err != nil {
			return nil, err
		}
	}
	return sc, nil
}

// parser holds one scenario file while Parse reads it.
type parser struct {
	file    string
	resolve CassetteResolver
	// protocol is the first segment of the scenario's name.
	protocol string
	// comment is the txtar comment: header lines and prose.
	comment string
	// headers maps each header key to its line.
	headers map[string]int
	// names lists the sections in file order and markers the line of
	// each one's marker; sections maps a section to its data and lines to
	// its marker's line (the first, for a repeated one).
	names    []string
	markers  []int
	sections map[string][]byte
	lines    map[string]int
}

// errorf returns a *ParseError at line (0 for the whole file).
func (p *parser) errorf(line int, format string, args ...any) error {
	return &ParseError{File: p.file, Line: line, Err: fmt.Errorf(format, args...)}
}

// parseName checks that name is protocol/category/case.
func (p *parser) parseName(name string) error {
	segs := strings.Split(name, "/")
	if len(segs) != 3 {
		return p.errorf(0, "%w: name %q is not protocol/category/case", ErrBadScenario, name)
	}
	for _, s := range segs {
		if !nameSeg.MatchString(s) {
			return p.errorf(0, "%w: name segment %q of %q has characters other than letters, digits, '.', '_' and '-'", ErrBadScenario, s, name)
		}
	}
	p.protocol = segs[0]
	return nil
}

// split reads the txtar archive into the comment and the sections.
func (p *parser) split(data []byte) error {
	// The txtar parser slices out of range (and panics) on the line
	// "-- --", whose marker prefix and suffix overlap; refuse it first.
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSuffix(line, "\r") == "-- --" {
			return p.errorf(i+1, "%w: section marker %q names no section", ErrBadScenario, "-- --")
		}
	}
	arch := txtar.Parse(data)
	p.comment = string(arch.Comment)
	p.markers = sectionLines(data)
	for i, f := range arch.Files {
		p.names = append(p.names, f.Name)
		if _, dup := p.sections[f.Name]; !dup {
			p.sections[f.Name] = f.Data
			p.lines[f.Name] = p.markers[i]
		}
	}
	return nil
}

// parseHeader reads the "key: value" lines of the comment into sc, and
// the rest into sc.Comment.
func (p *parser) parseHeader(sc *Scenario) error {
	var prose []string
	for i, line := range strings.Split(strings.TrimRight(p.comment, "\n"), "\n") {
		lineNo := i + 1
		m := headerLine.FindStringSubmatch(line)
		if m == nil {
			prose = append(prose, line)
			continue
		}
		key, val := m[1], strings.TrimSpace(m[2])
		if prev, dup := p.headers[key]; dup {
			return p.errorf(lineNo, "%w: header %q repeated (first on line %d)", ErrBadScenario, key, prev)
		}
		p.headers[key] = lineNo
		if err := parseHeaderValue(sc, key, val); err != nil {
			return p.errorf(lineNo, "%w", err)
		}
	}
	sc.Comment = strings.TrimSpace(strings.Join(prose, "\n"))
	return nil
}

// parseHeaderValue sets the field of sc that header key names.
func parseHeaderValue(sc *Scenario, key, val string) error {
	switch key {
	case "severity":
		switch Severity(val) {
		case MUST, SHOULD, INFO:
			sc.Severity = Severity(val)
			return nil
		}
		return fmt.Errorf("%w: severity %q is not MUST, SHOULD or INFO", ErrBadScenario, val)
	case "guards":
		for _, g := range strings.Fields(val) {
			if !guardID.MatchString(g) {
				return fmt.Errorf("%w: guard %q is not a failure-mode id such as A05", ErrBadScenario, g)
			}
			sc.Guards = append(sc.Guards, g)
		}
	case "protocol":
		if strings.ContainsAny(val, " *") || val == "" {
			return fmt.Errorf("%w: protocol %q must be one protocol name; use protocols: for lists and *", ErrBadScenario, val)
		}
		sc.Protocols = []string{val}
	case "protocols":
		sc.Protocols = strings.Fields(val)
		if len(sc.Protocols) == 0 {
			return fmt.Errorf("%w: protocols is empty", ErrBadScenario)
		}
		if slices.Contains(sc.Protocols, "*") && len(sc.Protocols) > 1 {
			return fmt.Errorf("%w: protocols mixes * with names", ErrBadScenario)
		}
	case "kind":
		switch Kind(val) {
		case KindStream, KindResponse, KindRequest, KindHistory:
			sc.Kind = Kind(val)
			return nil
		}
		return fmt.Errorf("%w: kind %q is not stream, response, request or history", ErrBadScenario, val)
	case "requires":
		return parseRequires(sc, val)
	case "source":
		sc.Source = val
	case "cassette":
		sc.Cassette = val
	default:
		return fmt.Errorf("%w: unknown header key %q (known: severity, guards, protocol, protocols, requires, kind, source, cassette)", ErrBadScenario, key)
	}
	return nil
}

// parseRequires reads the features of a "requires:" header.
func parseRequires(sc *Scenario, val string) error {
	for _, name := range strings.Fields(val) {
		f, err := core.ParseFeature(name)
		if err != nil {
			return fmt.Errorf("%w: requires: %v", ErrBadScenario, err)
		}
		if slices.Contains(sc.Requires, f) {
			return fmt.Errorf("%w: requires: %q listed twice", ErrBadScenario, name)
		}
		sc.Requires = append(sc.Requires, f)
	}
	if len(sc.Requires) == 0 {
		return fmt.Errorf("%w: requires is empty", ErrBadScenario)
	}
	return nil
}

// checkHeader checks that the required headers are there and agree with
// the first segment of the scenario's name.
func (p *parser) checkHeader(sc *Scenario) error {
	protocol := p.protocol
	for _, key := range []string{"severity", "kind"} {
		if _, ok := p.headers[key]; !ok {
			return p.errorf(0, "%w: missing header %q", ErrBadScenario, key)
		}
	}
	if _, ok := p.headers["guards"]; !ok {
		return p.errorf(0, "%w: missing header \"guards\" (it may be empty for a recorded case)", ErrBadScenario)
	}
	_, hasOne := p.headers["protocol"]
	_, hasMany := p.headers["protocols"]
	switch {
	case hasOne && hasMany:
		return p.errorf(p.headers["protocols"], "%w: both protocol and protocols given", ErrBadScenario)
	case !hasOne && !hasMany:
		return p.errorf(0, "%w: missing header \"protocol\" or \"protocols\"", ErrBadScenario)
	case hasOne && protocol != sc.Protocols[0]:
		return p.errorf(p.headers["protocol"], "%w: protocol %q does not match the name's first segment %q", ErrBadScenario, sc.Protocols[0], protocol)
	case hasMany && protocol != AnyProtocol:
		return p.errorf(p.headers["protocols"], "%w: a case with protocols: must live under %q, not %q", ErrBadScenario, AnyProtocol, protocol)
	case hasOne && len(sc.Requires) > 0:
		return p.errorf(p.headers["requires"], "%w: requires: is for a case declared for several protocols, not for a %s case", ErrBadScenario, sc.Protocols[0])
	}
	if sc.Comment == "" {
		return p.errorf(0, "%w: the comment must say what the case checks", ErrBadScenario)
	}
	return nil
}

// checkSections refuses unknown and repeated sections.
func (p *parser) checkSections(*Scenario) error {
	seen := map[string]bool{}
	for i, name := range p.names {
		line := p.markers[i]
		if !knownSections[name] {
			return p.errorf(line, "%w: unknown section %q", ErrBadScenario, name)
		}
		if seen[name] {
			return p.errorf(line, "%w: section %q repeated", ErrBadScenario, name)
		}
		seen[name] = true
	}
	return nil
}

// decodeJSON decodes section into v, refusing unknown fields and trailing
// data.
func (p *parser) decodeJSON(section string, v any) error {
	d := json.NewDecoder(bytes.NewReader(p.sections[section]))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return p.errorf(p.lines[section], "section %s: %w", section, jsonErr(p.sections[section], err))
	}
	if d.More() {
		return p.errorf(p.lines[section], "section %s: trailing data after the JSON value", section)
	}
	return nil
}

// parseInputs reads the canonical inputs: tools.json, request.json,
// events.json and canonical-response.json.
func (p *parser) parseInputs(sc *Scenario) error {
	if _, ok := p.sections["tools.json"]; ok {
		if err := p.decodeJSON("tools.json", &sc.Tools); err != nil {
			return err
		}
	}
	if _, ok := p.sections["request.json"]; ok {
		sc.Request = new(core.Request)
		if err := p.decodeJSON("request.json", sc.Request); err != nil {
			return err
		}
		if len(sc.Request.Tools) == 0 {
			sc.Request.Tools = sc.Tools
		}
	}
	if _, ok := p.sections["events.json"]; ok {
		if err := p.decodeJSON("events.json", &sc.Events); err != nil {
			return err
		}
	}
	if _, ok := p.sections["canonical-response.json"]; ok {
		sc.Response = new(core.Response)
		if err := p.decodeJSON("canonical-response.json", sc.Response); err != nil {
			return err
		}
	}
	return nil
}

// parseBody reads the provider bytes from the one response section or the
// cassette reference.
func (p *parser) parseBody(sc *Scenario) error {
	var bodies []string
	for _, s := range bodySections {
		if _, ok := p.sections[s]; ok {
			bodies = append(bodies, s)
		}
	}
	if len(bodies) > 1 {
		return p.errorf(p.lines[bodies[1]], "%w: more than one response section (%s)", ErrBadScenario, strings.Join(bodies, ", "))
	}
	if len(bodies) == 1 {
		sc.BodySection = bodies[0]
		sc.Body = p.sections[bodies[0]]
		if bodies[0] == "response.b64" {
			raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(sc.Body)), ""))
			if err != nil {
				return p.errorf(p.lines["response.b64"], "section response.b64: %w", err)
			}
			sc.Body = raw
		}
	}
	if sc.Cassette == "" {
		return nil
	}
	line := p.headers["cassette"]
	if sc.Body != nil {
		return p.errorf(line, "%w: cassette reference and section %s both give the response", ErrBadScenario, sc.BodySection)
	}
	if p.resolve == nil {
		return p.errorf(line, "resolve cassette %q: no cassette resolver given", sc.Cassette)
	}
	body, err := p.resolve(sc.Cassette)
	if err != nil {
		return p.errorf(line, "resolve cassette: %w", err)
	}
	if len(body) > MaxScenarioSize {
		return p.errorf(line, "resolve cassette %s: %w: %d bytes, limit %d", sc.Cassette, ErrTooLarge, len(body), MaxScenarioSize)
	}
	sc.Body, sc.BodySection = body, "cassette"
	return nil
}

// parseWants reads the want/ sections into sc.Want.
func (p *parser) parseWants(sc *Scenario) error {
	for _, w := range []struct {
		section string
		parse   func(b []byte, w *Want) error
	}{
		{"want/calls.json", func(b []byte, w *Want) error {
			return inSection("want/calls.json", decodeCalls(b, &w.Calls, true))
		}},
		{"want/incomplete.json", func(b []byte, w *Want) error {
			return inSection("want/incomplete.json", decodeCalls(b, &w.Incomplete, false))
		}},
		{"want/limit-calls.json", func(b []byte, w *Want) error {
			return inSection("want/limit-calls.json", decodeCalls(b, &w.LimitCalls, true))
		}},
		{"want/text.txt", parseWantText},
		{"want/finish.txt", parseWantFinish},
		{"want/error.txt", parseWantError},
		{"want/decode-error.json", parseWantDecodeError},
		{"want/request.json", parseWantRequest},
	} {
		if b, ok := p.sections[w.section]; ok {
			if err := w.parse(b, &sc.Want); err != nil {
				return p.errorf(p.lines[w.section], "%w", err)
			}
		}
	}
	return nil
}

// inSection prefixes a non-nil err with the section it concerns.
func inSection(section string, err error) error {
	if err != nil {
		return fmt.Errorf("section %s: %w", section, err)
	}
	return nil
}

func parseWantText(b []byte, w *Want) error {
	s := strings.TrimSuffix(string(b), "\n")
	w.Text = &s
	return nil
}

func parseWantFinish(b []byte, w *Want) error {
	f := strings.Fields(string(b))
	if len(f) < 1 || len(f) > 2 {
		return fmt.Errorf("%w: want/finish.txt must hold a finish reason and optionally the provider's value", ErrBadScenario)
	}
	w.Finish = &Finish{Reason: core.FinishReason(f[0])}
	if len(f) == 2 {
		w.Finish.Provider = f[1]
	}
	return nil
}

func parseWantError(b []byte, w *Want) error {
	re, err := regexp.Compile(strings.TrimSpace(string(b)))
	if err != nil {
		return inSection("want/error.txt", err)
	}
	// A pattern that matches the empty string matches every error, so the
	// case would pass on any failure at all.
	if re.MatchString("") {
		return fmt.Errorf("%w: section want/error.txt: %q matches every error; name the rule, call or place", ErrBadScenario, re.String())
	}
	w.Error = re
	return nil
}

func parseWantDecodeError(b []byte, w *Want) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	var r ByteRange
	if err := d.Decode(&r); err != nil {
		return inSection("want/decode-error.json", jsonErr(b, err))
	}
	if r.From < 0 || r.To < r.From {
		return fmt.Errorf("%w: section want/decode-error.json: from %d, to %d is no range of byte offsets", ErrBadScenario, r.From, r.To)
	}
	if w.Error != nil {
		return fmt.Errorf("%w: want/error.txt and want/decode-error.json both given; the decode error's kind and place are its want", ErrBadScenario)
	}
	w.DecodeError = &r
	return nil
}

func parseWantRequest(b []byte, w *Want) error {
	if err := json.Unmarshal(b, &w.Request); err != nil {
		return inSection("want/request.json", jsonErr(b, err))
	}
	// Only the top-level keys the want names are compared, so an empty
	// object would compare nothing.
	if m, ok := w.Request.(map[string]any); !ok || len(m) == 0 {
		return fmt.Errorf("%w: section want/request.json must be an object naming at least one top-level key (only those are compared)", ErrBadScenario)
	}
	return nil
}

// checkKind checks that sc holds what its kind needs.
func (p *parser) checkKind(sc *Scenario) error {
	need := func(cond bool, format string) error {
		if cond {
			return nil
		}
		return p.errorf(0, "%w: kind %s: "+format, ErrBadScenario, sc.Kind)
	}
	expanded := sc.ForAnyProtocol()
	switch sc.Kind {
	case KindStream:
		if expanded {
			return need(sc.Events != nil && sc.Body == nil, "a case for every protocol needs events.json and no provider bytes")
		}
		return need(sc.Body != nil, "needs provider bytes (response.* or cassette:)")
	case KindResponse:
		if expanded {
			return need(sc.Response != nil && sc.Body == nil, "a case for every protocol needs canonical-response.json and no provider bytes")
		}
		return need(sc.Body != nil, "needs provider bytes (response.* or cassette:)")
	case KindRequest:
		return need(sc.Request != nil, "needs request.json")
	case KindHistory:
		return need(sc.Request != nil && (sc.Want.Request != nil || sc.Want.Error != nil), "needs request.json and want/request.json or want/error.txt")
	}
	return nil
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
