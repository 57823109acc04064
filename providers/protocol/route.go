package protocol

import (
	"slices"
	"strings"
)

// Route is what a request path says about the protocol it speaks.
type Route struct {
	// Protocols lists the protocols served at the path, in name order
	// (Mistral and OpenAI Chat Completions share theirs).
	Protocols []string
	// Model is the model id taken from the path (Gemini, Bedrock), or "".
	Model string
	// ByPath reports that the path itself chooses streaming or not, and
	// Stream which.
	ByPath bool
	Stream bool
	// Prefix is the part of the path before the protocol's own path, such
	// as "/openai" in "/openai/v1/chat/completions".
	Prefix string
}

// MatchPath returns the route of a request path (unescaped, without the
// query) among the endpoints. Paths match by suffix, so any prefix a
// gateway or SDK puts in front is allowed; the longest matching suffix of
// Routes wins. A Path holding "{model}" matches a path ending with its
// part after "{model}" whose model segment follows the last segment
// before it ("/models/"); an API version segment before that ("v1",
// "v1beta") is not counted in Prefix.
func MatchPath(endpoints []Endpoint, path string) (Route, bool) {
	best := ""
	var protocols []string
	for _, e := range endpoints {
		for _, s := range e.Routes {
			if !strings.HasSuffix(path, s) || len(s) < len(best) {
				continue
			}
			if len(s) > len(best) {
				best, protocols = s, nil
			}
			protocols = append(protocols, e.Protocol)
		}
	}
	if best != "" {
		slices.Sort(protocols)
		return Route{Protocols: protocols, Prefix: strings.TrimSuffix(path, best)}, true
	}
	for _, e := range endpoints {
		for _, p := range []struct {
			pattern string
			stream  bool
		}{{e.Path, false}, {e.StreamPath, true}} {
			if r, ok, matched := matchModelPath(p.pattern, path); matched {
				if !ok {
					return Route{}, false
				}
				r.Protocols, r.ByPath, r.Stream = []string{e.Protocol}, true, p.stream
				return r, true
			}
		}
	}
	return Route{}, false
}

// matchModelPath matches path against a pattern holding "{model}".
// matched reports that the path ends as the pattern does; ok that its model
// segment is there too.
func matchModelPath(pattern, path string) (r Route, ok, matched bool) {
	before, after, found := strings.Cut(pattern, "{model}")
	if !found || after == "" {
		return Route{}, false, false
	}
	rest, cut := strings.CutSuffix(path, after)
	if !cut {
		return Route{}, false, false
	}
	lead, anchor := "", before
	if i := strings.LastIndex(strings.TrimSuffix(before, "/"), "/"); i > 0 {
		lead, anchor = before[:i], before[i:]
	}
	i := strings.LastIndex(rest, anchor)
	if i < 0 {
		return Route{}, false, true
	}
	model := rest[i+len(anchor):]
	if model == "" || strings.Contains(model, "/") {
		return Route{}, false, true
	}
	prefix := rest[:i]
	if lead != "" {
		// Drop the API version segment (v1, v1beta) from the prefix.
		if j := strings.LastIndex(prefix, "/"); j >= 0 && strings.HasPrefix(prefix[j+1:], "v1") {
			prefix = prefix[:j]
		}
	}
	return Route{Model: model, Prefix: prefix}, true, true
}
