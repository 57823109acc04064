package publish

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
)

// The kinds of subject a result file grades.
const (
	KindAdapter = "adapter"
	KindClient  = "client"
	KindGateway = "gateway"
)

// The statuses of a Case, one vocabulary over every kind.
const (
	StatusPass          = "pass"
	StatusFail          = "fail"
	StatusKnownFailing  = "known-failing"
	StatusSkip          = "skip"
	StatusNotGraded     = "not-graded"
	StatusNotApplicable = "not-applicable"
	// StatusNotCounted is a pass by failing without a passing control
	// (serve.ApplyControls, gateway.ApplyControls).
	StatusNotCounted = "not-counted"
)

// MaxFile bounds one result file Read accepts.
const MaxFile = 1 << 30

// maxProblemText bounds the text kept of one problem or evidence body.
const maxProblemText = 4 << 10

// A Run is one result file.
type Run struct {
	// File is the path the run was read from.
	File string `json:"file"`
	// Kind is KindAdapter, KindClient or KindGateway.
	Kind string `json:"kind"`
	// Subject names what was graded when the file holds one subject
	// (client and gateway files); an adapter run names each case's.
	Subject string `json:"subject,omitempty"`
	// Provenance is what the file says of the run that wrote it
	// (conform's version and commit, the scenario set, the date, …), key
	// by key, when it says so.
	Provenance map[string]string `json:"provenance,omitempty"`
	Cases      []Case            `json:"cases"`
}

