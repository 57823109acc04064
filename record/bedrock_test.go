package record

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/record/recordtest"
)

// Planted AWS credentials, shaped like real ones. The secret and the
// token hold "/", "+" and "=", which URL escaping changes.
var plantedAWS = AWSCredentials{
	AccessKeyID:     "AKIAPLANTED000000001",
	SecretAccessKey: "wJalrPLANTEDsecret/K7MDENG+bPxRfiCYEXAMP",
	SessionToken:    "IQoJb3JpZ2luX2VjEPLANTEDtoken/with+slash=AQoDYXdzEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQ==",
	Region:          "eu-west-3",
}

func (c AWSCredentials) forStandIn() recordtest.Credentials {
	return recordtest.Credentials{AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey, SessionToken: c.SessionToken, Region: c.Region}
}

// corpusBedrock returns the recorded Converse body and the recorded
// ConverseStream events of the corpus, the latter as event-stream frames.
func corpusBedrock(t *testing.T) (converse []byte, frames [][]byte) {
	t.Helper()
	dir := filepath.Join("..", "testdata", "corpus", "bedrock")
	converse, err := os.ReadFile(filepath.Join(dir, "vercel-ai__amazon-bedrock-json-other-tool.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := os.ReadFile(filepath.Join(dir, "vercel-ai__amazon-bedrock-json-other-tool.1.chunks.txt"))
	if err != nil {
		t.Fatal(err)
	}
	frames, err = recordtest.ChunkFrames(chunks)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) < 3 {
		t.Fatalf("%d frames in the recorded stream", len(frames))
	}
	return converse, frames
}

// TestRecordBedrock records Converse and ConverseStream from a stand-in
// that checks the SigV4 signature of what it receives (403 on a
// mismatch) and answers with recorded Bedrock bodies: the request goes to
// the right path with the model id escaped as the AWS SDKs escape it, the
// body is kept byte for byte, the chunk times fall on the event-stream
// frames as they were flushed, and the recording decodes to the recorded
// call.
func TestRecordBedrock(t *testing.T) {
	converse, frames := corpusBedrock(t)
	for _, stream := range []bool{false, true} {
		for _, token := range []bool{false, true} {
			t.Run("stream="+strconv.FormatBool(stream)+"/token="+strconv.FormatBool(token), func(t *testing.T) {
				creds := plantedAWS
				if !token {
					creds.SessionToken = ""
				}
				b := recordtest.NewBedrock(t, recordtest.BedrockConfig{Credentials: creds.forStandIn(), Converse: converse, Frames: frames, Pause: 5 * time.Millisecond})
				c, err := Record(context.Background(), Options{Protocol: "bedrock", Request: simpleRequest(), Stream: stream, BaseURL: b.URL, AWS: &creds})
				if err != nil {
					t.Fatalf("Record: %v", err)
				}
				verb := "converse"
				if stream {
					verb = "converse-stream"
				}
				wantSeen := []string{"POST /model/anthropic.claude-haiku-4-5-20251001-v1%3A0/" + verb + " -> 200"}
				if diff := cmp.Diff(wantSeen, b.Requests()); diff != "" {
					t.Errorf("requests the stand-in received (-want +got):\n%s", diff)
				}
				path := filepath.Join(t.TempDir(), "bedrock.yaml")
				if err := cassettes.Save(c, path, false); err != nil {
					t.Fatal(err)
				}
				back, err := cassettes.Load(path)
				if err != nil {
					t.Fatal(err)
				}
				if data, _ := os.ReadFile(path); stream != bytes.Contains(data, []byte("body: !!binary")) {
					t.Errorf("stream=%v: the event-stream body should be, and only it, written as base64 (!!binary)", stream)
				}
				i := back.Interactions[0]
				want := converse
				if stream {
					want = bytes.Join(frames, nil)
				}
				if !bytes.Equal([]byte(i.Response.Body), want) {
					t.Errorf("recorded body is not the body served: %d bytes, served %d", len(i.Response.Body), len(want))
				}
				if i.Request.Headers.Get("X-Amz-Date") == "" {
					t.Errorf("the recorded request has no X-Amz-Date: %v", i.Request.Headers)
				}
				for _, h := range []string{"Authorization", "X-Amz-Security-Token"} {
					if _, ok := i.Request.Headers[http.CanonicalHeaderKey(h)]; ok {
						t.Errorf("the recorded request keeps %s", h)
					}
				}
				times := i.Response.Headers.Get(ChunkTimesHeader)
				if stream {
					checkChunkTimes(t, times, len(i.Response.Body))
					bounds := map[int]bool{}
					off := 0
					for _, f := range frames {
						off += len(f)
						bounds[off] = true
					}
					for _, p := range strings.Split(times, ",") {
						o, _, _ := strings.Cut(p, "@")
						if n, _ := strconv.Atoi(o); !bounds[n] {
							t.Errorf("chunk time %s ends inside an event-stream frame; frames end at %v", p, bounds)
						}
					}
				} else {
					pairs := strings.Split(times, ",")
					if last, _, _ := strings.Cut(pairs[len(pairs)-1], "@"); last != strconv.Itoa(len(i.Response.Body)) {
						t.Errorf("chunk times %q do not end at the body's %d bytes", times, len(i.Response.Body))
					}
				}
				a, err := providers.Lookup("bedrock")
				if err != nil {
					t.Fatal(err)
				}
				var resp *core.Response
				if stream {
					resp, err = core.Collect(a.DecodeStream(strings.NewReader(i.Response.Body)))
				} else {
					resp, err = a.DecodeResponse([]byte(i.Response.Body))
				}
				if err != nil {
					t.Fatalf("decode the recording: %v", err)
				}
				var got []string
				for _, call := range resp.Calls() {
					var args bytes.Buffer
					if err := json.Compact(&args, call.Arguments); err != nil {
						t.Errorf("call %s: arguments %q: %v", call.Name, call.Arguments, err)
					}
					got = append(got, call.Name+" "+args.String())
				}
				if diff := cmp.Diff([]string{`get-weather {"location":"San Francisco"}`}, got); diff != "" {
					t.Errorf("calls decoded from the recording (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestRecordBedrockModelEscaping checks that a model id is sent escaped as
// the AWS SDKs send it and that the signature still checks.
func TestRecordBedrockModelEscaping(t *testing.T) {
	converse, _ := corpusBedrock(t)
	creds := plantedAWS
	b := recordtest.NewBedrock(t, recordtest.BedrockConfig{Credentials: creds.forStandIn(), Converse: converse})
	req := simpleRequest()
	req.Model = "arn:aws:bedrock:eu-west-3:123456789012:inference-profile/eu.anthropic.claude-sonnet-4-5 v1:0"
	if _, err := Record(context.Background(), Options{Protocol: "bedrock", Request: req, BaseURL: b.URL + "/prefix/", AWS: &creds}); err != nil {
		t.Fatalf("Record: %v", err)
	}
	want := []string{"POST /prefix/model/arn%3Aaws%3Abedrock%3Aeu-west-3%3A123456789012%3Ainference-profile%2Feu.anthropic.claude-sonnet-4-5%20v1%3A0/converse -> 200"}
	if diff := cmp.Diff(want, b.Requests()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// tamper is a transport that changes one byte of the request body after
// the request was signed, as a proxy might.
type tamper struct{}

func (tamper) RoundTrip(r *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	r.Body.Close()
	body = bytes.Replace(body, []byte("Oslo"), []byte("Olso"), 1)
	c := r.Clone(r.Context())
	c.Body = io.NopCloser(bytes.NewReader(body))
	return http.DefaultTransport.RoundTrip(c)
}

// TestRecordBedrockErrors checks that missing credentials and regions are
// refused before anything is sent, naming the field, and that a request
// whose signature does not check (wrong secret, body changed after
// signing, another region) is refused by the stand-in with 403 and
// nothing is returned to save. No error shows a secret.
func TestRecordBedrockErrors(t *testing.T) {
	converse, _ := corpusBedrock(t)
	with := func(f func(*AWSCredentials)) *AWSCredentials {
		c := plantedAWS
		f(&c)
		return &c
	}
	tests := []struct {
		desc     string
		aws      *AWSCredentials
		client   *http.Client
		wantErr  error
		wantSub  string
		wantSent int
	}{
		{"no credentials", nil, nil, ErrNoCredentials, "record bedrock: no AWS credentials: Options.AWS is nil", 0},
		{"no access key id", with(func(c *AWSCredentials) { c.AccessKeyID = "" }), nil, ErrNoCredentials, "Options.AWS.AccessKeyID is empty", 0},
		{"no secret", with(func(c *AWSCredentials) { c.SecretAccessKey = "" }), nil, ErrNoCredentials, "Options.AWS.SecretAccessKey is empty", 0},
		{"no region", with(func(c *AWSCredentials) { c.Region = "" }), nil, ErrNoRegion, "Options.AWS.Region is empty", 0},
		{"bad region", with(func(c *AWSCredentials) { c.Region = "evil.example/x" }), nil, ErrNoRegion, `Options.AWS.Region "evil.example/x" is not a region name`, 0},
		{"wrong secret", with(func(c *AWSCredentials) { c.SecretAccessKey = "wJalrOTHERsecret/K7MDENG+bPxRfiCYEXAMPLE" }), nil, ErrStatus, "403 Forbidden", 1},
		{"wrong token", with(func(c *AWSCredentials) { c.SessionToken = "IQoJOTHERtoken" }), nil, ErrStatus, "X-Amz-Security-Token is not the session token", 1},
		{"other region", with(func(c *AWSCredentials) { c.Region = "us-east-1" }), nil, ErrStatus, "us-east-1/bedrock/aws4_request", 1},
		{"body changed after signing", &plantedAWS, &http.Client{Transport: tamper{}}, ErrStatus, "The request signature we calculated does not match", 1},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			b := recordtest.NewBedrock(t, recordtest.BedrockConfig{Credentials: plantedAWS.forStandIn(), Converse: converse})
			c, err := Record(context.Background(), Options{Protocol: "bedrock", Request: simpleRequest(), BaseURL: b.URL, AWS: tt.aws, Client: tt.client})
			if err == nil {
				t.Fatal("no error")
			}
			if c != nil {
				t.Error("a cassette came back with the error")
			}
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v does not wrap %v", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantSub) {
				t.Errorf("error %q does not say %q", err, tt.wantSub)
			}
			if n := len(b.Requests()); n != tt.wantSent {
				t.Errorf("%d requests sent, want %d: %q", n, tt.wantSent, b.Requests())
			}
			for _, s := range []string{plantedAWS.AccessKeyID, plantedAWS.SecretAccessKey, plantedAWS.SessionToken, "PLANTED"} {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error shows a secret %q: %v", s, err)
				}
			}
		})
	}
}

// TestRecordBedrockDefaultBaseURL checks that without a base URL the
// request goes to the region's Bedrock runtime endpoint; a transport
// catches it before it leaves.
func TestRecordBedrockDefaultBaseURL(t *testing.T) {
	var got string
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		got = r.URL.String()
		return nil, errors.New("caught")
	})}
	creds := plantedAWS
	_, err := Record(context.Background(), Options{Protocol: "bedrock", Request: simpleRequest(), Stream: true, AWS: &creds, Client: client})
	if err == nil || !strings.Contains(err.Error(), "caught") {
		t.Fatalf("error %v, want the transport's", err)
	}
	if want := "https://bedrock-runtime.eu-west-3.amazonaws.com/model/anthropic.claude-haiku-4-5-20251001-v1%3A0/converse-stream"; got != want {
		t.Errorf("sent to %s, want %s", got, want)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestAWSFromEnv(t *testing.T) {
	full := map[string]string{
		"AWS_ACCESS_KEY_ID": "AKIAEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": " token ",
		"AWS_REGION": "eu-west-3", "AWS_DEFAULT_REGION": "us-west-2",
	}
	without := func(drop ...string) map[string]string {
		m := map[string]string{}
		for k, v := range full {
			m[k] = v
		}
		for _, k := range drop {
			delete(m, k)
		}
		return m
	}
	tests := []struct {
		desc      string
		env       map[string]string
		want      AWSCredentials
		regionVar string
		wantErr   error
		wantSub   string
	}{
		{"all set", full, AWSCredentials{"AKIAEXAMPLE", "secret", "token", "eu-west-3"}, "AWS_REGION", nil, ""},
		{"default region", without("AWS_REGION", "AWS_SESSION_TOKEN"), AWSCredentials{"AKIAEXAMPLE", "secret", "", "us-west-2"}, "AWS_DEFAULT_REGION", nil, ""},
		{"no access key id", without("AWS_ACCESS_KEY_ID"), AWSCredentials{}, "", ErrNoCredentials, "record bedrock: no AWS credentials: set AWS_ACCESS_KEY_ID"},
		{"no secret", without("AWS_SECRET_ACCESS_KEY"), AWSCredentials{}, "", ErrNoCredentials, "set AWS_SECRET_ACCESS_KEY"},
		{"no region", without("AWS_REGION", "AWS_DEFAULT_REGION"), AWSCredentials{}, "", ErrNoRegion, "set AWS_REGION or AWS_DEFAULT_REGION"},
		{"bad region", map[string]string{"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b", "AWS_REGION": "US East"}, AWSCredentials{}, "", ErrNoRegion, `AWS_REGION="US East" is not a region name`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			got, regionVar, err := AWSFromEnv(func(k string) string { return tt.env[k] })
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), tt.wantSub) {
				t.Errorf("error %q does not say %q", err, tt.wantSub)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" || regionVar != tt.regionVar {
				t.Errorf("credentials (-want +got):\n%s\nregion from %q, want %q", diff, regionVar, tt.regionVar)
			}
		})
	}
}

func TestEscapeLabel(t *testing.T) {
	for in, want := range map[string]string{
		"anthropic.claude-3-5-haiku-20241022-v1:0": "anthropic.claude-3-5-haiku-20241022-v1%3A0",
		"a/b c~d_e%f":    "a%2Fb%20c~d_e%25f",
		"modèle":         "mod%C3%A8le",
		"":               "",
		"plain-model.v2": "plain-model.v2",
	} {
		if got := escapeLabel(in); got != want {
			t.Errorf("escapeLabel(%q) = %q, want %q", in, got, want)
		}
		if back, err := url.PathUnescape(escapeLabel(in)); err != nil || back != in {
			t.Errorf("escapeLabel(%q) does not unescape back: %q, %v", in, back, err)
		}
	}
}
