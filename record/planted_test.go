package record

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/toolconform/conform/cassettes"
)

// The keys record sends in TestPlantedSecrets: one with '/', '+' and '='
// so that every escape changes it, and one of only header-name bytes for
// the placements in header names. Neither has a shape the importer's
// redaction knows, so only record's own scrub of the key it sent can
// remove them.
const (
	escKey  = "PLANTED-rec/key+0123456789=abcdefXYZ"
	nameKey = "conformPLANTEDname0123456789abcdef"
)

// recordedToolCall is the SSE event every answer carries; it must be in
// the cassette intact.
const recordedToolCall = `data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]}}]}` + "\n\n"

// echo is what the stand-in answers for one placement: the reason phrase
// of its status line, extra header lines and extra body text.
type echo struct {
	reason  string
	headers [][2]string
	body    string
}

// recPlacement puts the key record sent somewhere in the exchange.
type recPlacement struct {
	name string
	key  string
	// base adds to the base URL (query, user information); header adds
	// request headers; answer builds the stand-in's echo of the key.
	base   func(u *url.URL, k string)
	header func(h http.Header, k string)
	answer func(k string) echo
}

func b64(enc *base64.Encoding, s string) string { return enc.EncodeToString([]byte(s)) }

// uEscape writes every byte of s as a JSON \u escape, with the hex digits
// in the case given; every is 1 for all bytes, 2 for every other one.
func uEscape(s, format string, every int) string {
	var b strings.Builder
	for n, c := range []byte(s) {
		if n%every == 0 {
			fmt.Fprintf(&b, format, c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func jsonString(s string) string {
	data, _ := json.Marshal(s)
	return string(data)
}

func inBody(f func(k string) string) func(string) echo {
	return func(k string) echo {
		return echo{reason: "OK", body: `data: {"object":"chat.completion.chunk","echo":"` + f(k) + `"}` + "\n\n"}
	}
}

func inReason(f func(k string) string) func(string) echo {
	return func(k string) echo { return echo{reason: "OK " + f(k)} }
}

func inHeader(name string, f func(k string) string) func(string) echo {
	return func(k string) echo { return echo{reason: "OK", headers: [][2]string{{name, f(k)}}} }
}

func headerNamed(f func(k string) string) func(string) echo {
	return func(k string) echo { return echo{reason: "OK", headers: [][2]string{{f(k), "1"}}} }
}

func raw(k string) string { return k }

// recordPlacements lists every place and encoding in which a server can
// echo, or the caller can put, the key record sends.
func recordPlacements() []recPlacement {
	lowerURL := func(k string) string {
		return strings.NewReplacer("%2F", "%2f", "%2B", "%2b", "%3D", "%3d").Replace(url.QueryEscape(k))
	}
	slash := func(k string) string { return strings.ReplaceAll(k, "/", `\/`) }
	return []recPlacement{
		{name: "status line raw after Bearer", key: escKey, answer: inReason(func(k string) string { return "Bearer " + k })},
		{name: "status line URL-escaped", key: escKey, answer: inReason(url.QueryEscape)},
		{name: "status line base64", key: escKey, answer: inReason(func(k string) string { return b64(base64.StdEncoding, k) })},
		{name: "status line JSON \\/", key: escKey, answer: inReason(slash)},
		{name: "status line \\u-escaped", key: escKey, answer: inReason(func(k string) string { return uEscape(k, `\u%04x`, 1) })},
		{name: "response header value raw", key: escKey, answer: inHeader("X-Echo", raw)},
		{name: "response header value URL-escaped", key: escKey, answer: inHeader("X-Echo", url.QueryEscape)},
		{name: "response header value base64", key: escKey, answer: inHeader("X-Echo", func(k string) string { return b64(base64.StdEncoding, k) })},
		{name: "response header value Basic user:key", key: escKey, answer: inHeader("X-Echo-Auth", func(k string) string { return "Basic " + b64(base64.StdEncoding, "user:"+k) })},
		{name: "response header value \\u-escaped", key: escKey, answer: inHeader("X-Echo", func(k string) string { return uEscape(k, `\u%04X`, 1) })},
		{name: "response header Location with the key in the query", key: escKey, answer: inHeader("Location", func(k string) string { return "http://127.0.0.1/next?state=" + url.QueryEscape(k) })},
		{name: "response header name", key: nameKey, answer: headerNamed(func(k string) string { return "X-" + k })},
		{name: "response header name lower case", key: nameKey, answer: headerNamed(func(k string) string { return "x-echo-" + strings.ToLower(k) })},
		{name: "response header name base64url", key: nameKey, answer: headerNamed(func(k string) string { return "X-" + b64(base64.RawURLEncoding, k) })},
		{name: "response body raw", key: escKey, answer: inBody(raw)},
		{name: "response body JSON \\/", key: escKey, answer: inBody(slash)},
		{name: "response body \\u-escaped lower hex", key: escKey, answer: inBody(func(k string) string { return uEscape(k, `\u%04x`, 1) })},
		{name: "response body \\u-escaped upper hex", key: escKey, answer: inBody(func(k string) string { return uEscape(k, `\u%04X`, 1) })},
		{name: "response body every other byte \\u-escaped", key: escKey, answer: inBody(func(k string) string { return uEscape(k, `\u%04x`, 2) })},
		{name: "response body JSON inside JSON", key: escKey, answer: inBody(func(k string) string {
			inner := jsonString(`{"key":"` + slash(k) + `"}`)
			return inner[1 : len(inner)-1]
		})},
		{name: "response body URL-escaped", key: escKey, answer: inBody(url.QueryEscape)},
		{name: "response body URL-escaped lower hex", key: escKey, answer: inBody(lowerURL)},
		{name: "response body path-escaped", key: escKey, answer: inBody(url.PathEscape)},
		{name: "response body base64 std", key: escKey, answer: inBody(func(k string) string { return b64(base64.StdEncoding, k) })},
		{name: "response body base64 url", key: escKey, answer: inBody(func(k string) string { return b64(base64.URLEncoding, k) })},
		{name: "response body base64 raw std", key: escKey, answer: inBody(func(k string) string { return b64(base64.RawStdEncoding, k) })},
		{name: "response body base64 raw url", key: escKey, answer: inBody(func(k string) string { return b64(base64.RawURLEncoding, k) })},
		{name: "response body base64 one byte in", key: escKey, answer: inBody(func(k string) string { return b64(base64.StdEncoding, "x"+k) })},
		{name: "response body base64 two bytes in", key: escKey, answer: inBody(func(k string) string { return b64(base64.URLEncoding, "xy"+k+"z") })},
		{name: "response body base64 of a JSON document", key: escKey, answer: inBody(func(k string) string { return b64(base64.StdEncoding, `{"api_key":"`+k+`","n":1}`) })},
		{name: "response body base64 with \\/ escapes", key: escKey, answer: inBody(func(k string) string { return slash(b64(base64.StdEncoding, "ab"+k)) })},
		{name: "response body api_key field", key: escKey, answer: func(k string) echo {
			return echo{reason: "OK", body: `data: {"object":"chat.completion.chunk","error":{"api_key":` + jsonString(k) + `}}` + "\n\n"}
		}},
		{name: "response body in an SSE event line", key: escKey, answer: func(k string) echo { return echo{reason: "OK", body: "event: " + k + "\n" + "data: {}\n\n"} }},
		{name: "response body in tool call arguments", key: escKey, answer: inBody(func(k string) string { return `{\"token\":\"` + slash(k) + `\"}` })},
		{name: "base URL query api-key", key: escKey, base: func(u *url.URL, k string) { u.RawQuery = "api-key=" + url.QueryEscape(k) }, answer: inBody(func(string) string { return "" })},
		{name: "base URL query sig", key: escKey, base: func(u *url.URL, k string) { u.RawQuery = "sig=" + url.QueryEscape(k) + "&sv=2024" }, answer: inBody(func(string) string { return "" })},
		{name: "base URL query harmless name", key: escKey, base: func(u *url.URL, k string) { u.RawQuery = "state=" + url.QueryEscape(k) }, answer: inBody(func(string) string { return "" })},
		{name: "base URL user information", key: escKey, base: func(u *url.URL, k string) { u.User = url.UserPassword("me", k) }, answer: inBody(func(string) string { return "" })},
		{name: "request header harmless name", key: escKey, header: func(h http.Header, k string) { h.Set("X-Note", k) }, answer: inBody(func(string) string { return "" })},
		{name: "request header base64 value", key: escKey, header: func(h http.Header, k string) { h.Set("X-Note", b64(base64.StdEncoding, k)) }, answer: inBody(func(string) string { return "" })},
		{name: "request header Cookie", key: escKey, header: func(h http.Header, k string) { h.Set("Cookie", "s="+url.QueryEscape(k)) }, answer: inBody(func(string) string { return "" })},
		{name: "request header name", key: nameKey, header: func(h http.Header, k string) { h["x-"+k] = []string{"1"} }, answer: inBody(func(string) string { return "" })},
		{name: "everything at once", key: escKey, header: func(h http.Header, k string) { h.Set("X-Note", k) }, answer: func(k string) echo {
			return echo{reason: "OK Bearer " + k, headers: [][2]string{{"X-Echo", url.QueryEscape(k)}}, body: "data: " + jsonString(uEscape(k, `\u%04x`, 2)) + "\n\n" + "data: " + b64(base64.StdEncoding, k) + "\n\n"}
		}},
	}
}

// rawStandIn is a loopback HTTP server that writes its answers byte by
// byte, as net/http's server would not: a reason phrase of its own and any
// header name. It checks that the key came in the Authorization header.
func rawStandIn(t *testing.T, key string, answer echo) string {
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
				var b strings.Builder
				b.WriteString("HTTP/1.1 200 " + answer.reason + "\r\nContent-Type: text/event-stream\r\nConnection: close\r\n")
				for _, h := range answer.headers {
					b.WriteString(h[0] + ": " + h[1] + "\r\n")
				}
				b.WriteString("\r\n" + recordedToolCall + answer.body)
				io.WriteString(conn, b.String())
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// keyForms returns the encodings of k looked for in a saved cassette,
// worked out here independently of the scrubber: raw, URL- and
// path-escaped, JSON-escaped with \/, fully \u-escaped, and base64 in
// both alphabets, padded or not and one or two bytes into a group (the
// characters that depend on k alone).
func keyForms(k string) []string {
	forms := []string{k, url.QueryEscape(k), url.PathEscape(k), strings.ReplaceAll(k, "/", `\/`), uEscape(k, `\u%04x`, 1)}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		forms = append(forms, b64(enc, k))
		one, two := b64(enc, "\x00"+k), b64(enc, "\x00\x00"+k)
		forms = append(forms, one[2:len(one)-4], two[3:len(two)-4])
	}
	return forms
}

// TestPlantedSecrets records, from a raw loopback stand-in, an answer
// echoing the key record sent in each place and encoding of the table (or
// with the key put in the base URL or a request header), saves the
// cassette with Save, and reads it back: no encoding of the key is in the
// file or in any field read from it, and the recorded tool call is intact.
func TestPlantedSecrets(t *testing.T) {
	table := recordPlacements()
	if len(table) < 40 {
		t.Fatalf("%d placements, want at least 40", len(table))
	}
	dir := t.TempDir()
	for n, p := range table {
		t.Run(p.name, func(t *testing.T) {
			answer := p.answer(p.key)
			base, err := url.Parse(rawStandIn(t, p.key, answer))
			if err != nil {
				t.Fatal(err)
			}
			if p.base != nil {
				p.base(base, p.key)
			}
			header := http.Header{}
			if p.header != nil {
				p.header(header, p.key)
			}
			opts := Options{Protocol: "openai-chat", Request: simpleRequest(), Stream: true, BaseURL: base.String(), Key: p.key, Header: header}
			c, err := Record(context.Background(), opts)
			if err != nil {
				t.Fatalf("Record: %v", err)
			}
			path := filepath.Join(dir, fmt.Sprintf("%02d.yaml", n))
			if err := Save(c, path, false, opts.Secrets()...); err != nil {
				t.Fatalf("Save: %v", err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			back, err := cassettes.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			i := back.Interactions[0]
			var names, values strings.Builder
			for _, h := range []http.Header{i.Request.Headers, i.Response.Headers} {
				for k, vs := range h {
					names.WriteString(k + "\n")
					values.WriteString(strings.Join(vs, "\n") + "\n")
				}
			}
			texts := map[string]string{
				"file": string(data), "URL": i.Request.URL, "status line": i.Response.Status,
				"request body": i.Request.Body, "response body": i.Response.Body,
				"header names": names.String(), "header values": values.String(),
			}
			for where, text := range texts {
				low := strings.ToLower(text)
				for _, f := range append(keyForms(p.key), "PLANTED") {
					if strings.Contains(low, strings.ToLower(f)) {
						t.Errorf("the cassette's %s holds the key as %q:\n%s", where, f, text)
					}
				}
			}
			if !strings.HasPrefix(i.Response.Body, recordedToolCall) {
				t.Errorf("the recorded tool call did not survive:\n%s", i.Response.Body)
			}
			if len(i.Response.Body) != len(recordedToolCall+answer.body) {
				t.Errorf("response body of %d bytes, %d sent: masks must keep the length", len(i.Response.Body), len(recordedToolCall+answer.body))
			}
		})
	}
}

// TestSaveRefusesALeak hands Save a cassette with the key left in it, as a
// scrub that missed one would: Save refuses it, names the place and not
// the key, leaves no file (and an existing one unchanged) and no
// temporary file.
func TestSaveRefusesALeak(t *testing.T) {
	leaky := func(body string) *cassette.Cassette {
		c := cassette.New("")
		c.AddInteraction(&cassette.Interaction{
			Request:  cassette.Request{Method: "POST", URL: "https://api.example.com/v1/chat/completions"},
			Response: cassette.Response{Code: 200, Status: "200 OK", Body: body, Headers: http.Header{"Content-Type": {"application/json"}}},
		})
		return c
	}
	tests := map[string]string{
		"raw":         `{"echo":"` + escKey + `"}`,
		"\\u":         `{"echo":"` + uEscape(escKey, `\u%04x`, 2) + `"}`,
		"base64":      `{"echo":"` + b64(base64.StdEncoding, "a"+escKey) + `"}`,
		"binary":      "\x00\x01" + escKey + "\xff", // written as !!binary, base64 in the file
		"URL-escaped": `{"echo":"` + url.QueryEscape(escKey) + `"}`,
	}
	for name, body := range tests {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "c.yaml")
			err := Save(leaky(body), path, false, escKey)
			if !errors.Is(err, ErrSecretLeft) {
				t.Fatalf("Save: %v, want ErrSecretLeft", err)
			}
			if !strings.Contains(err.Error(), "response body") || strings.Contains(err.Error(), "PLANTED") {
				t.Errorf("error %q should name the place and not the key", err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("files left: %v", entries)
			}
			if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := Save(leaky(body), path, true, escKey); !errors.Is(err, ErrSecretLeft) {
				t.Fatalf("forced Save: %v, want ErrSecretLeft", err)
			}
			if got, _ := os.ReadFile(path); string(got) != "old" {
				t.Errorf("a refused forced save replaced the file with %q", got)
			}
		})
	}
}

// TestRefusalShowsNoKey answers 401 with the key in the reason phrase and
// astride the 300th byte of the body, where the error message cuts it: the
// error shows neither the key nor a piece of it.
func TestRefusalShowsNoKey(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		req, err := http.ReadRequest(bufio.NewReader(conn))
		if err != nil {
			return
		}
		io.Copy(io.Discard, req.Body)
		body := strings.Repeat("x", 290) + escKey + " and " + url.QueryEscape(escKey)
		io.WriteString(conn, "HTTP/1.1 401 Denied "+escKey+"\r\nConnection: close\r\n\r\n"+body)
	}()
	_, err = Record(context.Background(), Options{Protocol: "openai-chat", Request: simpleRequest(), BaseURL: "http://" + ln.Addr().String(), Key: escKey})
	if !errors.Is(err, ErrStatus) {
		t.Fatalf("Record: %v, want ErrStatus", err)
	}
	if strings.Contains(err.Error(), "PLANTED") || strings.Contains(err.Error(), escKey[:6]) {
		t.Errorf("the error shows the key or a piece of it: %v", err)
	}
	if !strings.Contains(err.Error(), "401 Denied REDACTED") {
		t.Errorf("the error does not give the status: %v", err)
	}
}
