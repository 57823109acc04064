package cassettes

import (
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// Redacted replaces a secret that cannot simply be removed.
const Redacted = "REDACTED"

// secretHeaders are header names that hold credentials or identify the
// account, removed from requests and responses whatever their case, beside
// any name secretName finds.
var secretHeaders = map[string]bool{
	"authorization":             true,
	"proxy-authorization":       true,
	"x-api-key":                 true,
	"api-key":                   true,
	"x-goog-api-key":            true,
	"cookie":                    true,
	"set-cookie":                true,
	"x-amz-security-token":      true,
	"x-auth-token":              true,
	"openai-organization":       true,
	"openai-project":            true,
	"anthropic-organization-id": true,
	"ocp-apim-subscription-key": true,
}

// secretParams are query parameters removed from URLs (and form fields from
// form bodies) whatever their case, beside any name secretName finds.
var secretParams = map[string]bool{
	"key":                  true,
	"api_key":              true,
	"apikey":               true,
	"api-key":              true,
	"access_token":         true,
	"token":                true,
	"sig":                  true,
	"signature":            true,
	"x-amz-credential":     true,
	"x-amz-signature":      true,
	"x-amz-security-token": true,
	"x-goog-credential":    true,
	"x-goog-signature":     true,
	"auth":                 true,
}

// secretNames are names, lower case without '-', '_', '.' or spaces, that
// hold a credential wherever they name something: a header, a query
// parameter, a form field or a JSON field.
var secretNames = map[string]bool{
	"apikey": true, "xapikey": true, "xgoogapikey": true, "accesstoken": true, "authtoken": true,
	"xauthtoken": true, "authorization": true, "proxyauthorization": true, "bearer": true,
	"password": true, "passwd": true, "secret": true, "clientsecret": true, "apisecret": true,
	"secretkey": true, "secretaccesskey": true, "awssecretaccesskey": true, "accesskeyid": true,
	"awsaccesskeyid": true, "sessiontoken": true, "awssessiontoken": true, "securitytoken": true,
	"xamzsecuritytoken": true, "xamzcredential": true, "xamzsignature": true, "xgoogcredential": true,
	"xgoogsignature": true, "refreshtoken": true, "idtoken": true, "privatekey": true, "cookie": true,
	"setcookie": true, "openaiorganization": true, "openaiproject": true, "anthropicorganizationid": true,
	"subscriptionkey": true, "ocpapimsubscriptionkey": true,
}

// secretSuffixes end names that hold a credential ("X-Custom-Api-Key",
// "client_secret", "aws_session_token"), written with or without
// separators.
var secretSuffixes = []string{"apikey", "secret", "password", "authorization",
	"accesstoken", "authtoken", "apitoken", "sessiontoken", "securitytoken", "refreshtoken", "bearertoken"}

// normName returns a name lower case without '-', '_', '.' or spaces.
func normName(name string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', '.', ' ':
			return -1
		}
		return unicode.ToLower(r)
	}, name)
}

// secretName reports whether a header, query parameter or form field
// called name holds a credential (see credentialName).
func secretName(name string) bool { return credentialName(name, false) }

// secretHeader reports whether a header called name is removed: a name of
// secretHeaders or secretName, or one holding a key-shaped value.
func secretHeader(name string) bool {
	return secretHeaders[strings.ToLower(name)] || secretName(name) || nameTokenPattern.MatchString(name)
}

// secretParam reports whether a query parameter or form field called name
// is removed.
func secretParam(name string) bool {
	return secretParams[strings.ToLower(name)] || secretName(name)
}

// secretJSONField reports whether a JSON field called name holds a
// credential.
func secretJSONField(name string) bool { return credentialName(name, true) }

// keyShapes are the shapes of known credentials: OpenAI and Anthropic keys
// (sk-, sk-ant-, sk-proj-), AWS access key ids (AKIA, ASIA), Google API
// keys (AIza), xAI (xai-), GitHub, Slack, Hugging Face, Groq, Replicate,
// Perplexity and Stripe tokens, and JSON Web Tokens.
const keyShapes = `sk-[A-Za-z0-9_-]{16,}` +
	`|(?:AKIA|ASIA|AIDA|AROA)[0-9A-Z]{16}` +
	`|AIza[0-9A-Za-z_-]{20,}` +
	`|xai-[A-Za-z0-9]{20,}` +
	`|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}` +
	`|xox[abprs]-[A-Za-z0-9-]{10,}` +
	`|hf_[A-Za-z0-9]{30,}|gsk_[A-Za-z0-9]{20,}|r8_[A-Za-z0-9]{20,}|pplx-[A-Za-z0-9]{20,}` +
	`|[rs]k_(?:live|test)_[A-Za-z0-9]{16,}` +
	`|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`

