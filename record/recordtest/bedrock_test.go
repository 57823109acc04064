package recordtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/google/go-cmp/cmp"
)

// TestChunkFrames turns the corpus's recorded ConverseStream events back
// into frames and decodes them with the AWS event-stream decoder: one
// frame per line, with the line's event type and payload.
func TestChunkFrames(t *testing.T) {
	chunks, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "bedrock", "vercel-ai__amazon-bedrock-json-other-tool.1.chunks.txt"))
	if err != nil {
		t.Fatal(err)
	}
	frames, err := ChunkFrames(chunks)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSpace(string(chunks)), "\n")
	var got []string
	dec := eventstream.NewDecoder()
	for _, f := range frames {
		m, err := dec.Decode(bytes.NewReader(f), nil)
		if err != nil {
			t.Fatalf("decode frame: %v", err)
		}
		if mt := m.Headers.Get(":message-type"); mt == nil || mt.String() != "event" {
			t.Errorf("message type %v", mt)
		}
		got = append(got, `{"`+m.Headers.Get(":event-type").String()+`":`+string(m.Payload)+`}`)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("frames decoded (-want +got):\n%s", diff)
	}

	for in, wantErr := range map[string]string{
		`{"a":{},"b":{}}`:   "line 1",
		"{\"a\":{}}\n[1]":   "line 2",
		"\n\n{\"a\":{}}\nx": "line 4",
	} {
		if _, err := ChunkFrames([]byte(in)); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("ChunkFrames(%q) error %v, want one naming %s", in, err, wantErr)
		}
	}
}

// TestBedrockStandInRefuses checks the stand-in's refusals: an unsigned
// request is 403 InvalidSignatureException, a signed one to a path that is
// not Converse is 404, and neither gets a recorded body.
func TestBedrockStandInRefuses(t *testing.T) {
	creds := Credentials{AccessKeyID: "AKIAEXAMPLE000000000", SecretAccessKey: "secret", Region: "us-east-1"}
	b := NewBedrock(t, BedrockConfig{Credentials: creds, Converse: []byte(`{"output":{}}`)})
	send := func(path string, sign bool) (*http.Response, string) {
		body := []byte(`{"messages":[]}`)
		req, err := http.NewRequest("POST", b.URL+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if sign {
			sum := sha256.Sum256(body)
			if err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: creds.AccessKeyID, SecretAccessKey: creds.SecretAccessKey}, req, hex.EncodeToString(sum[:]), "bedrock", creds.Region, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out bytes.Buffer
		out.ReadFrom(resp.Body)
		return resp, out.String()
	}
	resp, body := send("/model/m/converse", false)
	if resp.StatusCode != 403 || resp.Header.Get("X-Amzn-ErrorType") != "InvalidSignatureException" || strings.Contains(body, "output") {
		t.Errorf("unsigned: %d %s %s", resp.StatusCode, resp.Header.Get("X-Amzn-ErrorType"), body)
	}
	resp, body = send("/model/m/invoke", true)
	if resp.StatusCode != 404 || strings.Contains(body, "output") {
		t.Errorf("signed, wrong path: %d %s", resp.StatusCode, body)
	}
	resp, body = send("/model/m/converse", true)
	if resp.StatusCode != 200 || body != `{"output":{}}` {
		t.Errorf("signed: %d %s", resp.StatusCode, body)
	}
	want := []string{"POST /model/m/converse -> 403", "POST /model/m/invoke -> 404", "POST /model/m/converse -> 200"}
	if diff := cmp.Diff(want, b.Requests()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}
