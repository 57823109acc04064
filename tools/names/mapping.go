package names

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/toolconform/conform/core"
)

// Mapping maps a set of tool names (qualified ones such as
// "github.create_issue" included) to names one provider accepts, and back.
// It is built from the whole set at once, so it depends on the set and
// never on the order of the names:
//
//   - a name the rules accept maps to itself, always;
//   - any other name maps to its cleaned form (each run of refused bytes
//     becomes '_', a '_' goes before a refused first byte)
//     unless that form is longer than MaxLen, is a valid name of the set,
//     or is the mapped name of an invalid name before it in byte order;
//     then it is cut and given '_' and 8 hex digits of the SHA-256 of the
//     name (and an attempt number, should even that be taken).
//
// Two names of the set never share a mapped name. Adding a name to a set
// can change the mapped name of an invalid one (when the new name is its
// cleaned form), never of a valid one. A Mapping is immutable and safe
// for concurrent use.
type Mapping struct {
	rules core.NameRules
	to    map[string]string
	from  map[string]string
}

// Map builds the mapping of names under rules. A name given twice is an
// error.
func Map(rules core.NameRules, names []string) (*Mapping, error) {
	m := &Mapping{rules: rules, to: make(map[string]string, len(names)), from: make(map[string]string, len(names))}
	var invalid []string
	for _, n := range names {
		if _, dup := m.to[n]; dup {
			return nil, fmt.Errorf("map tool names: %q given twice", n)
		}
		m.to[n] = ""
		if Check(rules, n) == nil {
			m.to[n] = n
			m.from[n] = n
		} else {
			invalid = append(invalid, n)
		}
	}
	slices.Sort(invalid)
	for _, n := range invalid {
		cand := clean(rules, n)
		tooLong := len(cand) > rules.MaxLen
		for attempt := 0; ; attempt++ {
			if _, taken := m.from[cand]; !taken && !tooLong {
				break
			}
			cand = suffixed(rules, n, attempt)
			tooLong = false
		}
		m.to[n] = cand
		m.from[cand] = n
	}
	return m, nil
}

// suffixed cuts the cleaned name so that "_" and 8 hex digits of a hash
// of the attempt number and the name fit in MaxLen.
func suffixed(r core.NameRules, name string, attempt int) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%d\x00%s", attempt, name))
	suf := "_" + hex.EncodeToString(h[:4])
	c := clean(r, name)
	if len(c)+len(suf) > r.MaxLen {
		c = c[:r.MaxLen-len(suf)]
	}
	return c + suf
}

// Rules returns the rules the mapping was built with.
func (m *Mapping) Rules() core.NameRules { return m.rules }

// Name returns the provider name of name, and whether name is in the set.
func (m *Mapping) Name(name string) (string, bool) {
	s, ok := m.to[name]
	return s, ok
}

// Original returns the name that maps to provider, and whether one does.
func (m *Mapping) Original(provider string) (string, bool) {
	o, ok := m.from[provider]
	return o, ok
}

// Renamed returns the names of the set that do not map to themselves,
// sorted.
func (m *Mapping) Renamed() []string {
	var out []string
	for n, s := range m.to {
		if n != s {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}
