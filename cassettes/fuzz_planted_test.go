package cassettes

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"testing"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// The secrets FuzzRedactPlacements plants: a key of a known shape, found
// wherever it sits as text, and an opaque value, found only where a name
// says what it is. Both hold PLANTED.
const (
	fuzzShapedKey = "sk-proj-fuzzPLANTED0123456789abcdefXYZ"
	fuzzOpaque    = "fuzzPLANTEDopaque/x+y=0123456789"
)

// fuzzCredentialNames are names a credential travels under, each in a
// case and spelling of its own.
var fuzzCredentialNames = []string{"X-Access-Key", "x-functions-key", "x-portkey-virtual-key", "api_key", "Authorization",
	"password", "client_secret", "accessToken", "X-Amz-Security-Token", "session_token", "apiKey", "credentials"}

// maxFuzzBody bounds the bodies FuzzRedactPlacements plants in, as
// maxFuzzImport does for FuzzImport.
const maxFuzzBody = 2 << 10

// plantedBodySeeds returns response bodies of the corpus cassettes, cut at
// a line end to maxFuzzBody bytes, with their content types.
func plantedBodySeeds() ([][2]string, error) {
	var out [][2]string
	err := fs.WalkDir(Corpus(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		c, err := Load(p)
		if err != nil {
			return err
		}
		for _, i := range c.Interactions {
			body := i.Response.Body
			if len(body) > maxFuzzBody {
				cut := strings.LastIndexByte(body[:maxFuzzBody], '\n')
				body = body[:max(cut+1, 0)]
			}
			if body != "" {
				out = append(out, [2]string{body, i.Response.Headers.Get("Content-Type")})
			}
		}
		return nil
	})
	return out, err
}

// plantIn puts a secret into an interaction in the placement kind names,
// at offset at of the response body or in pieces of the given size, and
// returns the secret planted.
func plantIn(i *cassette.Interaction, kind uint8, at int, piece int) string {
	body := i.Response.Body
	at = at % (len(body) + 1)
	for at > 0 && at < len(body) && body[at-1]&0xc0 == 0x80 {
		at-- // not inside a UTF-8 sequence
	}
	name := fuzzCredentialNames[(at+piece)%len(fuzzCredentialNames)]
	insert := func(s string) { i.Response.Body = body[:at] + s + body[at:] }
	switch kind % 12 {
	case 0: // a request header named like a credential
		i.Request.Headers.Set(name, fuzzOpaque)
		return fuzzOpaque
	case 1: // a key set off by spaces anywhere in the body
		insert(" " + fuzzShapedKey + " ")
		return fuzzShapedKey
	case 2: // a key streamed in deltas of any size
		i.Response.Body = body + "\n\n" + contentDeltas("my key is "+fuzzShapedKey+", keep it", 1+piece%9)
		return fuzzShapedKey
	case 3: // an opaque secret in streamed tool call arguments
		q, _ := json.Marshal(name)
		i.Response.Body = body + "\n\n" + argumentDeltas(`{"city":"Oslo",`+string(q)+`:"`+fuzzOpaque+`"}`, 1+piece%7)
		return fuzzOpaque
	case 4: // a gzip body
		insert(" " + fuzzShapedKey + " ")
		i.Response.Body = gzipText(i.Response.Body)
		i.Response.Headers.Set("Content-Encoding", "gzip")
		return fuzzShapedKey
	case 5: // a deflate body, zlib-wrapped or raw
		insert(" " + fuzzShapedKey + " ")
		if piece%2 == 0 {
			i.Response.Body = deflateText(i.Response.Body)
		} else {
			i.Response.Body = rawDeflateText(i.Response.Body)
		}
		i.Response.Headers.Set("Content-Encoding", "deflate")
		return fuzzShapedKey
	case 6: // a base64 event-stream chunk
		inner := base64.StdEncoding.EncodeToString([]byte(`{"delta":{"text":"key ` + fuzzShapedKey + `"}}`))
		i.Response.Body = frames(`{"bytes":"` + inner + `"}`)
		i.Response.Headers.Set("Content-Type", "application/vnd.amazon.eventstream")
		return fuzzShapedKey
	case 7: // a JSON field named like a credential, in the request
		q, _ := json.Marshal(name)
		i.Request.Body = `{"model":"m","provider":{` + string(q) + `:"` + fuzzOpaque + `"},"messages":[]}`
		return fuzzOpaque
	case 8: // tool call arguments holding a credential field, whole
		args, _ := json.Marshal(`{"user":"me",` + mustQuote(name) + `:"` + fuzzOpaque + `"}`)
		i.Request.Body = `{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"login","arguments":` + string(args) + `}}]}]}`
		return fuzzOpaque
	case 9: // a multipart field
		i.Request.Body = multipartBody([2]string{"purpose", "x"}, [2]string{strings.ToLower(name), fuzzOpaque})
		i.Request.Headers.Set("Content-Type", "multipart/form-data; boundary="+testBoundary)
		return fuzzOpaque
	case 10: // a URL fragment and a Location header
		i.Request.URL += "#" + "access_token=" + fuzzOpaque
		i.Response.Headers.Set("Location", "https://app.example.com/cb#id_token="+fuzzOpaque)
		return fuzzOpaque
	default: // a header's value echoed in the body under a harmless name
		i.Request.Headers.Set(name, fuzzOpaque)
		insert(` {"note":"` + fuzzOpaque + `"} `)
		return fuzzOpaque
	}
}

