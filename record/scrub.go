package record

import (
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"

	"github.com/toolconform/conform/cassettes"
)

// ErrSecretLeft: a cassette read back after writing still holds a secret
// in some encoding or decoded view; it is not saved.
var ErrSecretLeft = cassettes.ErrSecretLeft

// Check reports an error wrapping ErrSecretLeft when the cassette bytes
// data, as written, hold any encoding of a secret: in the raw bytes, in
// any field of the cassette they decode to (a !!binary body is base64 in
// the file), or in any decoded view of a body (cassettes.CheckSecrets).
// The error names the places, never the secrets. Secrets shorter than
// four bytes are not looked for.
func Check(data []byte, secrets ...string) error {
	return cassettes.CheckSecrets(data, secrets...)
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
