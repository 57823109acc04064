package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/record"
	"github.com/toolconform/conform/record/recordtest"
)

// TestRecordCommand records against a loopback stand-in for the live API:
// the key comes from the environment, never reaches the file, and a second
// run without --force leaves the cassette alone.
func TestRecordCommand(t *testing.T) {
	const key = "sk-ant-conformPLANTED0123456789abcdef"
	var got []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method+" "+r.URL.Path+" key="+fmt.Sprint(r.Header.Get("x-api-key") == key))
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("x-api-key", key)
		for _, ev := range []string{
			`event: message_start` + "\n" + `data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m"}}`,
			`event: message_stop` + "\n" + `data: {"type":"message_stop","echo":"` + key + `"}`,
		} {
			fmt.Fprint(w, ev+"\n\n")
			w.(http.Flusher).Flush()
		}
	}))
	defer ts.Close()
	old := getenv
	getenv = func(k string) string {
		if k == "ANTHROPIC_API_KEY" {
			return key
		}
		return ""
	}
	defer func() { getenv = old }()

	out := filepath.Join(t.TempDir(), "rec.yaml")
	args := []string{"record", "--protocol", "anthropic", "--scenario", "anthropic/streaming/A19-interleaved-content-blocks", "--base-url", ts.URL, "-o", out}
	var stdout, stderr bytes.Buffer
	if status := Run(context.Background(), args, nil, &stdout, &stderr); status != exitOK {
		t.Fatalf("record: status %d: %s", status, stderr.String())
	}
	if len(got) != 1 || got[0] != "POST /v1/messages key=true" {
		t.Errorf("stand-in saw %q", got)
	}
	if !strings.Contains(stdout.String(), "streamed bytes in") || !strings.Contains(stdout.String(), "key from ANTHROPIC_API_KEY") {
		t.Errorf("stdout: %s", stdout.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "PLANTED") {
		t.Errorf("the cassette holds the key:\n%s", data)
	}
	if !strings.Contains(string(data), record.ChunkTimesHeader) {
		t.Errorf("the cassette has no %s header:\n%s", record.ChunkTimesHeader, data)
	}

	// No overwrite without --force, and nothing sent.
	stdout.Reset()
	stderr.Reset()
	if status := Run(context.Background(), args, nil, &stdout, &stderr); status != exitFail {
		t.Errorf("second record without --force: status %d, want %d", status, exitFail)
	}
	if len(got) != 1 {
		t.Errorf("second record without --force sent a request")
	}
	again, _ := os.ReadFile(out)
	if !bytes.Equal(again, data) {
		t.Error("the cassette changed without --force")
	}
	if status := Run(context.Background(), append(args, "--force"), nil, &stdout, &stderr); status != exitOK {
		t.Errorf("record --force: status %d: %s", status, stderr.String())
	}
	if len(got) != 2 {
		t.Errorf("record --force did not send")
	}
}

// TestRecordCommandBedrock records Bedrock ConverseStream and Converse
// through the command against a loopback stand-in that rejects a request
// whose SigV4 signature does not check (403): the credentials come from
// the AWS variables, the request is signed, and no credential, token or
// signature reaches the cassette.
func TestRecordCommandBedrock(t *testing.T) {
	creds := recordtest.Credentials{
		AccessKeyID:     "AKIACMDPLANTED000001",
		SecretAccessKey: "cmdPLANTEDsecret/K7MDENG+bPxRfiCYEXAMPLE",
		SessionToken:    "IQoJcmdPLANTEDtoken/+=0123456789",
		Region:          "ap-southeast-2",
	}
	dir := filepath.Join("..", "..", "testdata", "corpus", "bedrock")
	converse, err := os.ReadFile(filepath.Join(dir, "vercel-ai__amazon-bedrock-json-other-tool.1.json"))
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := os.ReadFile(filepath.Join(dir, "vercel-ai__amazon-bedrock-json-other-tool.1.chunks.txt"))
	if err != nil {
		t.Fatal(err)
	}
	frames, err := recordtest.ChunkFrames(chunks)
	if err != nil {
		t.Fatal(err)
	}
	b := recordtest.NewBedrock(t, recordtest.BedrockConfig{Credentials: creds, Converse: converse, Frames: frames, Pause: 2 * time.Millisecond, Echo: true})
	env := map[string]string{
		"AWS_ACCESS_KEY_ID": creds.AccessKeyID, "AWS_SECRET_ACCESS_KEY": creds.SecretAccessKey,
		"AWS_SESSION_TOKEN": creds.SessionToken, "AWS_REGION": creds.Region,
	}
	old := getenv
	getenv = func(k string) string { return env[k] }
	defer func() { getenv = old }()

	const scenario = "bedrock/streaming/C02-tool-use-without-input-deltas"
	for _, tt := range []struct {
		flag, verb, mode string
	}{
		{"--stream", "converse-stream", "streamed"},
		{"--stream=false", "converse", "whole"},
	} {
		t.Run(tt.verb, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "rec.yaml")
			before := len(b.Requests())
			var stdout, stderr bytes.Buffer
			args := []string{"record", "--protocol", "bedrock", "--scenario", scenario, "--base-url", b.URL, tt.flag, "-o", out}
			if status := Run(context.Background(), args, nil, &stdout, &stderr); status != exitOK {
				t.Fatalf("record: status %d: %s (stand-in saw %q)", status, stderr.String(), b.Requests())
			}
			seen := b.Requests()[before:]
			if len(seen) != 1 || !strings.Contains(seen[0], "/"+tt.verb+" -> 200") {
				t.Errorf("stand-in saw %q", seen)
			}
			for _, want := range []string{tt.mode + " bytes in", "SigV4-signed with AWS_ACCESS_KEY_ID and AWS_SESSION_TOKEN, region ap-southeast-2 from AWS_REGION"} {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout does not say %q: %s", want, stdout.String())
				}
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			c, err := cassettes.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			i := c.Interactions[0]
			sigs := b.Signatures()
			for _, text := range []string{string(data), i.Response.Body, i.Request.Body} {
				for _, s := range []string{"PLANTED", sigs[len(sigs)-1]} {
					if strings.Contains(text, s) {
						t.Errorf("the cassette holds %q:\n%s", s, text)
					}
				}
			}
			if !strings.Contains(i.Response.Body, "get-weather") {
				t.Errorf("the recorded body lost the call: %q", i.Response.Body)
			}
		})
	}
}