func mustQuote(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

// FuzzRedactPlacements plants a secret in a random placement (a
// credential header or field, a body compressed or base64-encoded, deltas
// of any size, tool call arguments, multipart, a URL fragment, an echo of
// a removed value) in a real response body of the corpus, with a few
// fuzzed bytes of noise put in at some offset, marshals the cassette as
// Save does and reads it back: Save's own check passes, and no field and
// no decoded view of it (decodedViews) holds the secret. The body is
// picked from the corpus by index rather than fuzzed whole, so that the
// inputs stay small: Go's fuzzer minimises every new input, and with
// kilobyte bodies it spent whole runs minimising.
func FuzzRedactPlacements(f *testing.F) {
	seeds, err := plantedBodySeeds()
	if err != nil {
		f.Fatal(err)
	}
	// One body in twelve: every protocol and framing of the corpus, few
	// enough that the baseline run fits a CI budget of seconds.
	for n := 0; n < len(seeds); n += 12 {
		f.Add(uint16(n), uint8(n/5), uint16(len(seeds[n][0])/2), uint8(n/60), "")
	}
	f.Add(uint16(1), uint8(2), uint16(9), uint8(3), `","api_key":"`)
	f.Fuzz(func(t *testing.T, pick uint16, kind uint8, at uint16, piece uint8, noise string) {
		if len(noise) > 64 {
			return
		}
		s := seeds[int(pick)%len(seeds)]
		body, pos := s[0], int(at)%(len(s[0])+1)
		body = body[:pos] + noise + body[pos:]
		i := &cassette.Interaction{
			Request: cassette.Request{Method: "POST", URL: "https://api.openai.com/v1/chat/completions",
				Headers: http.Header{"Content-Type": {"application/json"}}, Body: `{"model":"m","messages":[]}`},
			Response: cassette.Response{Code: 200, Status: "200 OK", Body: body, Headers: http.Header{"Content-Type": {s[1]}}},
		}
		secret := plantIn(i, kind, int(at)*7, int(piece))
		c := newCassette()
		c.Interactions = append(c.Interactions, i)
		// What Save writes and checks, without the disk.
		data, known, err := marshal(c, nil)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		if err := CheckSecrets(data, known...); err != nil {
			t.Fatalf("Save would refuse what redaction left: %v", err)
		}
		checkNoDecodedLeakData(t, data, secret)
		if t.Failed() {
			t.Logf("body %d, placement %d, at %d, piece %d, noise %q", int(pick)%len(seeds), kind%12, at, piece, noise)
		}
	})
}

// TestPlacementsInCorpusBodies runs every placement of
// FuzzRedactPlacements on a share of the corpus bodies, so that each is
// checked on every run.
func TestPlacementsInCorpusBodies(t *testing.T) {
	seeds, err := plantedBodySeeds()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for n := 0; n < len(seeds); n += 7 {
		s := seeds[n]
		for kind := range uint8(12) {
			t.Run(fmt.Sprintf("%d/%d", n, kind), func(t *testing.T) {
				i := &cassette.Interaction{
					Request: cassette.Request{Method: "POST", URL: "https://api.openai.com/v1/chat/completions",
						Headers: http.Header{"Content-Type": {"application/json"}}, Body: `{"model":"m","messages":[]}`},
					Response: cassette.Response{Code: 200, Status: "200 OK", Body: s[0], Headers: http.Header{"Content-Type": {s[1]}}},
				}
				secret := plantIn(i, kind, len(s[0])/3+n, n)
				c := newCassette()
				c.Interactions = append(c.Interactions, i)
				data, known, err := marshal(c, nil)
				if err != nil {
					t.Fatalf("marshal: %v", err)
				}
				if err := CheckSecrets(data, known...); err != nil {
					t.Fatalf("Save would refuse what redaction left: %v", err)
				}
				checkNoDecodedLeakData(t, data, secret)
				checked++
			})
		}
	}
	t.Logf("%d corpus bodies x 12 placements: %d checked", (len(seeds)+6)/7, checked)
}
