package recordtest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"pgregory.net/rapid"
)

// example is the key pair of AWS's published SigV4 examples.
var example = Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", Region: "us-east-1"}

// readRequest parses a raw HTTP request as a server receives it.
func readRequest(t interface{ Fatalf(string, ...any) }, raw string) *http.Request {
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
	if err != nil {
		t.Fatalf("read request: %v", err)
	}
	return r
}

// TestVerifySigV4Vectors checks the verifier against two signatures AWS
// publishes (the IAM ListUsers example of the IAM user guide and the
// get-vanilla case of the SigV4 test suite), and that a changed signature,
// a changed header or a clock too far off is refused.
func TestVerifySigV4Vectors(t *testing.T) {
	at, _ := time.Parse("20060102T150405Z", "20150830T123600Z")
	tests := []struct {
		desc, service, raw string
		now                time.Time
		wantErr            string
	}{
		{"iam ListUsers", "iam", "GET /?Action=ListUsers&Version=2010-05-08 HTTP/1.1\r\nHost: iam.amazonaws.com\r\n" +
			"Content-Type: application/x-www-form-urlencoded; charset=utf-8\r\nX-Amz-Date: 20150830T123600Z\r\n" +
			"Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7\r\n\r\n",
			at.Add(time.Minute), ""},
		{"get-vanilla", "service", "GET / HTTP/1.1\r\nHost: example.amazonaws.com\r\nX-Amz-Date: 20150830T123600Z\r\n" +
			"Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31\r\n\r\n",
			at, ""},
		{"signature changed", "service", "GET / HTTP/1.1\r\nHost: example.amazonaws.com\r\nX-Amz-Date: 20150830T123600Z\r\n" +
			"Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf32\r\n\r\n",
			at, "the canonical request was"},
		{"host changed", "service", "GET / HTTP/1.1\r\nHost: example2.amazonaws.com\r\nX-Amz-Date: 20150830T123600Z\r\n" +
			"Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31\r\n\r\n",
			at, "host:example2.amazonaws.com"},
		{"clock skew", "service", "GET / HTTP/1.1\r\nHost: example.amazonaws.com\r\nX-Amz-Date: 20150830T123600Z\r\n" +
			"Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31\r\n\r\n",
			at.Add(6 * time.Minute), "is 6m0s from now"},
		{"unsigned", "service", "GET / HTTP/1.1\r\nHost: example.amazonaws.com\r\nX-Amz-Date: 20150830T123600Z\r\n\r\n",
			at, `Authorization "" is not AWS4-HMAC-SHA256`},
		{"date not signed", "service", "GET / HTTP/1.1\r\nHost: example.amazonaws.com\r\nX-Amz-Date: 20150830T123600Z\r\n" +
			"Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31\r\n\r\n",
			at, `lacks x-amz-date`},
		{"other key", "service", "GET / HTTP/1.1\r\nHost: example.amazonaws.com\r\nX-Amz-Date: 20150830T123600Z\r\n" +
			"Authorization: AWS4-HMAC-SHA256 Credential=AKIDOTHER/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31\r\n\r\n",
			at, `credential "AKIDOTHER/20150830/us-east-1/service/aws4_request"`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			err := VerifySigV4(readRequest(t, tt.raw), nil, example, tt.service, tt.now)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("published signature refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrSignature) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %v; want ErrSignature saying %q", err, tt.wantErr)
			}
		})
	}
}

