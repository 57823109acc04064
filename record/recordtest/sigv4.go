package recordtest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Credentials are the AWS credentials a stand-in checks signatures with.
type Credentials struct {
	AccessKeyID     string
	SecretAccessKey string
	SessionToken    string
	Region          string
}

// MaxClockSkew is how far X-Amz-Date may be from the stand-in's clock, as
// AWS allows.
const MaxClockSkew = 5 * time.Minute

// ErrSignature: a request's SigV4 signature does not check.
var ErrSignature = errors.New("signature does not match")

// VerifySigV4 checks the SigV4 signature of a received request, computed
// here from the request as received (method, raw path and query, the
// signed headers, the SHA-256 of body) and not with the AWS SDK, so that
// it checks the SDK's signer rather than agreeing with it. service is the
// signing service ("bedrock"). It returns nil or an error wrapping
// ErrSignature that says what differs.
func VerifySigV4(r *http.Request, body []byte, c Credentials, service string, now time.Time) error {
	const op = "verify sigv4"
	auth := r.Header.Get("Authorization")
	rest, ok := strings.CutPrefix(auth, "AWS4-HMAC-SHA256 ")
	if !ok {
		return fmt.Errorf("%s: %w: Authorization %q is not AWS4-HMAC-SHA256", op, ErrSignature, auth)
	}
	fields := map[string]string{}
	for _, f := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(f), "=")
		if !ok {
			return fmt.Errorf("%s: %w: Authorization field %q has no value", op, ErrSignature, f)
		}
		fields[k] = v
	}
	cred, signedList, sig := fields["Credential"], fields["SignedHeaders"], fields["Signature"]
	if cred == "" || signedList == "" || sig == "" {
		return fmt.Errorf("%s: %w: Authorization lacks Credential, SignedHeaders or Signature", op, ErrSignature)
	}
	amzDate := r.Header.Get("X-Amz-Date")
	t, err := time.Parse("20060102T150405Z", amzDate)
	if err != nil {
		return fmt.Errorf("%s: %w: X-Amz-Date %q: %v", op, ErrSignature, amzDate, err)
	}
	if d := now.Sub(t); d > MaxClockSkew || d < -MaxClockSkew {
		return fmt.Errorf("%s: %w: X-Amz-Date %s is %v from now", op, ErrSignature, amzDate, d)
	}
	scope := amzDate[:8] + "/" + c.Region + "/" + service + "/aws4_request"
	if want := c.AccessKeyID + "/" + scope; cred != want {
		return fmt.Errorf("%s: %w: credential %q, want %q", op, ErrSignature, cred, want)
	}
	if c.SessionToken != "" && r.Header.Get("X-Amz-Security-Token") != c.SessionToken {
		return fmt.Errorf("%s: %w: X-Amz-Security-Token is not the session token", op, ErrSignature)
	}
	signed := strings.Split(signedList, ";")
	if !sort.StringsAreSorted(signed) {
		return fmt.Errorf("%s: %w: SignedHeaders %q not sorted", op, ErrSignature, signedList)
	}
	need := []string{"host", "x-amz-date"}
	if c.SessionToken != "" {
		need = append(need, "x-amz-security-token")
	}
	for _, h := range need {
		if !contains(signed, h) {
			return fmt.Errorf("%s: %w: SignedHeaders %q lacks %s", op, ErrSignature, signedList, h)
		}
	}
	var canonHeaders strings.Builder
	for _, h := range signed {
		var vals []string
		switch h {
		case "host":
			vals = []string{r.Host}
		case "content-length":
			vals = []string{strconv.FormatInt(r.ContentLength, 10)}
		default:
			vals = r.Header.Values(h)
			if len(vals) == 0 {
				return fmt.Errorf("%s: %w: signed header %s is missing", op, ErrSignature, h)
			}
		}
		for i, v := range vals {
			vals[i] = strings.Join(strings.Fields(v), " ")
		}
		canonHeaders.WriteString(h + ":" + strings.Join(vals, ",") + "\n")
	}
	rawPath, rawQuery, _ := strings.Cut(r.RequestURI, "?")
	if rawPath == "" {
		rawPath = r.URL.EscapedPath()
		rawQuery = r.URL.RawQuery
	}
	query, err := canonicalQuery(rawQuery)
	if err != nil {
		return fmt.Errorf("%s: %w: query: %v", op, ErrSignature, err)
	}
	sum := sha256.Sum256(body)
	canonical := strings.Join([]string{
		r.Method,
		uriEncode(rawPath, false),
		query,
		canonHeaders.String(),
		signedList,
		hex.EncodeToString(sum[:]),
	}, "\n")
	csum := sha256.Sum256([]byte(canonical))
	toSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(csum[:])
	key := hmacSHA256([]byte("AWS4"+c.SecretAccessKey), amzDate[:8])
	for _, part := range []string{c.Region, service, "aws4_request"} {
		key = hmacSHA256(key, part)
	}
	want := hex.EncodeToString(hmacSHA256(key, toSign))
	if !hmac.Equal([]byte(want), []byte(sig)) {
		return fmt.Errorf("%s: %w: the canonical request was\n%s", op, ErrSignature, canonical)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// uriEncode percent-encodes every byte but the unreserved ones (letters,
// digits, "-._~"), and "/" too when encodeSlash is set. For the path of a
// service other than S3, AWS encodes the path as received once more, so
// "%3A" becomes "%253A".
func uriEncode(s string, encodeSlash bool) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' || (c == '/' && !encodeSlash) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

// canonicalQuery decodes each name and value of a raw query, encodes them
// again strictly and sorts the pairs.
func canonicalQuery(raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	var pairs [][2]string
	for _, p := range strings.Split(raw, "&") {
		if p == "" {
			continue
		}
		k, v, _ := strings.Cut(p, "=")
		dk, err := url.QueryUnescape(k)
		if err != nil {
			return "", err
		}
		dv, err := url.QueryUnescape(v)
		if err != nil {
			return "", err
		}
		pairs = append(pairs, [2]string{uriEncode(dk, true), uriEncode(dv, true)})
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i][0] != pairs[j][0] {
			return pairs[i][0] < pairs[j][0]
		}
		return pairs[i][1] < pairs[j][1]
	})
	out := make([]string, len(pairs))
	for i, p := range pairs {
		out[i] = p[0] + "=" + p[1]
	}
	return strings.Join(out, "&"), nil
}
