package cassettes

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

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

// replace returns s with every match replaced by Redacted.
func (m *secretMatcher) replace(s string) string {
	if m == nil {
		return s
	}
	return m.re.ReplaceAllString(s, Redacted)
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

// ErrSecretLeft means a cassette, as written, still holds a secret in some
// encoding or decoded view; it is not saved.
var ErrSecretLeft = errors.New("a secret is still in the cassette")

// Limits of EnvSecrets: the shortest and longest value taken for a
// secret, and how many are taken (each grows the pattern every text is
// matched against).
const (
	minEnvSecret  = 12
	maxEnvSecret  = 512
	maxEnvSecrets = 32
)

// EnvSecrets returns the values of the environment variables whose names
// are credential names (OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, HF_TOKEN,
// ...), of 12 to 512 bytes, without blanks and not file paths, at most
// 32 of them: the keys this process knows. Import and Save scrub them and refuse a cassette
// that still holds one.
func EnvSecrets() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, v, _ := strings.Cut(kv, "=")
		if len(v) < minEnvSecret || len(v) > maxEnvSecret || strings.ContainsAny(v, " \t\n") || strings.HasPrefix(v, "/") || !credentialName(name, false) {
			continue
		}
		if out = append(out, v); len(out) == maxEnvSecrets {
			break
		}
	}
	return out
}

// redactAll redacts interactions in place in two passes: the first
// removes credentials by name and shape and every encoding of secrets;
// the second also removes, everywhere, every value the first removed by
// name (a header's key echoed in a body, cut across deltas, ...). It
// returns what was removed and every secret looked for.
func redactAll(is []*cassette.Interaction, secrets []string) (notes, known []string) {
	done := map[string]bool{}
	run := func(keys []string) map[string]bool {
		m := newSecretMatcher(keys...)
		r := redactor{known: m}
		for _, i := range is {
			if i == nil {
				continue
			}
			for _, what := range r.interaction(i) {
				done[what] = true
			}
			m.scrubInteraction(i)
		}
		return r.removed
	}
	known = append([]string(nil), secrets...)
	if removed := run(known); len(removed) > 0 {
		known = append(known, sortedKeys(removed)...)
		run(known)
	}
	return sortedKeys(done), known
}

// CheckSecrets reports an error wrapping ErrSecretLeft when the cassette
// bytes data, as written, hold any encoding of one of secrets: in the raw
// bytes, in any field of the cassette they decode to, or in any decoded
// view of a body (decompressed, event-stream payloads, SSE data, JSON and
// base64 strings, strings joined across a stream's deltas, multipart and
// form fields). The error names the places, never the secrets. Secrets
// shorter than four bytes are not looked for.
func CheckSecrets(data []byte, secrets ...string) error {
	m := newSecretMatcher(secrets...)
	if m == nil {
		return nil
	}
	var places []string
	if m.found(string(data)) {
		places = append(places, "file bytes")
	}
	c, err := Parse(data)
	if err != nil {
		return fmt.Errorf("check cassette: %w", err)
	}
	for n, i := range c.Interactions {
		places = append(places, m.leaks(n, i)...)
		for _, side := range []struct {
			where string
			body  string
			h     http.Header
		}{{"request body", i.Request.Body, i.Request.Headers}, {"response body", i.Response.Body, i.Response.Headers}} {
			var views []string
			r := redactor{views: &views}
			r.body(side.where, side.body, side.h)
			for _, v := range views {
				if m.found(v) {
					places = append(places, fmt.Sprintf("interaction %d %s (decoded)", n, side.where))
					break
				}
			}
		}
	}
	if len(places) > 0 {
		slices.Sort(places)
		places = slices.Compact(places)
		return fmt.Errorf("%w: %s", ErrSecretLeft, strings.Join(places, ", "))
	}
	return nil
}

// ScrubSecrets returns s with every encoding of each secret of four bytes
// or more replaced by Redacted, for messages that may echo one.
func ScrubSecrets(s string, secrets ...string) string {
	return newSecretMatcher(secrets...).replace(s)
}