// TestVerifySigV4Property signs random Bedrock-like requests with the AWS
// SDK's signer, sends them through HTTP/1.1 serialisation, and checks that
// the verifier accepts them as received and refuses each of them with one
// thing changed after signing: a body byte, the path, a query value, a
// signed header, the date or the session token.
func TestVerifySigV4Property(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		creds := Credentials{
			AccessKeyID:     rapid.StringMatching(`AKIA[A-Z0-9]{16}`).Draw(t, "akid"),
			SecretAccessKey: rapid.StringMatching(`[A-Za-z0-9/+]{40}`).Draw(t, "secret"),
			Region:          rapid.StringMatching(`[a-z]{2}-[a-z]{4,9}-[1-9]`).Draw(t, "region"),
		}
		if rapid.Bool().Draw(t, "token") {
			creds.SessionToken = rapid.StringMatching(`[A-Za-z0-9/+=]{20,200}`).Draw(t, "session token")
		}
		body := rapid.SliceOfN(rapid.Byte(), 0, 512).Draw(t, "body")
		model := rapid.StringMatching(`[A-Za-z0-9.:/ _~%+-]{1,40}`).Draw(t, "model")
		verb := rapid.SampledFrom([]string{"converse", "converse-stream"}).Draw(t, "verb")
		q := url.Values{}
		for i, n := 0, rapid.IntRange(0, 3).Draw(t, "params"); i < n; i++ {
			q.Add(rapid.StringMatching(`[a-zA-Z0-9 _=&+%/-]{1,8}`).Draw(t, "name"), rapid.StringMatching(`[a-zA-Z0-9 _=&+%/-]{0,8}`).Draw(t, "value"))
		}
		u := "http://127.0.0.1:8443/model/" + uriEncode(model, true) + "/" + verb
		if len(q) > 0 {
			u += "?" + q.Encode()
		}
		req, err := http.NewRequest("POST", u, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Extra", rapid.StringMatching(`[a-z]{1,4}( {1,3}[a-z]{1,4}){0,2}`).Draw(t, "extra"))
		sum := sha256.Sum256(body)
		now := time.Now()
		err = v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: creds.AccessKeyID, SecretAccessKey: creds.SecretAccessKey, SessionToken: creds.SessionToken},
			req, hex.EncodeToString(sum[:]), "bedrock", creds.Region, now)
		if err != nil {
			t.Fatal(err)
		}
		var wire bytes.Buffer
		if err := req.Write(&wire); err != nil {
			t.Fatal(err)
		}
		received := func() *http.Request { return readRequest(t, wire.String()) }
		if err := VerifySigV4(received(), body, creds, "bedrock", now); err != nil {
			t.Fatalf("a request signed by the SDK is refused: %v", err)
		}
		type change struct {
			what string
			do   func(r *http.Request, body []byte) []byte
		}
		changes := []change{
			{"body", func(r *http.Request, b []byte) []byte {
				if len(b) == 0 {
					return []byte("x")
				}
				b = bytes.Clone(b)
				b[len(b)/2] ^= 1
				return b
			}},
			{"path", func(r *http.Request, b []byte) []byte {
				r.RequestURI = strings.Replace(r.RequestURI, "/model/", "/model/x", 1)
				return b
			}},
			{"query", func(r *http.Request, b []byte) []byte {
				if strings.Contains(r.RequestURI, "?") {
					r.RequestURI += "&extra=1"
				} else {
					r.RequestURI += "?extra=1"
				}
				return b
			}},
			{"signed header", func(r *http.Request, b []byte) []byte {
				r.Header.Set("X-Extra", r.Header.Get("X-Extra")+"z")
				return b
			}},
			{"date", func(r *http.Request, b []byte) []byte {
				r.Header.Set("X-Amz-Date", now.UTC().Add(time.Second).Format("20060102T150405Z"))
				return b
			}},
		}
		if creds.SessionToken != "" {
			changes = append(changes, change{"session token", func(r *http.Request, b []byte) []byte {
				r.Header.Set("X-Amz-Security-Token", "other")
				return b
			}})
		}
		c := rapid.SampledFrom(changes).Draw(t, "change")
		r := received()
		b := c.do(r, body)
		if err := VerifySigV4(r, b, creds, "bedrock", now); !errors.Is(err, ErrSignature) {
			t.Fatalf("request with its %s changed after signing: error %v, want ErrSignature", c.what, err)
		}
	})
}
