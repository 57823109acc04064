package tools

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/toolconform/conform/core"
)

// ErrDuplicateTool is wrapped by the error of Registry.Add for a name that
// is already registered.
var ErrDuplicateTool = errors.New("duplicate tool name")

// ErrUnknownTool is wrapped by errors about a tool name that is not
// registered.
var ErrUnknownTool = errors.New("unknown tool")

// Registry maps tool names to tools. It is a value: build one with
// NewRegistry, copy it with Clone, take a subset with Narrow. It is safe for
// concurrent use. The zero value is an empty registry ready to use.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]*Tool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{tools: map[string]*Tool{}} }

// Add registers a tool under its Name. A name that is already registered is
// rejected with an error naming both tools' descriptions and origins.
func (r *Registry) Add(t *Tool) error {
	if t == nil {
		return errors.New("registry add: nil tool")
	}
	if t.handler == nil || t.inputCheck == nil {
		return fmt.Errorf("registry add %q: tool not built by NewTool, NewRawTool or FromMCP", t.name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.tools[t.name]; ok {
		return fmt.Errorf("registry add %q: %w: already registered from %s (%s), cannot add the one from %s (%s)",
			t.name, ErrDuplicateTool, old.origin, quoteDescription(old.description), t.origin, quoteDescription(t.description))
	}
	if r.tools == nil {
		r.tools = map[string]*Tool{}
	}
	r.tools[t.name] = t
	return nil
}

// quoteDescription quotes a description for an error message, cut to 60
// bytes on a rune boundary.
func quoteDescription(d string) string {
	if d == "" {
		return "no description"
	}
	if len(d) > 60 {
		cut := 60
		for cut > 0 && !isRuneStart(d[cut]) {
			cut--
		}
		d = d[:cut] + "…"
	}
	return fmt.Sprintf("description %q", d)
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Lookup returns the tool registered under name.
func (r *Registry) Lookup(name string) (*Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// Remove unregisters name and reports whether it was registered.
func (r *Registry) Remove(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.tools[name]
	delete(r.tools, name)
	return ok
}

// Len returns the number of registered tools.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.tools)
}

// Names returns the registered names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Sorted(maps.Keys(r.tools))
}

// All returns the registered tools sorted by name.
func (r *Registry) All() []*Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := slices.Collect(maps.Values(r.tools))
	slices.SortFunc(out, func(a, b *Tool) int { return strings.Compare(a.name, b.name) })
	return out
}

// Specs returns the request form of every tool, sorted by name.
func (r *Registry) Specs() []core.ToolSpec {
	all := r.All()
	specs := make([]core.ToolSpec, len(all))
	for i, t := range all {
		specs[i] = t.Spec()
	}
	return specs
}

// Clone returns an independent registry holding the same tools. Tools are
// immutable, so they are shared.
func (r *Registry) Clone() *Registry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return &Registry{tools: maps.Clone(r.tools)}
}

// Narrow returns a new registry holding only the named tools. A name that is
// not registered is an error listing the known names.
func (r *Registry) Narrow(names ...string) (*Registry, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := &Registry{tools: make(map[string]*Tool, len(names))}
	for _, n := range names {
		t, ok := r.tools[n]
		if !ok {
			return nil, fmt.Errorf("registry narrow: %w", r.unknownLocked(n))
		}
		out.tools[n] = t
	}
	return out, nil
}

// maxKnownInMessage is how many known names an UnknownToolError's message
// lists; the rest are counted.
const maxKnownInMessage = 50

// UnknownToolError reports a name that is not registered, with the known
// names and the closest of them, if any is close (E04). Its message lists at
// most 50 known names.
type UnknownToolError struct {
	Name    string
	Known   []string
	Closest string
}

func (e *UnknownToolError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown tool %q", e.Name)
	if e.Closest != "" {
		fmt.Fprintf(&b, "; did you mean %q?", e.Closest)
	}
	if len(e.Known) == 0 {
		b.WriteString("; no tools are available")
	} else {
		known := e.Known
		if len(known) > maxKnownInMessage {
			known = append(known[:maxKnownInMessage:maxKnownInMessage], fmt.Sprintf("and %d more", len(e.Known)-maxKnownInMessage))
		}
		fmt.Fprintf(&b, "; available tools: %s", strings.Join(known, ", "))
	}
	return b.String()
}

// Unwrap returns ErrUnknownTool.
func (e *UnknownToolError) Unwrap() error { return ErrUnknownTool }

func (r *Registry) unknownLocked(name string) *UnknownToolError {
	known := slices.Sorted(maps.Keys(r.tools))
	return &UnknownToolError{Name: name, Known: known, Closest: closestToolName(name, known)}
}

// closestToolName returns the known name nearest to name by edit distance
// (ignoring case), if it is within half the longer name's length; ties go
// to the first in sorted order.
func closestToolName(name string, known []string) string {
	if len(name) > maxSuggestLen {
		return "" // the distance is quadratic; no real name is this long
	}
	best, bestD := "", -1
	for _, k := range known {
		d := editDistance(strings.ToLower(name), strings.ToLower(k))
		if bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	limit := max(len([]rune(name)), len([]rune(best))) / 2
	if bestD > limit {
		return ""
	}
	return best
}

// maxSuggestLen bounds the names closestToolName compares.
const maxSuggestLen = 256

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