// tokenBoundary is what may come before a key-shaped value: the start, a
// byte that is not a letter or digit, or an escape (%20, \n, \u0022), so
// that "task-..." is not taken for "sk-...".
const tokenBoundary = `(^|[^A-Za-z0-9]|%[0-9A-Fa-f]{2}|\\[nrt]|\\u[0-9A-Fa-f]{4})`

// tokenPattern finds key-shaped values and "Bearer <token>" in URLs, header
// values and status lines; group 1 is the boundary before.
var tokenPattern = regexp.MustCompile(tokenBoundary + `((?i:bearer)(?:%20|\+|\s)+[A-Za-z0-9._~+/=-]+|` + keyShapes + `)`)

// bodyTokenPattern is tokenPattern for bodies, where "Bearer" is also an
// English word: there only a token of 20 bytes or more after it is taken.
var bodyTokenPattern = regexp.MustCompile(tokenBoundary + `((?i:bearer)(?:%20|\+|\s)+[A-Za-z0-9._~+/=-]{20,}|` + keyShapes + `)`)

// nameTokenPattern finds a key-shaped value or a bearer token in a name
// (of a header, a query parameter, a form field), which HTTP readers may
// recase ("Sk-Proj-...").
var nameTokenPattern = regexp.MustCompile(`(?i)` + tokenBoundary + `(bearer(?:%20|\+|\s)+[A-Za-z0-9._~+/=-]+|` + keyShapes + `)`)

// RedactInteraction removes secrets from an interaction in place: headers
// named like credentials (in any case, and any header whose name holds a
// key-shaped value) from requests and responses, user information and
// query parameters named like credentials from the URL, form fields named
// like credentials, JSON fields named like credentials in bodies, and
// key-shaped values anywhere: URL, header values, status line and bodies
// (see doc.go). In a body a value becomes a mask of its own length, so
// that byte offsets stay true; the rest of the body is left byte for byte.
// It is what Import and Save apply. It returns what it removed, without
// the values ("request header Authorization"), sorted.
func RedactInteraction(i *cassette.Interaction) []string {
	var r redactor
	return r.interaction(i)
}

// RedactInteractionWith is RedactInteraction that also removes every
// encoding of each of secrets (the keys a process knows) wherever one
// can sit, decoded views of the bodies included: inside compressed
// bodies, base64 strings and JSON strings, and across the deltas of a
// stream. Secrets shorter than four bytes are left to the rest.
func RedactInteractionWith(i *cassette.Interaction, secrets ...string) []string {
	m := newSecretMatcher(secrets...)
	r := redactor{known: m}
	notes := r.interaction(i)
	m.scrubInteraction(i)
	return notes
}

// interaction redacts i in place and returns what it removed.
func (r *redactor) interaction(i *cassette.Interaction) []string {
	i.Request.Headers = r.header("request header", i.Request.Headers)
	i.Response.Headers = r.header("response header", i.Response.Headers)
	i.Request.Trailer = r.header("request trailer", i.Request.Trailer)
	i.Response.Trailer = r.header("response trailer", i.Response.Trailer)
	i.Request.URL = r.url(i.Request.URL)
	i.Request.RequestURI = r.url(i.Request.RequestURI)
	i.Request.Host = r.mask("request host", i.Request.Host)
	i.Request.RemoteAddr = r.mask("remote address", i.Request.RemoteAddr)
	i.Request.Method = r.mask("method", i.Request.Method)
	i.Request.Proto = r.mask("request protocol", i.Request.Proto)
	i.Response.Proto = r.mask("response protocol", i.Response.Proto)
	i.Response.Status = r.mask("status line", i.Response.Status)
	i.Request.TransferEncoding = r.strings("request transfer encoding", i.Request.TransferEncoding)
	i.Response.TransferEncoding = r.strings("response transfer encoding", i.Response.TransferEncoding)
	if i.Request.Form != nil {
		form := make(url.Values, len(i.Request.Form)) // a new map: i may be a shallow copy
		for k, vs := range i.Request.Form {
			if secretParam(k) || nameTokenPattern.MatchString(k) {
				r.add("form value " + k) // add masks a name that is a token
				continue
			}
			kept := make([]string, len(vs))
			for n, v := range vs {
				kept[n] = r.mask("form value "+k, v)
			}
			form[k] = kept
		}
		i.Request.Form = form
	}
	i.Request.Body = r.body("request body", i.Request.Body, i.Request.Headers)
	i.Response.Body = r.body("response body", i.Response.Body, i.Response.Headers)
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
	// known finds the secrets the process knows, in every encoding.
	known *secretMatcher
	// removed holds the values removed by name (header, field,
	// parameter), which are looked for everywhere else.
	removed map[string]bool
	// views, when set, collects every decoded text the redactor reads.
	views *[]string
	// inflated counts the bytes decompressed so far.
	inflated int
}

