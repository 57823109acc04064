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

	"github.com/toolconform/conform/record"
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
