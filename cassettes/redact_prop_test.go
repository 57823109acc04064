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
