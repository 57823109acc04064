package cassettes

import (
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// Redacted replaces a secret that cannot simply be removed.
const Redacted = "REDACTED"

// secretHeaders are removed from requests and responses, compared without
// regard to case.
var secretHeaders = map[string]bool{
	"authorization":        true,
	"proxy-authorization":  true,
	"x-api-key":            true,
	"api-key":              true,
	"x-goog-api-key":       true,
	"cookie":               true,
	"set-cookie":           true,
	"x-amz-security-token": true,
}

// secretParams are query parameters removed from URLs, compared without
// regard to case.
var secretParams = map[string]bool{
	"key":          true,
	"api_key":      true,
	"apikey":       true,
	"access_token": true,
}

// tokenPattern matches bearer-looking tokens anywhere in a URL or a header
// value: "Bearer <token>", OpenAI and Anthropic keys (sk-...), Google API
// keys (AIza...), GitHub tokens and JSON Web Tokens.
var tokenPattern = regexp.MustCompile(`(?i:bearer)(?:%20|\+|\s)+[A-Za-z0-9._~+/=-]+` +
	`|\bsk-[A-Za-z0-9_-]{16,}` +
	`|\bAIza[0-9A-Za-z_-]{20,}` +
	`|\bgh[pousr]_[A-Za-z0-9]{20,}` +
	`|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`)

// RedactInteraction removes secrets from an interaction in place: the
// secret headers of request and response, secret query parameters and
// user information in the URL, and bearer-looking tokens left in the URL
// or in any header value. It is what Import and Save apply; bodies are
// left alone, since they are what a cassette is for. It returns what it
// removed, without the values ("request header Authorization"), sorted.
func RedactInteraction(i *cassette.Interaction) []string {
	var r redactor
	i.Request.Headers = r.header("request header", i.Request.Headers)
	i.Response.Headers = r.header("response header", i.Response.Headers)
	i.Request.Trailer = r.header("request trailer", i.Request.Trailer)
	i.Response.Trailer = r.header("response trailer", i.Response.Trailer)
	i.Request.URL = r.url(i.Request.URL)
	i.Request.RequestURI = r.url(i.Request.RequestURI)
	if i.Request.Form != nil {
		form := make(url.Values, len(i.Request.Form)) // a new map: i may be a shallow copy
		for k, vs := range i.Request.Form {
			if secretParams[strings.ToLower(k)] {
				r.add("form value " + k)
				continue
			}
			form[k] = vs
		}
		i.Request.Form = form
	}
	return r.list()
}

// RedactRequest returns a redacted clone of r; r itself is not changed.
// Its body is shared with r, not read.
func RedactRequest(r *http.Request) *http.Request {
	var rd redactor
	c := r.Clone(r.Context())
	c.Header = rd.header("request header", c.Header)
	if c.URL != nil {
		if u, err := url.Parse(rd.url(c.URL.String())); err == nil {
			c.URL = u
		}
	}
	c.RequestURI = rd.url(c.RequestURI)
	return c
}

// RedactHook returns a recorder option that redacts every interaction
// before go-vcr saves it. The recorder hands hooks its own copy of the
// request, so the request sent upstream keeps its credentials.
func RedactHook() recorder.Option {
	return recorder.WithHook(func(i *cassette.Interaction) error {
		RedactInteraction(i)
		return nil
	}, recorder.BeforeSaveHook)
}

// RedactURL removes user information and secret query parameters from a
// URL and masks bearer-looking tokens in what is left. The order and the
// spelling of the other query parameters are kept. A string that does not
// parse as a URL loses its secret parameters and tokens all the same.
func RedactURL(raw string) string {
	var r redactor
	return r.url(raw)
}

// redactor redacts and remembers what it removed.
type redactor struct {
	done map[string]bool
}

func (r *redactor) add(what string) {
	if r.done == nil {
		r.done = map[string]bool{}
	}
	r.done[what] = true
}

func (r *redactor) list() []string {
	out := make([]string, 0, len(r.done))
	for what := range r.done {
		out = append(out, what)
	}
	sort.Strings(out)
	return out
}

// mask replaces bearer-looking tokens in s.
func (r *redactor) mask(where, s string) string {
	out := tokenPattern.ReplaceAllString(s, Redacted)
	if out != s {
		r.add("token in " + where)
	}
	return out
}

// header returns h without secret headers and with tokens masked in the
// values it keeps. It returns a new map; h is not changed.
func (r *redactor) header(where string, h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		if secretHeaders[strings.ToLower(k)] {
			r.add(where + " " + k)
			continue
		}
		kept := make([]string, len(vs))
		for n, v := range vs {
			kept[n] = r.mask(where+" "+k, v)
		}
		out[k] = kept
	}
	return out
}

// secretParamPattern finds secret query parameters in a string that does
// not parse as a URL.
var secretParamPattern = regexp.MustCompile(`(?i)([?&;])(?:key|api_key|api%5fkey|apikey|access_token)=[^&#]*`)

// url redacts one URL. Masking a token can make a URL that did not parse
// parse (and be normalised), so it repeats until nothing changes.
func (r *redactor) url(raw string) string {
	for range 8 {
		out := r.urlOnce(raw)
		if out == raw {
			break
		}
		raw = out
	}
	return raw
}

// urlOnce redacts one URL once.
func (r *redactor) urlOnce(raw string) string {
	if raw == "" {
		return raw
	}
	u, err := url.Parse(raw)
	if err == nil {
		if u.User != nil {
			u.User = nil
			r.add("URL user information")
		}
		if u.RawQuery != "" {
			var kept []string
			for _, pair := range strings.Split(u.RawQuery, "&") {
				name, _, _ := strings.Cut(pair, "=")
				if n, err := url.QueryUnescape(name); err == nil {
					name = n
				}
				if secretParams[strings.ToLower(name)] {
					r.add("URL query parameter " + name)
					continue
				}
				kept = append(kept, pair)
			}
			u.RawQuery = strings.Join(kept, "&")
		}
		raw = u.String()
	} else if out := secretParamPattern.ReplaceAllString(raw, "${1}"+Redacted); out != raw {
		r.add("URL query parameter")
		raw = out
	}
	return r.mask("URL", raw)
}
