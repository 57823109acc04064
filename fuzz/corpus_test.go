package fuzz

import (
	"fmt"
	"io"
	"mime"
	"strings"
	"sync"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
)

// recorded is one streamed response of the recorded corpus.
type recorded struct {
	adapter string // the built-in adapter named like the cassette's folder
	ref     string // cassette name and interaction number, for messages
	body    []byte
}

// streamTypes are the response media types of a streamed body.
var streamTypes = map[string]bool{
	"text/event-stream":                  true,
	"application/vnd.amazon.eventstream": true,
	"application/x-ndjson":               true,
	"application/ndjson":                 true,
}

// isStream reports whether an interaction's response is streamed: by its
// media type, or by the URL for Gemini's one-JSON-array stream, which is
// sent as application/json.
func isStream(contentType, url string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(contentType))
	}
	return streamTypes[mt] || strings.Contains(url, ":streamGenerateContent")
}

// loadRecorded reads every streamed, successful response of the cassettes
// whose folder is a built-in adapter's name, in a fixed order.
var loadRecorded = sync.OnceValues(func() ([]recorded, error) {
	var out []recorded
	for _, folder := range cassettes.Folders() {
		if _, err := providers.Lookup(folder); err != nil {
			continue // "other": no adapter of that name
		}
		names, err := cassettes.Glob(folder)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			c, err := cassettes.Load(name)
			if err != nil {
				return nil, err
			}
			for i, in := range c.Interactions {
				if in.Response.Code >= 400 || in.Response.Body == "" {
					continue
				}
				if !isStream(in.Response.Headers.Get("Content-Type"), in.Request.URL) {
					continue
				}
				out = append(out, recorded{folder, fmt.Sprintf("%s#%d", name, i), []byte(in.Response.Body)})
			}
		}
	}
	return out, nil
})

// recordedStreams returns the recorded streams, or an error when there are
// none. (Helpers take no testing.TB: the OSS-Fuzz build replaces testing.F
// and testing.T with stand-ins that cannot satisfy it.)
func recordedStreams() ([]recorded, error) {
	rs, err := loadRecorded()
	if err != nil {
		return nil, fmt.Errorf("load recorded streams: %w", err)
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("load recorded streams: the corpus has no streamed response")
	}
	return rs, nil
}

// pieces reads a body in pieces whose sizes the cut bytes choose, in turn:
// byte b gives a piece of b%64+1 bytes; no cuts means one piece.
type pieces struct {
	body []byte
	cuts []byte
	n    int
}

func (p *pieces) Read(b []byte) (int, error) {
	if len(p.body) == 0 {
		return 0, io.EOF
	}
	size := len(p.body)
	if len(p.cuts) > 0 {
		size = int(p.cuts[p.n%len(p.cuts)])%64 + 1
		p.n++
	}
	size = min(size, len(b), len(p.body))
	copy(b, p.body[:size])
	p.body = p.body[size:]
	return size, nil
}

// collect decodes a body with the named built-in adapter, read through r,
// and collects the events. The name comes from providers.Names, so the
// lookup cannot fail; if it did, the error says so.
func collect(adapter string, r io.Reader) (*core.Response, error) {
	a, err := providers.Lookup(adapter)
	if err != nil {
		return &core.Response{}, err
	}
	return core.Collect(a.DecodeStream(r))
}

// errText is an error's text, or "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
