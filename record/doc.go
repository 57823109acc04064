// Package record captures new cassettes from live provider APIs.
//
// Record encodes a scenario's canonical request with the protocol's adapter,
// sends it to the API (or to any base URL: a gateway, a test server) with
// the key in the protocol's key header (providers.Endpoint), reads the
// response as it arrives and returns a go-vcr v4 cassette of one
// interaction. The caller saves it with cassettes.Save, which writes
// atomically (a temporary file renamed into place) and never replaces an
// existing cassette unless forced; the command line checks for an existing
// file before it sends anything, so no live call is wasted.
//
// # Secrets
//
// Nothing is written before it is redacted, twice over, and nothing is
// saved that still holds the key. Record applies
// cassettes.RedactInteractionWith with the keys it sent (credential
// headers of both directions, credential query parameters and form, JSON,
// multipart and XML fields, user information, key-shaped values anywhere,
// read through compressed bodies, event-stream frames, JSON and base64
// strings and the deltas of a stream joined, so that a key echoed one
// byte a delta or inside a deflate body the client never asked for is
// masked where it sits), and removes the key in every encoding an API may
// echo it in: raw, URL-escaped (either hex case),
// JSON-escaped (\u escapes in either case, \/, and JSON inside JSON),
// base64 in the standard and URL alphabets, padded or not and at any of
// the three alignments inside a longer base64 text, and mixtures of these.
// It looks in the URL, the host, the status line, header values, header
// names (in any case, since readers recase them; such a header is
// dropped), form values and both bodies, where the key becomes a mask of
// its own length so that chunk offsets stay true. Errors are scrubbed of
// the key too.
//
// Save writes the cassette through a temporary file, reads that file back
// and refuses it (ErrSecretLeft, naming the places, never the key; the
// temporary file removed and an existing cassette untouched) when Check
// still finds any encoding of a secret, in the file's bytes, in the
// cassette they decode to (a binary body is base64 in the file) or in any
// decoded view of its bodies (cassettes.CheckSecrets). Options.Secrets
// lists what is looked for.
//
// # Chunk times
//
// go-vcr keeps a body whole. The arrival of each piece is kept in the
// response header X-Conform-Chunk-Times as comma-separated
// "<end offset>@<milliseconds>" pairs: the body offset where a read ended
// and the time since the request was sent, three decimals. A header was
// chosen over a sidecar file or a field outside go-vcr's schema because
// every go-vcr reader keeps it, redaction leaves it alone, and a replayer
// that knows it can cut the body at the same offsets
// (cassettes.SplitStream cuts by framing instead). The response's
// Duration is the time to the last byte. Reads are bounded by MaxBody and
// MaxChunks, with ErrTooLarge.
//
// # Bedrock
//
// Bedrock takes no API key: its requests are signed with SigV4 (service
// "bedrock") by the AWS SDK's signer (github.com/aws/aws-sdk-go-v2,
// aws/signer/v4), with the credentials in Options.AWS, which the command
// line takes from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, the optional
// AWS_SESSION_TOKEN and AWS_REGION or AWS_DEFAULT_REGION (AWSFromEnv). A
// missing credential or region is an error naming the field or variable
// (ErrNoCredentials, ErrNoRegion) before anything is sent. The request is
// signed last, after every header is set, over the SHA-256 of exactly the
// body sent; the model id is escaped as the SDKs escape a path label (the
// ":" of "...-v1:0" as "%3A"), and the default base URL is the region's
// https://bedrock-runtime.<region>.amazonaws.com. Only the signer is used,
// not the SDK's Bedrock client, so the request is the same one the other
// protocols send and is recorded the same way. Credentials from profiles,
// SSO or instance roles are not read: export them first (aws configure
// export-credentials --format env).
//
// The Authorization header (which holds the access key id and the
// signature) and X-Amz-Security-Token are removed by
// cassettes.RedactInteraction; the access key id, the secret, the session
// token and the signature are then scrubbed like the key, in every encoding,
// bodies included, in case an answer echoes one. X-Amz-Date is kept. The
// response is AWS event-stream binary for ConverseStream; the chunk times
// are byte offsets in it like any other body, and the cassette writer
// stores such a body as base64.
//
// The tests stand a loopback server in for Bedrock (package recordtest)
// that recomputes the signature from what it received with its own SigV4
// code, not the SDK's, and answers a mismatch with 403 as AWS does.
//
// # What record does not do
//
// It reads no AWS configuration files and does not refresh temporary
// credentials; a recording that outlives its session token fails with 403
// and must be run again.
//
// The request to send is chosen by RequestFor: the scenario's request.json,
// else the request of the recording the scenario was generated from, else
// a user message offering one permissive tool per call name the scenario
// expects.
package record
