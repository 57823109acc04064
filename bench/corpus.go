package bench

import (
	"fmt"
	"strings"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/internal/jsonvalue"
)

// Body is one recorded streamed response body.
type Body struct {
	// Name is the cassette file and the interaction index.
	Name string
	Data []byte
}

// CorpusStreams returns every streamed response body recorded in the
// project's cassettes for protocol, in cassette order: bodies whose
// Content-Type is an event stream (text/event-stream, AWS
// application/vnd.amazon.eventstream, NDJSON), and Gemini
// streamGenerateContent bodies sent without alt=sse, which arrive as one
// JSON array under application/json. The Gemini Interactions recordings
// are those of the "other" folder sent to /interactions.
func CorpusStreams(protocol string) ([]Body, error) {
	folder, urlPart := protocol, ""
	if protocol == GeminiInteractions {
		folder, urlPart = "other", "/interactions"
	}
	names, err := cassettes.Glob(folder)
	if err != nil {
		return nil, fmt.Errorf("corpus streams: %w", err)
	}
	var out []Body
	for _, name := range names {
		c, err := cassettes.Load(name)
		if err != nil {
			return nil, fmt.Errorf("corpus streams: %w", err)
		}
		for i, in := range c.Interactions {
			if in.Response.Body == "" || !isStream(in.Response.Headers, in.Request.URL) || !strings.Contains(in.Request.URL, urlPart) {
				continue
			}
			out = append(out, Body{Name: fmt.Sprintf("%s#%d", name, i), Data: []byte(in.Response.Body)})
		}
	}
	return out, nil
}

// streamTypes are the Content-Type fragments that mark a streamed body.
var streamTypes = []string{"text/event-stream", "application/vnd.amazon.eventstream", "ndjson", "jsonl"}

// isStream reports whether a response is a stream: its headers declare an
// event stream (header names are matched without regard to case, as
// cassettes spell them both ways), or the request went to Gemini's
// streamGenerateContent, whose array form is sent as application/json.
func isStream(h map[string][]string, url string) bool {
	if strings.Contains(url, ":streamGenerateContent") {
		return true
	}
	for k, values := range h {
		if !strings.EqualFold(k, "Content-Type") {
			continue
		}
		for _, v := range values {
			v = strings.ToLower(v)
			for _, t := range streamTypes {
				if strings.Contains(v, t) {
					return true
				}
			}
		}
	}
	return false
}

// Exclusion is a recorded stream left out of the corpus benchmarks
// because a subject does not rebuild from it the calls conform rebuilds,
// or conform reports an error for it.
type Exclusion struct {
	Body    string
	Subject string
	Reason  string
}

// Agreed returns the recorded streams of protocol from which every subject
// rebuilds the same calls as conform without error, so that the corpus
// benchmarks time the same work for all, and the streams left out, with
// why.
func Agreed(protocol string) ([]Body, []Exclusion, error) {
	bodies, err := CorpusStreams(protocol)
	if err != nil {
		return nil, nil, err
	}
	subs := Subjects(protocol)
	var agreed []Body
	var excl []Exclusion
next:
	for _, body := range bodies {
		want, err := subs[0].Run(nil, body.Data)
		if err != nil {
			excl = append(excl, Exclusion{body.Name, subs[0].Name, err.Error()})
			continue
		}
		for _, sub := range subs[1:] {
			got, err := sub.Run(nil, body.Data)
			if err != nil {
				excl = append(excl, Exclusion{body.Name, sub.Name, err.Error()})
				continue next
			}
			if d := diffCalls(want, got, protocol); d != "" {
				excl = append(excl, Exclusion{body.Name, sub.Name, d})
				continue next
			}
		}
		agreed = append(agreed, body)
	}
	return agreed, excl, nil
}

// diffCalls says how got (a subject's calls) differs from want
// (conform's) for protocol, once empty arguments, which some subjects
// report as "" and others as "{}", read as "{}"; it is empty when they
// agree. Where the protocol says so, arguments agree when they are the
// same JSON value (ArgsAsJSON), and an empty id in got agrees with the id
// conform generated (GeneratedIDs).
func diffCalls(want, got []Call, protocol string) string {
	asJSON := ArgsAsJSON(protocol)
	got = fillGeneratedIDs(protocol, want, got)
	if len(want) != len(got) {
		return fmt.Sprintf("%d calls, conform has %d", len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if w.Args == "" {
			w.Args = "{}"
		}
		if g.Args == "" {
			g.Args = "{}"
		}
		if asJSON && w.ID == g.ID && w.Name == g.Name && sameJSON(w.Args, g.Args) {
			continue
		}
		if w != g {
			return fmt.Sprintf("call %d is %+v, conform has %+v", i, g, w)
		}
	}
	return ""
}

// fillGeneratedIDs returns got with every empty id replaced by the id of
// conform's call at the same place, for a protocol whose ids conform may
// generate (GeneratedIDs); otherwise got as it is.
func fillGeneratedIDs(protocol string, want, got []Call) []Call {
	if !GeneratedIDs(protocol) {
		return got
	}
	out := append([]Call(nil), got...)
	for i := range out {
		if out[i].ID == "" && i < len(want) {
			out[i].ID = want[i].ID
		}
	}
	return out
}

// sameJSON reports whether a and b are both JSON texts of the same value.
func sameJSON(a, b string) bool { return jsonvalue.EqualText([]byte(a), []byte(b)) }
