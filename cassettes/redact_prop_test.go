package cassettes

import (
	"bytes"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"pgregory.net/rapid"
)

// recase draws a random upper/lower case spelling of s.
func recase(t *rapid.T, s, label string) string {
	flips := rapid.SliceOfN(rapid.Bool(), len(s), len(s)).Draw(t, label)
	b := []byte(s)
	for k, up := range flips {
		if up {
			b[k] = bytes.ToUpper(b[k : k+1])[0]
		}
	}
	return string(b)
}

// TestRedactionProperty plants secrets under secret header and parameter
// names spelled in any case, beside harmless ones, in request and
// response; Marshal must write none of the secrets and all of the rest.
func TestRedactionProperty(t *testing.T) {
	headers, params := sortedKeys(secretHeaders), sortedKeys(secretParams)
	token := rapid.StringMatching(`[A-Za-z0-9._-]{1,24}`)
	rapid.Check(t, func(t *rapid.T) {
		reqH, respH := http.Header{}, http.Header{}
		q := url.Values{}
		var order []string
		for n := range rapid.IntRange(1, 6).Draw(t, "secret headers") {
			name := recase(t, rapid.SampledFrom(headers).Draw(t, "header"), "header case")
			v := "PLANTED" + token.Draw(t, "value")
			if n%2 == 0 {
				reqH[name] = append(reqH[name], v) // as recorded, not canonicalised
			} else {
				respH[name] = append(respH[name], v)
			}
		}
		for range rapid.IntRange(0, 4).Draw(t, "secret params") {
			name := recase(t, rapid.SampledFrom(params).Draw(t, "param"), "param case")
			q.Add(name, "PLANTED"+token.Draw(t, "param value"))
		}
		keep := "keep" + rapid.StringMatching(`[a-z0-9]{1,8}`).Draw(t, "kept")
		reqH.Set("X-Harmless", keep)
		q.Set("harmless", keep)
		for k := range q {
			order = append(order, k)
		}
		sort.Strings(order)
		var parts []string
		for _, k := range order {
			for _, v := range q[k] {
				parts = append(parts, url.QueryEscape(k)+"="+url.QueryEscape(v))
			}
		}
		c := newCassette()
		c.Interactions = append(c.Interactions, &cassette.Interaction{
			Request:  cassette.Request{Method: "POST", URL: "https://api.example.com/v1/x?" + strings.Join(parts, "&"), Headers: reqH},
			Response: cassette.Response{Code: 200, Status: "200 OK", Headers: respH, Body: "{}"},
		})
		data, err := Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte("PLANTED")) {
			t.Fatalf("a planted secret reached the output:\n%s", data)
		}
		if n := bytes.Count(data, []byte(keep)); n != 2 {
			t.Fatalf("harmless header and parameter: %d copies of %q written, want 2:\n%s", n, keep, data)
		}
	})
}

// TestBodyRedactionKeepsEverythingElse builds response bodies of harmless
// text (which can form no key shape) and key-shaped secrets set off by
// spaces, as plain text and as SSE data lines: redaction replaces each
// secret by a mask of its own length and leaves every other byte, and a
// second redaction changes nothing.
func TestBodyRedactionKeepsEverythingElse(t *testing.T) {
	shapes := []*rapid.Generator[string]{
		rapid.StringMatching(`sk-(proj-|ant-api03-)?PLANTED[A-Za-z0-9_]{9,20}`),
		rapid.StringMatching(`(AKIA|ASIA)PLANTED[0-9A-Z]{9}`),
		rapid.StringMatching(`AIzaPLANTED[0-9A-Za-z_]{13,30}`),
		rapid.StringMatching(`xai-PLANTED[A-Za-z0-9]{13,30}`),
		rapid.StringMatching(`ghp_PLANTED[A-Za-z0-9]{13,30}`),
		rapid.StringMatching(`[Bb]earer PLANTED[A-Za-z0-9._~+/=-]{13,30}`),
		rapid.StringMatching(`eyJPLANTED[A-Za-z0-9_-]{1,9}\.eyJ[A-Za-z0-9_-]{8,12}\.[A-Za-z0-9_-]{0,9}`),
	}
	harmless := rapid.StringMatching(`[ac-z0-9 ,.:{}"\[\]]{0,16}`)
	rapid.Check(t, func(t *rapid.T) {
		var in, want strings.Builder
		sse := rapid.Bool().Draw(t, "sse")
		for range rapid.IntRange(1, 8).Draw(t, "pieces") {
			if sse {
				in.WriteString("data: ")
				want.WriteString("data: ")
			}
			h := harmless.Draw(t, "text")
			in.WriteString(h)
			want.WriteString(h)
			if rapid.Bool().Draw(t, "secret here") {
				s := rapid.SampledFrom(shapes).Draw(t, "shape").Draw(t, "secret")
				in.WriteString(" " + s + " ")
				want.WriteString(" " + mask(len(s)) + " ")
			}
			if sse {
				in.WriteString("\n\n")
				want.WriteString("\n\n")
			}
		}
		i := &cassette.Interaction{Response: cassette.Response{Code: 200, Status: "200 OK", Body: in.String(),
			Headers: http.Header{"Content-Type": {"text/event-stream"}}}}
		RedactInteraction(i)
		if i.Response.Body != want.String() {
			t.Fatalf("redacted body\n%q\nwant\n%q", i.Response.Body, want.String())
		}
		once := i.Response.Body
		RedactInteraction(i)
		if i.Response.Body != once {
			t.Fatalf("second redaction changed\n%q\nto\n%q", once, i.Response.Body)
		}
	})
}
