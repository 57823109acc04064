package record

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/toolconform/conform/cassettes"
)

// ErrSecretLeft: a cassette read back after writing still holds a secret
// in some encoding; it is not saved.
var ErrSecretLeft = errors.New("a secret is still in the cassette")

// minKey is the shortest secret scrubbed: shorter ones cannot be told
// apart from ordinary text and are left to the header and query redaction.
const minKey = 4

// secretMatcher finds every encoding of a set of secrets: each secret and
// each of its base64 forms (standard and URL alphabets, with or without
// padding, at any of the three alignments inside a longer base64 text),
// where any byte may also be written as a JSON escape (\u002f, \/, with
// any number of backslashes for JSON inside JSON) or a URL escape (%2F, in
// either case).
type secretMatcher struct {
	re      *regexp.Regexp // case as sent
	anyCase *regexp.Regexp // for header names, which readers recase
}

// newSecretMatcher returns the matcher of keys, or nil when none is long
// enough to scrub.
func newSecretMatcher(keys ...string) *secretMatcher {
	var forms []string
	seen := map[string]bool{}
	for _, k := range keys {
		if len(k) < minKey {
			continue
		}
		for _, f := range append([]string{k}, base64Cores(k)...) {
			if len(f) >= minKey && !seen[f] {
				seen[f] = true
				forms = append(forms, f)
			}
		}
	}
	if len(forms) == 0 {
		return nil
	}
	// Longer forms first, so that one holding another is taken whole.
	slices.SortStableFunc(forms, func(a, b string) int { return len(b) - len(a) })
	alts := make([]string, len(forms))
	for n, f := range forms {
		alts[n] = escapedPattern(f)
	}
	pattern := "(?:" + strings.Join(alts, "|") + ")"
	return &secretMatcher{re: regexp.MustCompile(pattern), anyCase: regexp.MustCompile("(?i)" + pattern)}
}

// escapedPattern returns a pattern matching s with any of its characters
// written raw, as a JSON \u escape, as \/ for '/', or URL-escaped.
func escapedPattern(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteString("(?:" + regexp.QuoteMeta(string(r)))
		if r <= 0xffff {
			b.WriteString(`|\\+u` + hexClass(byte(r>>12)) + hexClass(byte(r>>8&15)) + hexClass(byte(r>>4&15)) + hexClass(byte(r&15)))
		}
		b.WriteString("|")
		for _, c := range []byte(string(r)) {
			b.WriteString("%" + hexClass(c>>4) + hexClass(c&15))
		}
		if r == '/' {
			b.WriteString(`|\\+/`)
		}
		b.WriteString(")")
	}
	return b.String()
}

// hexClass matches one hex digit in either case.
func hexClass(d byte) string {
	const digits = "0123456789abcdef"
	if d < 10 {
		return string(digits[d])
	}
	return "[" + string(digits[d]) + strings.ToUpper(string(digits[d])) + "]"
}

// base64Cores returns the parts of the base64 encodings of k that depend
// on k alone, whatever comes before or after it: for each alphabet and
// each alignment (k starting 0, 1 or 2 bytes into a 3-byte group), the
// characters between the ones shared with the neighbouring bytes.
func base64Cores(k string) []string {
	var out []string
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for shift := range 3 {
			full := enc.EncodeToString(append(make([]byte, shift), k...))
			n := shift + len(k)
			end := 4 * (n / 3)
			switch n % 3 {
			case 1:
				end++
			case 2:
				end += 2
			}
			start := []int{0, 2, 3}[shift]
			if end-start >= minKey {
				out = append(out, full[start:end])
			}
		}
	}
	return out
}

// replace returns s with every match replaced by cassettes.Redacted.
func (m *secretMatcher) replace(s string) string {
	if m == nil {
		return s
	}
	return m.re.ReplaceAllString(s, cassettes.Redacted)
}

// replaceSameLength returns s with every match replaced by a mask of the
// match's length, so that byte offsets stay true.
func (m *secretMatcher) replaceSameLength(s string) string {
	if m == nil {
		return s
	}
	return m.re.ReplaceAllStringFunc(s, func(match string) string { return mask(len(match)) })
}

// inName reports whether a header name holds a secret, in any case.
func (m *secretMatcher) inName(name string) bool {
	return m != nil && m.anyCase.MatchString(name)
}

