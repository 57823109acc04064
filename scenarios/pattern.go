package scenarios

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Pattern selects scenarios by name the way go test -run selects subtests:
// a slash-separated list of regular expressions, each matched (unanchored)
// against the name segment at its position. A pattern with fewer segments
// than a name matches on the segments it has.
type Pattern struct {
	text string
	segs []*regexp.Regexp
	// File and Line locate the pattern in a known-failing list; File is
	// empty for a pattern given on the command line.
	File string
	Line int
}

// PatternError is a pattern that does not compile.
type PatternError struct {
	Pattern string
	// Segment is the 0-based index of the faulty segment.
	Segment int
	Err     error
}

func (e *PatternError) Error() string {
	return fmt.Sprintf("compile pattern %q: segment %d: %v", e.Pattern, e.Segment+1, e.Err)
}

func (e *PatternError) Unwrap() error { return e.Err }

// CompilePattern compiles a pattern.
func CompilePattern(s string) (Pattern, error) {
	p := Pattern{text: s}
	if s == "" {
		return p, &PatternError{Pattern: s, Err: errors.New("empty pattern")}
	}
	for i, seg := range strings.Split(s, "/") {
		re, err := regexp.Compile(seg)
		if err != nil {
			return p, &PatternError{Pattern: s, Segment: i, Err: err}
		}
		p.segs = append(p.segs, re)
	}
	return p, nil
}

// MustCompilePattern is CompilePattern for patterns known to be good; it
// panics on a bad one.
func MustCompilePattern(s string) Pattern {
	p, err := CompilePattern(s)
	if err != nil {
		panic(err)
	}
	return p
}

// String returns the pattern's text.
func (p Pattern) String() string { return p.text }

// Where returns "FILE:LINE" for a pattern from a list, else the pattern
// quoted.
func (p Pattern) Where() string {
	if p.File == "" {
		return fmt.Sprintf("pattern %q", p.text)
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// Match reports whether the pattern selects the name.
func (p Pattern) Match(name string) bool {
	segs := strings.Split(name, "/")
	if len(p.segs) > len(segs) || len(p.segs) == 0 {
		return false
	}
	for i, re := range p.segs {
		if !re.MatchString(segs[i]) {
			return false
		}
	}
	return true
}

// MatchesProtocol reports whether the pattern's first segment matches the
// protocol name, that is, whether the pattern can select any scenario of
// that protocol's adapter.
func (p Pattern) MatchesProtocol(protocol string) bool {
	return len(p.segs) > 0 && p.segs[0].MatchString(protocol)
}

// ParsePatternList parses a known-failing list: one pattern per line;
// blank lines and lines starting with # are ignored, and so is anything
// after " #" on a pattern line. file names the list in messages.
func ParsePatternList(file string, data []byte) ([]Pattern, error) {
	var out []Pattern
	var errs []error
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.Index(text, " #"); i >= 0 {
			text = text[:i]
		}
		text = strings.TrimSpace(text)
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		p, err := CompilePattern(text)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", file, line, err))
			continue
		}
		p.File, p.Line = file, line
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read pattern list %s: %w", file, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}
