package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
)

// TestCasesDeclareTheirFeatures is the confound lint: a scenario must test
// what its name and failure modes say, and nothing else by accident. Each
// streamed case's provider bytes are read by the generator's independent
// readers, which record the features of the bytes that a failure mode of
// the catalogue covers (a first block index other than 0, interleaved
// calls, a populated start input, a delta cut inside a UTF-8 character or a
// JSON escape, arguments only in a done event, ids absent, …). A feature
// present in a case that does not declare its failure mode is a confound:
// a client that fails the case may fail it for that feature, and a report
// would name the wrong cause. Declare the mode in "guards:" or change the
// bytes. NDJSON streams (Ollama's, Cohere v1's: whole calls, one object a line) and
// bodies that a case expects to fail are not read.
func TestCasesDeclareTheirFeatures(t *testing.T) {
	cases, err := LoadBuiltin(VCRResolver(cassettes.Load))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, s := range cases {
		if s.Kind != KindStream {
			continue
		}
		if s.Body != nil && len(s.Protocols) == 1 {
			checked += lintBytes(t, s, s.Protocols[0], caseURL(t, s), s.Body, s.File)
			continue
		}
		if s.Events == nil {
			continue
		}
		// A case declared once is checked in the bytes each adapter's
		// encoder writes for it.
		for _, a := range providers.All() {
			enc, ok := a.(core.StreamEncoder)
			if !ok || !s.Applies(a) {
				continue
			}
			var buf bytes.Buffer
			if err := enc.EncodeStream(&buf, s.Events); err != nil {
				continue
			}
			url := "/model/m/converse-stream"
			checked += lintBytes(t, s, a.Name(), url, buf.Bytes(), s.File+" as "+a.Name()+" encodes it")
		}
	}
	if checked < 100 {
		t.Errorf("the lint read %d streamed cases; the tree has more than 100", checked)
	}
}

// lintBytes reads one case's bytes in the named protocol and reports every
// feature whose failure mode the case does not declare; it returns 1 if it
// read the bytes, 0 if they are not read.
func lintBytes(t *testing.T, s *Scenario, protocol, url string, body []byte, where string) int {
	t.Helper()
	if protocol == "ollama" || s.BodySection == "response.ndjson" {
		return 0 // NDJSON: Ollama's, Cohere v1's
	}
	x, err := extract(protocol, url, body)
	var sk errSkip
	if errors.As(err, &sk) || err != nil && s.Want.ExpectsError() {
		return 0
	}
	if err != nil {
		t.Errorf("%s: read its bytes: %v", where, err)
		return 0
	}
	for i, id := range x.guards {
		if slices.Contains(protocolNorms[protocol], id) {
			continue
		}
		if slices.Contains(s.Guards, id) || slices.ContainsFunc(x.alts[id], func(alt string) bool { return slices.Contains(s.Guards, alt) }) {
			continue
		}
		also := ""
		if alts := x.alts[id]; len(alts) > 0 {
			also = fmt.Sprintf(" (or %s)", strings.Join(alts, ", "))
		}
		t.Errorf("%s: %s, which %s%s guards, but the case does not declare it", where, x.notes[i], id, also)
	}
	return 1
}

// protocolNorms are features every stream of a protocol has, which the
// lint does not ask a case to declare: a client that fails on one fails
// every case of the protocol, so no single finding can be pinned on another
// cause. Every Gemini 2 stream ends a tool turn with STOP (F02) and most
// send calls without ids (D01).
var protocolNorms = map[string][]string{
	"gemini": {"D01", "F02"},
}

// caseURL returns the request URL of a case's recording, or, for a
// hand-written Bedrock case, the Converse stream URL when its frames are
// Converse events and the InvokeModel one otherwise.
func caseURL(t *testing.T, s *Scenario) string {
	if s.Cassette != "" {
		path, n, _ := strings.Cut(s.Cassette, "#")
		c, err := cassettes.Load(path)
		if err != nil {
			t.Fatalf("%s: %v", s.File, err)
		}
		var i int
		fmt.Sscan(n, &i)
		if i < len(c.Interactions) {
			return c.Interactions[i].Request.URL
		}
	}
	if s.Protocols[0] == "bedrock" && strings.Contains(string(s.Body), "contentBlock") {
		return "/model/m/converse-stream"
	}
	return "/model/m/invoke-with-response-stream"
}

func TestSplitsEscape(t *testing.T) {
	for frag, want := range map[string]bool{
		`{"a": "x`:      false,
		`{"a": "x\`:     true,
		`{"a": "x\\`:    false,
		`{"a": "x\\\`:   true,
		`{"a": "\u`:     true,
		`{"a": "\u00e`:  true,
		`{"a": "\u00e9`: false,
		`{"a": "\\u00`:  false,
		`"\`:            true,
	} {
		if got := splitsEscape(frag); got != want {
			t.Errorf("splitsEscape(%q) = %v, want %v", frag, got, want)
		}
	}
}