// found reports whether s holds a secret.
func (m *secretMatcher) found(s string) bool {
	return m != nil && m.re.MatchString(s)
}

// scrubInteraction removes every encoding of the secrets from an
// interaction in place: from the URL, request URI, host, status line,
// header names (a header named with a secret is dropped) and values of
// both directions and their trailers, form names and values, and both
// bodies, where a secret becomes a mask of its own length.
func (m *secretMatcher) scrubInteraction(i *cassette.Interaction) {
	if m == nil {
		return
	}
	i.Request.URL = m.replace(i.Request.URL)
	i.Request.RequestURI = m.replace(i.Request.RequestURI)
	i.Request.Host = m.replace(i.Request.Host)
	i.Response.Status = m.replace(i.Response.Status)
	i.Request.Body = m.replaceSameLength(i.Request.Body)
	i.Response.Body = m.replaceSameLength(i.Response.Body)
	for _, h := range []http.Header{i.Request.Headers, i.Response.Headers, i.Request.Trailer, i.Response.Trailer} {
		for k, vs := range h {
			if m.inName(k) {
				delete(h, k)
				continue
			}
			for j := range vs {
				vs[j] = m.replace(vs[j])
			}
		}
	}
	for k, vs := range i.Request.Form {
		if m.inName(k) {
			delete(i.Request.Form, k)
			continue
		}
		for j := range vs {
			vs[j] = m.replace(vs[j])
		}
	}
}

// leaks returns the places of an interaction that still hold a secret.
func (m *secretMatcher) leaks(n int, i *cassette.Interaction) []string {
	if m == nil {
		return nil
	}
	var out []string
	at := func(where string, s string) {
		if m.found(s) {
			out = append(out, fmt.Sprintf("interaction %d %s", n, where))
		}
	}
	at("URL", i.Request.URL)
	at("request URI", i.Request.RequestURI)
	at("host", i.Request.Host)
	at("status line", i.Response.Status)
	at("request body", i.Request.Body)
	at("response body", i.Response.Body)
	for where, h := range map[string]http.Header{"request header": i.Request.Headers, "response header": i.Response.Headers, "request trailer": i.Request.Trailer, "response trailer": i.Response.Trailer} {
		for k, vs := range h {
			if m.inName(k) {
				out = append(out, fmt.Sprintf("interaction %d %s name", n, where))
			}
			for _, v := range vs {
				at(where+" "+k, v)
			}
		}
	}
	for k, vs := range i.Request.Form {
		if m.inName(k) {
			out = append(out, fmt.Sprintf("interaction %d form name", n))
		}
		for _, v := range vs {
			at("form value "+k, v)
		}
	}
	slices.Sort(out)
	return out
}

// Check reports an error wrapping ErrSecretLeft when the cassette bytes
// data, as written, hold any encoding of a secret: in the raw bytes, or in
// any field of the cassette they decode to (a !!binary body is base64 in
// the file). The error names the places, never the secrets. Secrets
// shorter than four bytes are not looked for.
func Check(data []byte, secrets ...string) error {
	m := newSecretMatcher(secrets...)
	if m == nil {
		return nil
	}
	var places []string
	if m.found(string(data)) {
		places = append(places, "file bytes")
	}
	c, err := cassettes.Parse(data)
	if err != nil {
		return fmt.Errorf("check cassette: %w", err)
	}
	for n, i := range c.Interactions {
		places = append(places, m.leaks(n, i)...)
	}
	if len(places) > 0 {
		return fmt.Errorf("%w: %s", ErrSecretLeft, strings.Join(places, ", "))
	}
	return nil
}

// Save writes a recorded cassette to path as cassettes.Save does, but
// reads the temporary file back first and refuses to put it in place when
// Check finds a secret in it: the error wraps ErrSecretLeft, the temporary
// file is removed and path is left as it was.
//
//	c, err := record.Record(ctx, opts)
//	err = record.Save(c, "cassettes/anthropic/new.yaml", false, opts.Secrets()...)
func Save(c *cassette.Cassette, path string, force bool, secrets ...string) error {
	return cassettes.SaveVerified(c, path, force, func(written []byte) error {
		return Check(written, secrets...)
	})
}

// Secrets returns the values Record scrubs and Save checks for: the key and
// the AWS access key id, secret and session token.
func (o Options) Secrets() []string {
	var out []string
	for _, s := range append([]string{o.Key}, o.AWS.secrets()...) {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