// A Case is one graded case.
type Case struct {
	Subject  string `json:"subject"`
	Protocol string `json:"protocol"`
	// Variant is how the case was run: a chaos variant of a client run,
	// "stream" or "whole" for a gateway, empty for an adapter.
	Variant  string `json:"variant,omitempty"`
	Name     string `json:"name"`
	Severity string `json:"severity,omitempty"`
	Status   string `json:"status"`
	// Counted is whether a failure fails the run (a SHOULD failure
	// outside strict mode does not).
	Counted bool `json:"counted,omitempty"`
	// Modes are the failure-mode ids the case guards or its problems name.
	Modes []string `json:"modes,omitempty"`
	// Cause is the failure reduced to its cause, when it was.
	Cause    string   `json:"cause,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	Problems []string `json:"problems,omitempty"`
	// Evidence quotes the bytes the failure was read from.
	Evidence []string `json:"evidence,omitempty"`
}

// Read reads one result file of any kind. subject names the subject of a
// client or gateway file; empty, it is the file's name without its
// extension.
func Read(path string, data []byte, subject string) (*Run, error) {
	if len(data) > MaxFile {
		return nil, fmt.Errorf("%s: longer than %d bytes", path, MaxFile)
	}
	if subject == "" {
		subject = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	run := &Run{File: path}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	var err error
	switch {
	case len(trimmed) == 0:
		return nil, fmt.Errorf("%s: empty", path)
	case trimmed[0] == '[':
		run.Kind, run.Subject = KindGateway, subject
		err = readGatewayResults(run, data)
	default:
		err = readObject(run, data, subject)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(run.Cases) == 0 {
		return nil, fmt.Errorf("%s: no results", path)
	}
	for i := range run.Cases {
		run.Cases[i].named()
	}
	return run, nil
}

// readObject reads conform run's report, a gateway report written as an
// object, or run --client's JSON lines.
func readObject(run *Run, data []byte, subject string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var first map[string]json.RawMessage
	if err := dec.Decode(&first); err != nil {
		return offsetError(data, err)
	}
	more := dec.More()
	if _, ok := first["coverage"]; ok && !more {
		run.Kind = KindAdapter
		return readAdapterReport(run, first)
	}
	if raw, ok := first["results"]; ok && !more {
		run.Kind, run.Subject = KindGateway, subject
		run.Provenance = provenance(first)
		return readGatewayResults(run, raw)
	}
	run.Kind, run.Subject = KindClient, subject
	return readClientLines(run, data)
}

type problem struct {
	Rule    string   `json:"rule"`
	Guards  []string `json:"guards"`
	Message string   `json:"message"`
	Diff    string   `json:"diff"`
}

func (p problem) text() string {
	s := p.Message
	if p.Rule != "" {
		s = p.Rule + ": " + s
	}
	if p.Diff != "" {
		s += "\n" + p.Diff
	}
	return cut(s)
}

// reduction is the part of a reduce.Result the site shows.
type reduction struct {
	Causes []struct {
		Has     string `json:"has"`
		Becomes string `json:"becomes"`
	} `json:"causes"`
	Cause string `json:"cause"`
}

// cause is the reduction's cause line, in the words reduce.Result.Cause
// uses, or its own line when the file carries one.
func (r *reduction) cause() string {
	if r == nil {
		return ""
	}
	if r.Cause != "" {
		return r.Cause
	}
	if len(r.Causes) == 0 {
		return "not found"
	}
	var has, with []string
	for _, c := range r.Causes {
		has = append(has, c.Has)
		with = append(with, c.Becomes)
	}
	return "fails on " + strings.Join(has, " together with ") + "; passes with " + strings.Join(with, ", or with ")
}

func readAdapterReport(run *Run, obj map[string]json.RawMessage) error {
	run.Provenance = provenance(obj)
	var results []struct {
		Name      string     `json:"name"`
		Adapter   string     `json:"adapter"`
		Severity  string     `json:"severity"`
		Status    string     `json:"status"`
		Counted   *bool      `json:"counted"`
		Reason    string     `json:"reason"`
		Guards    []string   `json:"guards"`
		Problems  []problem  `json:"problems"`
		Reduction *reduction `json:"reduction"`
	}
	if err := json.Unmarshal(obj["results"], &results); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	var coverage []struct {
		Adapter  string `json:"adapter"`
		Protocol string `json:"protocol"`
	}
	if err := json.Unmarshal(obj["coverage"], &coverage); err != nil {
		return fmt.Errorf("coverage: %w", err)
	}
	protocol := map[string]string{}
	for _, c := range coverage {
		protocol[c.Adapter] = c.Protocol
	}
	for i, r := range results {
		if r.Name == "" || r.Adapter == "" || r.Status == "" {
			return fmt.Errorf("results[%d]: want a name, an adapter and a status", i)
		}
		c := Case{
			Subject: r.Adapter, Protocol: protocol[r.Adapter], Name: r.Name, Severity: r.Severity,
			Status: r.Status, Reason: r.Reason, Modes: modes(r.Guards, r.Problems), Cause: r.Reduction.cause(),
		}
		if c.Protocol == "" {
			c.Protocol, _, _ = strings.Cut(r.Name, "/")
		}
		c.Counted = r.Status == StatusFail && (r.Counted == nil || *r.Counted)
		for _, p := range r.Problems {
			c.Problems = append(c.Problems, p.text())
		}
		run.Cases = append(run.Cases, c)
	}
	return nil
}

// named adds the failure-mode id a case's own name starts with
// ("A05-round-robin-interleaving").
func (c *Case) named() {
	last := c.Name[strings.LastIndex(c.Name, "/")+1:]
	if len(last) >= 3 && isModeID(last[:3]) && (len(last) == 3 || !isWordByte(last[3])) && !slices.Contains(c.Modes, last[:3]) {
		c.Modes = append([]string{last[:3]}, c.Modes...)
	}
}

func readGatewayResults(run *Run, data []byte) error {
	var results []struct {
		Name     string    `json:"name"`
		Scenario string    `json:"scenario"`
		Front    string    `json:"front"`
		Upstream string    `json:"upstream"`
		Stream   bool      `json:"stream"`
		Severity string    `json:"severity"`
		Status   string    `json:"status"`
		Counted  *bool     `json:"counted"`
		Problems []problem `json:"problems"`
		Reason   string    `json:"reason"`
		Evidence []struct {
			What  string `json:"what"`
			Bytes string `json:"bytes"`
		} `json:"evidence"`
		Reduction *reduction `json:"reduction"`
	}
	if err := json.Unmarshal(data, &results); err != nil {
		return offsetError(data, err)
	}
	for i, r := range results {
		if r.Name == "" || r.Front == "" || r.Status == "" {
			return fmt.Errorf("[%d]: want a name, a front and a status", i)
		}
		variant := "whole"
		if r.Stream {
			variant = "stream"
		}
		c := Case{
			Subject: run.Subject, Protocol: r.Front + ">" + r.Upstream, Variant: variant, Name: r.Name,
			Severity: r.Severity, Status: status(r.Status), Reason: r.Reason, Modes: modes(nil, r.Problems),
			Cause: r.Reduction.cause(),
		}
		if r.Counted != nil {
			c.Counted = *r.Counted
		} else {
			c.Counted = c.Status == StatusFail && (r.Severity == "MUST" || r.Severity == "")
		}
		for _, p := range r.Problems {
			c.Problems = append(c.Problems, p.text())
		}
		for _, e := range r.Evidence {
			c.Evidence = append(c.Evidence, cut(e.What+": "+e.Bytes))
		}
		run.Cases = append(run.Cases, c)
	}
	return nil
}

func readClientLines(run *Run, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	for n := 1; ; n++ {
		start := dec.InputOffset()
		var line map[string]json.RawMessage
		if err := dec.Decode(&line); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("line %d: %w", n, offsetError(data, err))
		}
		if _, ok := line["totals"]; ok {
			if p := provenance(line); p != nil {
				run.Provenance = p
			}
			continue
		}
		var r struct {
			Name      string     `json:"name"`
			Scenario  string     `json:"scenario"`
			Protocol  string     `json:"protocol"`
			Chaos     string     `json:"chaos"`
			Severity  string     `json:"severity"`
			Status    string     `json:"status"`
			Counted   *bool      `json:"counted"`
			Reasons   []string   `json:"reasons"`
			Panic     string     `json:"panic"`
			Stderr    string     `json:"stderr"`
			Reduction *reduction `json:"reduction"`
			Guards    []string   `json:"guards"`
		}
		raw, _ := json.Marshal(line)
		if err := json.Unmarshal(raw, &r); err != nil {
			return fmt.Errorf("byte %d: not a client run: %w", start, err)
		}
		if r.Name == "" || r.Status == "" {
			return fmt.Errorf("byte %d: a client run wants a name and a status", start)
		}
		variant := r.Chaos
		if variant == "" {
			variant = "none"
		}
		c := Case{
			Subject: run.Subject, Protocol: r.Protocol, Variant: variant, Name: r.Scenario, Severity: r.Severity,
			Status: status(r.Status), Cause: r.Reduction.cause(), Modes: modes(r.Guards, nil),
		}
		if c.Name == "" {
			c.Name = r.Name
		}
		if c.Protocol == "" {
			c.Protocol, _, _ = strings.Cut(c.Name, "/")
		}
		if r.Counted != nil {
			c.Counted = *r.Counted
		} else {
			c.Counted = c.Status == StatusFail
		}
		for _, s := range r.Reasons {
			c.Problems = append(c.Problems, cut(s))
			c.Modes = appendModes(c.Modes, s)
		}
		if r.Panic != "" {
			c.Evidence = append(c.Evidence, cut("crash: "+r.Panic))
		}
		run.Cases = append(run.Cases, c)
	}
}

// status maps a gateway's or client's status words to the Case vocabulary.
func status(s string) string {
	switch s {
	case "not applicable", "n/a":
		return StatusNotApplicable
	case "not counted":
		return StatusNotCounted
	}
	return s
}

// provenance reads an object's "provenance" member, each value as its
// text, when there is one.
func provenance(obj map[string]json.RawMessage) map[string]string {
	raw, ok := obj["provenance"]
	if !ok {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	out := map[string]string{}
	for k, v := range m {
		switch v := v.(type) {
		case string:
			out[k] = v
		case nil:
		default:
			b, _ := json.Marshal(v)
			out[k] = string(b)
		}
	}
	return out
}

// modes gathers failure-mode ids from a case's guards and the rules of its
// problems, in order, once each.
func modes(guards []string, problems []problem) []string {
	var out []string
	for _, g := range guards {
		out = appendModes(out, g)
	}
	for _, p := range problems {
		out = appendModes(out, p.Rule)
		for _, g := range p.Guards {
			out = appendModes(out, g)
		}
	}
	return out
}

// appendModes appends the failure-mode ids (a capital letter and two
// digits, in brackets or alone) that s names.
func appendModes(out []string, s string) []string {
	for i := 0; i+3 <= len(s); i++ {
		id := s[i : i+3]
		if !isModeID(id) || i > 0 && isWordByte(s[i-1]) || i+3 < len(s) && isWordByte(s[i+3]) {
			continue
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

func isModeID(s string) bool {
	return len(s) == 3 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= '0' && s[1] <= '9' && s[2] >= '0' && s[2] <= '9'
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
}

// cut bounds a text the site keeps.
func cut(s string) string {
	if len(s) <= maxProblemText {
		return s
	}
	i := maxProblemText
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + fmt.Sprintf(" … (%d bytes more)", len(s)-i)
}

// offsetError adds the byte offset to a JSON syntax error.
func offsetError(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("byte %d: %w", se.Offset, err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("byte %d: the JSON ends early: %w", len(data), err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("byte %d: %s: %w", te.Offset, te.Field, err)
	}
	return err
}