// Limits of what a redactor remembers and inflates: removed values
// shorter than minRemembered could be ordinary text; at most maxRemembered
// values of at most maxRememberedLen bytes are looked for elsewhere, since
// each one grows the pattern every text is matched against; bodies inside
// one cassette are inflated up to maxInflated bytes in all, beside
// MaxBodySize for each.
const (
	minRemembered    = 8
	maxRemembered    = 64
	maxRememberedLen = 4 << 10
	maxInflated      = MaxBodySize
)

// remember keeps a value removed by name, to be looked for everywhere
// else in the cassette.
func (r *redactor) remember(v string) {
	v = strings.TrimSpace(v)
	if len(v) < minRemembered || len(v) > maxRememberedLen || isMask(v) || strings.Contains(v, Redacted) || len(r.removed) >= maxRemembered {
		return
	}
	if r.removed == nil {
		r.removed = map[string]bool{}
	}
	r.removed[v] = true
	if _, token, ok := strings.Cut(v, " "); ok && len(token) >= minRemembered {
		r.removed[token] = true // "Bearer <token>": the token alone
	}
}

// add notes what was removed. A name in the note that is itself a token
// is masked, so that a note never shows a secret.
func (r *redactor) add(what string) {
	what = nameTokenPattern.ReplaceAllString(what, "${1}"+Redacted)
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

// strings masks each of ss; it returns a new slice when one changed.
func (r *redactor) strings(where string, ss []string) []string {
	var out []string
	for n, s := range ss {
		if m := r.mask(where, s); m != s {
			if out == nil {
				out = append([]string(nil), ss...)
			}
			out[n] = m
		}
	}
	if out == nil {
		return ss
	}
	return out
}

// mask replaces key-shaped values and bearer tokens in s.
func (r *redactor) mask(where, s string) string {
	out := tokenPattern.ReplaceAllString(s, "${1}"+Redacted)
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
		if secretHeader(k) {
			for _, v := range vs {
				r.remember(v)
			}
			if nameTokenPattern.MatchString(k) {
				r.add(where + " named by a token")
			} else {
				r.add(where + " " + k)
			}
			continue
		}
		kept := make([]string, len(vs))
		for n, v := range vs {
			if lower := strings.ToLower(v); strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") {
				v = r.url(v) // a Location, say, with a signed query
			}
			kept[n] = r.mask(where+" "+k, v)
		}
		out[k] = kept
	}
	return out
}

// paramPattern finds query parameters in a string that does not parse as
// a URL; group 1 is the separator before, group 2 the name.
var paramPattern = regexp.MustCompile(`([?&;])([^?&;=#]*)=[^&;#]*`)

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
			if p, ok := u.User.Password(); ok {
				r.remember(p)
			}
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
				if secretParam(name) || nameTokenPattern.MatchString(name) {
					r.add("URL query parameter " + name)
					if _, v, ok := strings.Cut(pair, "="); ok {
						r.remember(v)
					}
					continue
				}
				kept = append(kept, pair)
			}
			u.RawQuery = strings.Join(kept, "&")
		}
		if frag := u.EscapedFragment(); strings.Contains(frag, "=") {
			var kept []string
			for _, pair := range strings.Split(frag, "&") {
				name, v, _ := strings.Cut(pair, "=")
				if n, err := url.QueryUnescape(name); err == nil {
					name = n
				}
				if secretParam(name) || nameTokenPattern.MatchString(name) {
					r.add("URL fragment parameter " + name)
					r.remember(v)
					continue
				}
				kept = append(kept, pair)
			}
			if f, err := url.PathUnescape(strings.Join(kept, "&")); err == nil {
				u.Fragment, u.RawFragment = f, strings.Join(kept, "&")
			} else {
				u.Fragment, u.RawFragment = "", ""
			}
		}
		raw = u.String()
	} else {
		raw = paramPattern.ReplaceAllStringFunc(raw, func(m string) string {
			sub := paramPattern.FindStringSubmatch(m)
			name := sub[2]
			if n, err := url.QueryUnescape(name); err == nil {
				name = n
			}
			if !secretParam(name) {
				return m
			}
			r.add("URL query parameter")
			return sub[1] + Redacted
		})
	}
	return r.mask("URL", raw)
}
