package cassettes

import (
	"encoding/base64"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// rawCassette writes one interaction as go-vcr YAML without redacting it,
// as a redaction that missed something would leave it.
func rawCassette(t *testing.T, body string, h http.Header) []byte {
	t.Helper()
	out := struct {
		Version      int                     `yaml:"version"`
		Interactions []*cassette.Interaction `yaml:"interactions"`
	}{Version: cassette.CassetteFormatVersion, Interactions: []*cassette.Interaction{{
		Request:  cassette.Request{Method: "POST", URL: "https://api.openai.com/v1/chat/completions"},
		Response: cassette.Response{Code: 200, Status: "200 OK", Body: body, Headers: h},
	}}}
	data, err := yaml.Marshal(&out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestCheckSecretsReadsDecodedViews hands CheckSecrets cassettes that hold
// a known secret only in a decoded view of a body: compressed, cut into
// one-byte deltas, base64 inside a JSON string, inside an event-stream
// frame. Each is refused, naming the place and not the secret; the same
// bodies without the secret pass.
func TestCheckSecretsReadsDecodedViews(t *testing.T) {
	const secret = "knownPLANTEDsecret0123456789"
	sse := http.Header{"Content-Type": {"text/event-stream"}}
	tests := map[string]struct {
		body string
		h    http.Header
	}{
		"gzip body":          {gzipText("data: {\"x\":\"" + secret + "\"}\n\n"), http.Header{"Content-Encoding": {"gzip"}}},
		"deflate body":       {deflateText("data: {\"x\":\"" + secret + "\"}\n\n"), http.Header{"Content-Encoding": {"deflate"}}},
		"one-byte deltas":    {contentDeltas("key "+secret, 1), sse},
		"base64 in a string": {`{"bytes":"` + base64.StdEncoding.EncodeToString([]byte(`{"text":"`+secret+`"}`)) + `"}`, nil},
		"event-stream frame": {frames(`{"delta":{"text":"`+secret[:9]+`"}}`, `{"delta":{"text":"`+secret[9:]+`"}}`), http.Header{"Content-Type": {"application/vnd.amazon.eventstream"}}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := CheckSecrets(rawCassette(t, tc.body, tc.h), secret)
			if !errors.Is(err, ErrSecretLeft) {
				t.Fatalf("CheckSecrets = %v, want ErrSecretLeft", err)
			}
			if !strings.Contains(err.Error(), "interaction 0 response body") || strings.Contains(err.Error(), secret) {
				t.Errorf("error %q should name the body and not the secret", err)
			}
			clean := strings.ReplaceAll(tc.body, secret, strings.Repeat("x", len(secret)))
			if strings.Contains(tc.body, secret) {
				if err := CheckSecrets(rawCassette(t, clean, tc.h), secret); err != nil {
					t.Errorf("without the secret: %v", err)
				}
			}
		})
	}
}

// TestImportScrubsKnownSecrets imports a recording that holds a key of the
// environment and a header's key echoed under harmless names, whole and
// cut into deltas: both are masked everywhere, and Save writes the file.
func TestImportScrubsKnownSecrets(t *testing.T) {
	const envKey = "envPLANTEDkey0123456789abcdef"
	const headerKey = "hdrPLANTEDopaque0123456789"
	t.Setenv("CONFORM_TEST_API_KEY", envKey)
	body := contentDeltas("the env key is "+envKey+" and the header's "+headerKey, 3) +
		`data: {"object":"chat.completion.chunk","note":"` + envKey + `","echo":"` + headerKey + `"}` + "\n\n"
	e := baseExchange()
	e.reqHeaders = append(e.reqHeaders, [2]string{"X-Relay-Key", headerKey})
	e.respBody += body
	name, data := e.render(t, FormatGoVCR)
	res, err := Import(name, data, WithProtocol("openai-chat"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "known.yaml")
	if err := res.Save(out, false); err != nil {
		t.Fatalf("save: %v", err)
	}
	checkNoDecodedLeak(t, out, envKey)
	checkNoDecodedLeak(t, out, headerKey)
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
}
