package record

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/zlib"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
)

// deltaEcho returns SSE events that carry text in content deltas of n
// bytes, as a server streams an answer that quotes the key.
func deltaEcho(text string, n int) string {
	var b strings.Builder
	for len(text) > 0 {
		k := min(n, len(text))
		piece, _ := json.Marshal(text[:k])
		text = text[k:]
		b.WriteString(`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":` + string(piece) + `}}]}` + "\n\n")
	}
	b.WriteString(`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n")
	return b.String()
}

// encodedStandIn is a loopback server that answers with the tool call and
// body, compressed as coding says ("" for none) with that
// Content-Encoding whether or not the client asked for it.
func encodedStandIn(t *testing.T, key, body, coding string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				req, err := http.ReadRequest(bufio.NewReader(conn))
				if err != nil {
					return
				}
				io.Copy(io.Discard, req.Body)
				if req.Header.Get("Authorization") != "Bearer "+key {
					io.WriteString(conn, "HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\nno key")
					return
				}
				payload := recordedToolCall + body
				var z bytes.Buffer
				header := ""
				switch coding {
				case "deflate":
					zw := zlib.NewWriter(&z)
					zw.Write([]byte(payload))
					zw.Close()
					payload, header = z.String(), "Content-Encoding: deflate\r\n"
				case "raw deflate":
					zw, _ := flate.NewWriter(&z, flate.BestSpeed)
					zw.Write([]byte(payload))
					zw.Close()
					payload, header = z.String(), "Content-Encoding: deflate\r\n"
				}
				io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n"+header+"\r\n"+payload)
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// TestRecordDecodedEchoes records answers that echo the key where only a
// decoded view shows it: cut into 1- and 4-byte SSE deltas, and inside a
// deflate body the client did not ask for. The saved cassette, decoded by
// the openai-chat adapter as `conform decode` would, holds no piece of the
// key in its text, and the raw cassette holds no encoding of it.
func TestRecordDecodedEchoes(t *testing.T) {
	tests := []struct {
		name, body, coding string
	}{
		{"1-byte deltas", deltaEcho("your key is "+escKey+" as sent", 1), ""},
		{"4-byte deltas", deltaEcho("your key is "+escKey+" as sent", 4), ""},
		{"unrequested deflate body", deltaEcho("key "+escKey, 64), "deflate"},
		{"unrequested raw deflate body in 1-byte deltas", deltaEcho("key "+escKey, 1), "raw deflate"},
	}
	dir := t.TempDir()
	for n, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := encodedStandIn(t, escKey, tc.body, tc.coding)
			opts := Options{Protocol: "openai-chat", Request: simpleRequest(), Stream: true, BaseURL: base, Key: escKey}
			c, err := Record(context.Background(), opts)
			if err != nil {
				t.Fatalf("Record: %v", err)
			}
			path := filepath.Join(dir, string(rune('a'+n))+".yaml")
			if err := Save(c, path, false, opts.Secrets()...); err != nil {
				t.Fatalf("Save: %v", err)
			}
			back, err := cassettes.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			i := back.Interactions[0]
			body := i.Response.Body
			if tc.coding != "" {
				if got := i.Response.Headers.Get("Content-Encoding"); got != "deflate" {
					t.Fatalf("Content-Encoding %q, want deflate as recorded", got)
				}
				zr, err := zlib.NewReader(strings.NewReader(body))
				var plain []byte
				if err == nil {
					plain, err = io.ReadAll(zr)
				}
				if err != nil {
					plain, err = io.ReadAll(flate.NewReader(strings.NewReader(body)))
				}
				if err != nil {
					t.Fatalf("the saved deflate body does not inflate: %v", err)
				}
				body = string(plain)
			}
			if !strings.HasPrefix(body, recordedToolCall) {
				t.Errorf("the recorded tool call did not survive:\n%s", body)
			}
			a, err := providers.Lookup("openai-chat")
			if err != nil {
				t.Fatal(err)
			}
			resp, err := core.Collect(a.DecodeStream(strings.NewReader(body)))
			if err != nil {
				t.Fatalf("decode the saved body: %v", err)
			}
			decoded, _ := json.Marshal(resp)
			for _, f := range append(keyForms(escKey), "PLANTED") {
				if strings.Contains(strings.ToLower(string(decoded)), strings.ToLower(f)) {
					t.Errorf("decoding the saved cassette shows the key as %q:\n%s", f, decoded)
				}
			}
			if calls := resp.Calls(); len(calls) != 1 || calls[0].Name != "get_weather" {
				t.Errorf("decoded calls %+v, want the recorded get_weather call", resp.Calls())
			}
		})
	}
}
