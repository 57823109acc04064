package record

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"pgregory.net/rapid"
)

// TestRedactManyKeysProperty plants several secrets (as a Bedrock
// recording has: access key id, secret, session token, signature), raw
// and URL-escaped, overlapping or not, in the URL, headers, form values
// and both bodies; after Redact none is left whole anywhere and both
// bodies keep their length, so chunk offsets stay true.
func TestRedactManyKeysProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		keys := rapid.SliceOfN(rapid.StringMatching(`[a-z0-9/+=]{4,12}`), 1, 5).Draw(t, "keys")
		piece := func(label string) string {
			var b strings.Builder
			for i, n := 0, rapid.IntRange(0, 6).Draw(t, label+" pieces"); i < n; i++ {
				switch rapid.IntRange(0, 3).Draw(t, label+" kind") {
				case 0:
					b.WriteString(rapid.SampledFrom(keys).Draw(t, label+" key"))
				case 1:
					b.WriteString(url.QueryEscape(rapid.SampledFrom(keys).Draw(t, label+" escaped key")))
				default:
					b.WriteString(rapid.StringMatching(`[a-z0-9 "{}:,]{0,8}`).Draw(t, label+" text"))
				}
			}
			return b.String()
		}
		i := &cassette.Interaction{
			Request: cassette.Request{
				URL:     "https://h/p?q=" + url.QueryEscape(piece("url")),
				Body:    piece("request body"),
				Headers: http.Header{"X-A": {piece("request header")}},
				Form:    url.Values{"f": {piece("form")}},
			},
			Response: cassette.Response{
				Body:    piece("response body"),
				Headers: http.Header{"X-B": {piece("response header")}},
			},
		}
		reqLen, respLen := len(i.Request.Body), len(i.Response.Body)
		Redact(i, keys...)
		fields := map[string]string{
			"URL": i.Request.URL, "request body": i.Request.Body, "response body": i.Response.Body,
			"request header": i.Request.Headers.Get("X-A"), "response header": i.Response.Headers.Get("X-B"),
			"form": i.Request.Form.Get("f"),
		}
		for where, text := range fields {
			for _, k := range keys {
				if strings.Contains(text, k) || strings.Contains(text, url.QueryEscape(k)) {
					t.Fatalf("key %q left in the %s: %q", k, where, text)
				}
			}
		}
		if len(i.Request.Body) != reqLen || len(i.Response.Body) != respLen {
			t.Fatalf("body lengths %d, %d became %d, %d", reqLen, respLen, len(i.Request.Body), len(i.Response.Body))
		}
	})
}

// FuzzEscapeLabel checks that an escaped model id holds only unreserved
// bytes and escapes, and unescapes back to the id.
func FuzzEscapeLabel(f *testing.F) {
	for _, s := range []string{
		"anthropic.claude-3-5-haiku-20241022-v1:0",
		"us.anthropic.claude-haiku-4-5-20251001-v1:0",
		"arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-opus-4-6-v1",
		"%zz", "a b/c?d#e", "\x00\xff", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := escapeLabel(s)
		for i := 0; i < len(e); i++ {
			c := e[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~%", c) >= 0) {
				t.Fatalf("escapeLabel(%q) = %q holds %q", s, e, c)
			}
		}
		back, err := url.PathUnescape(e)
		if err != nil || back != s {
			t.Fatalf("escapeLabel(%q) = %q unescapes to %q, %v", s, e, back, err)
		}
	})
}

// TestRedactEncodedKeyProperty plants one key in the bodies, the status
// line and a header value, each time in a randomly drawn encoding: raw,
// URL-escaped, JSON-escaped with \/ or with a random set of bytes as \u
// escapes in either case, or base64 in any alphabet after random bytes
// (any alignment) and before others. After Redact no encoding of the key
// that keyForms works out is left, and the bodies keep their length.
func TestRedactEncodedKeyProperty(t *testing.T) {
	encs := []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding}
	rapid.Check(t, func(t *rapid.T) {
		key := rapid.StringMatching(`[A-Za-z0-9/+=_-]{12,40}`).Draw(t, "key")
		encode := func(label string) string {
			switch rapid.IntRange(0, 4).Draw(t, label+" encoding") {
			case 0:
				return key
			case 1:
				return url.QueryEscape(key)
			case 2:
				return strings.ReplaceAll(key, "/", `\/`)
			case 3:
				var b strings.Builder
				for _, c := range []byte(key) {
					switch rapid.IntRange(0, 2).Draw(t, label+" escape") {
					case 0:
						b.WriteByte(c)
					case 1:
						fmt.Fprintf(&b, `\u%04x`, c)
					default:
						fmt.Fprintf(&b, `\u%04X`, c)
					}
				}
				return b.String()
			default:
				before := rapid.StringMatching(`[ -~]{0,5}`).Draw(t, label+" before")
				after := rapid.StringMatching(`[ -~]{0,5}`).Draw(t, label+" after")
				return rapid.SampledFrom(encs).Draw(t, label+" alphabet").EncodeToString([]byte(before + key + after))
			}
		}
		i := &cassette.Interaction{
			Request: cassette.Request{URL: "https://h/p", Body: `{"k":"` + encode("request body") + `"}`},
			Response: cassette.Response{
				Status:  "200 OK " + encode("status"),
				Body:    "data: " + encode("response body") + "\n\n",
				Headers: http.Header{"X-Echo": {encode("header")}},
			},
		}
		reqLen, respLen := len(i.Request.Body), len(i.Response.Body)
		Redact(i, key)
		for where, text := range map[string]string{"request body": i.Request.Body, "response body": i.Response.Body, "status line": i.Response.Status, "header": i.Response.Headers.Get("X-Echo")} {
			for _, f := range keyForms(key) {
				if len(f) >= 8 && strings.Contains(text, f) {
					t.Fatalf("key %q left in the %s as %q: %q", key, where, f, text)
				}
			}
		}
		if len(i.Request.Body) != reqLen || len(i.Response.Body) != respLen {
			t.Fatalf("body lengths %d, %d became %d, %d", reqLen, respLen, len(i.Request.Body), len(i.Response.Body))
		}
	})
}
