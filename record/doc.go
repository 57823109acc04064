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
// Nothing is written before it is redacted, twice over: Record applies
// cassettes.RedactInteraction (key headers of both directions, key query
// parameters, user information, bearer-looking tokens in URLs and header
// values) and then removes every occurrence of the literal key, raw and
// URL-escaped, from the URL, every header, form values and both bodies,
// since an API may echo a key in an error or a header (in bodies the key
// becomes a mask of its own length, so chunk offsets stay true). cassettes.Save
// redacts again. Errors are scrubbed of the key too.
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
// # What record does not do
//
// Bedrock requests are SigV4-signed, which needs the AWS SDK; conform
// does not depend on it, so Record returns ErrUnsupported for bedrock
// (record with the AWS SDK and import the cassette instead).
//
// The request to send is chosen by RequestFor: the scenario's request.json,
// else the request of the recording the scenario was generated from, else
// a user message offering one permissive tool per call name the scenario
// expects.
package record
