package record

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// Errors of Bedrock signing, for callers that branch on them.
var (
	// ErrNoCredentials: an AWS access key id or secret access key is
	// missing.
	ErrNoCredentials = errors.New("no AWS credentials")
	// ErrNoRegion: no AWS region is set, or it is not a region name.
	ErrNoRegion = errors.New("no AWS region")
	// ErrNotKeyed: the protocol takes no API key (Bedrock is signed with
	// AWS credentials instead).
	ErrNotKeyed = errors.New("protocol takes no API key")
)

// AWSCredentials are what a Bedrock request is signed with (SigV4, for the
// service its Endpoint.SigV4Service names). SessionToken is optional; it travels in the
// X-Amz-Security-Token header, which redaction removes.
type AWSCredentials struct {
	AccessKeyID     string
	SecretAccessKey string
	SessionToken    string
	Region          string
}

// AWS environment variables, as the AWS SDKs read them.
const (
	EnvAccessKeyID     = "AWS_ACCESS_KEY_ID"
	EnvSecretAccessKey = "AWS_SECRET_ACCESS_KEY"
	EnvSessionToken    = "AWS_SESSION_TOKEN"
	EnvRegion          = "AWS_REGION"
	EnvDefaultRegion   = "AWS_DEFAULT_REGION"
)

// AWSFromEnv returns AWS credentials from the standard environment:
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, the optional AWS_SESSION_TOKEN
// and the region from AWS_REGION, else AWS_DEFAULT_REGION. It also returns
// the name of the variable the region came from. A missing variable is an
// error wrapping ErrNoCredentials or ErrNoRegion that names it.
func AWSFromEnv(getenv func(string) string) (creds AWSCredentials, regionVar string, err error) {
	const op = "record bedrock"
	creds.AccessKeyID = strings.TrimSpace(getenv(EnvAccessKeyID))
	creds.SecretAccessKey = strings.TrimSpace(getenv(EnvSecretAccessKey))
	creds.SessionToken = strings.TrimSpace(getenv(EnvSessionToken))
	if creds.AccessKeyID == "" {
		return AWSCredentials{}, "", fmt.Errorf("%s: %w: set %s", op, ErrNoCredentials, EnvAccessKeyID)
	}
	if creds.SecretAccessKey == "" {
		return AWSCredentials{}, "", fmt.Errorf("%s: %w: set %s", op, ErrNoCredentials, EnvSecretAccessKey)
	}
	for _, v := range []string{EnvRegion, EnvDefaultRegion} {
		if r := strings.TrimSpace(getenv(v)); r != "" {
			creds.Region, regionVar = r, v
			break
		}
	}
	if creds.Region == "" {
		return AWSCredentials{}, "", fmt.Errorf("%s: %w: set %s or %s", op, ErrNoRegion, EnvRegion, EnvDefaultRegion)
	}
	if !validRegion(creds.Region) {
		return AWSCredentials{}, "", fmt.Errorf("%s: %w: %s=%q is not a region name such as us-east-1", op, ErrNoRegion, regionVar, creds.Region)
	}
	return creds, regionVar, nil
}

// check reports the first missing or malformed field, by its name in
// Options.
func (c *AWSCredentials) check(op string) error {
	switch {
	case c == nil:
		return fmt.Errorf("%s: %w: Options.AWS is nil", op, ErrNoCredentials)
	case c.AccessKeyID == "":
		return fmt.Errorf("%s: %w: Options.AWS.AccessKeyID is empty", op, ErrNoCredentials)
	case c.SecretAccessKey == "":
		return fmt.Errorf("%s: %w: Options.AWS.SecretAccessKey is empty", op, ErrNoCredentials)
	case c.Region == "":
		return fmt.Errorf("%s: %w: Options.AWS.Region is empty", op, ErrNoRegion)
	case !validRegion(c.Region):
		return fmt.Errorf("%s: %w: Options.AWS.Region %q is not a region name such as us-east-1", op, ErrNoRegion, c.Region)
	}
	return nil
}

// secrets returns the values that must not reach a cassette.
func (c *AWSCredentials) secrets() []string {
	if c == nil {
		return nil
	}
	return []string{c.AccessKeyID, c.SecretAccessKey, c.SessionToken}
}

// validRegion reports whether r looks like an AWS region name: lowercase
// letters, digits and hyphens, so that it can go into a host name.
func validRegion(r string) bool {
	if r == "" || len(r) > 64 || r[0] == '-' || r[len(r)-1] == '-' {
		return false
	}
	for i := 0; i < len(r); i++ {
		c := r[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// BedrockBaseURL returns the public Bedrock runtime endpoint of a region.
func BedrockBaseURL(region string) string {
	return "https://bedrock-runtime." + region + ".amazonaws.com"
}

// escapeLabel escapes a path label as the AWS SDKs do: every byte but the
// unreserved ones (letters, digits, "-._~") is percent-encoded, so the ":"
// of a model id such as "anthropic.claude-3-5-haiku-20241022-v1:0" is sent
// as "%3A".
func escapeLabel(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

// signSigV4 signs hr in place for the AWS service: it sets X-Amz-Date, the
// session token if there is one, and Authorization. body must be exactly
// the bytes hr sends; their SHA-256 is part of the signature. It returns
// the signature, a secret of its own to scrub from what is kept.
func signSigV4(ctx context.Context, hr *http.Request, body []byte, c *AWSCredentials, service string, now time.Time) (string, error) {
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey, SessionToken: c.SessionToken, Source: "conform record"}
	if err := v4.NewSigner().SignHTTP(ctx, creds, hr, hex.EncodeToString(sum[:]), service, c.Region, now); err != nil {
		return "", fmt.Errorf("sign request: %w", err)
	}
	_, sig, ok := strings.Cut(hr.Header.Get("Authorization"), "Signature=")
	if !ok || sig == "" {
		return "", errors.New("sign request: the signer wrote no signature")
	}
	return sig, nil
}
