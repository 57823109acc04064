// Package cassettes holds conform's recorded provider traffic as go-vcr v4
// YAML cassettes, and the tools around them: importers of foreign
// recordings, redaction, atomic writing, a replay matcher and a loader.
//
// # Importing
//
// Import (and ImportFile, ImportPath) detects the format of a file from its
// content, the name only a hint (a .chunks.txt file; an SSE body named
// .json is SSE), decompresses a gzip file first (.yaml.gz), and turns it
// into a cassette:
//
//   - go-vcr v2 YAML (version: 2, requests with url). Its layout is the one
//     go-vcr v4 still writes, so interactions are decoded as they are;
//     binary bodies such as Bedrock's AWS event-stream frames keep their
//     bytes and are written back as !!binary.
//   - VCR.py YAML (requests with uri, status {code, message}, body
//     {string}). Gzip bodies stored as !!binary are decompressed and their
//     Content-Encoding header dropped; a body stored as a YAML mapping under
//     parsed_body (pydantic-ai's serializer, beside body or inside it) is
//     written back as compact JSON in document order. Transfer-Encoding
//     moves from the header to the response's transfer_encoding, as Go's
//     client reports it. VCR.py's cassette dictionary persisted as is,
//     requests and responses lists side by side (langchain-aws), pairs the
//     n-th response with the n-th request.
//   - Ruby VCR YAML (http_interactions, recorded_with; ruby_llm and most
//     Ruby projects): read as VCR.py's layout, with bodies under string or
//     base64_string, a !binary string (Psych's form of an ASCII-8BIT
//     body) decoded, and methods written upper case.
//   - HAR 1.2 as Polly.js persists it (log.entries with Polly's _id and
//     _order; Polly's local-storage object of recordings keyed by id):
//     name/value headers (HTTP/2 pseudo-headers left out), postData and
//     content text, a body marked _isBinary or with encoding base64
//     decoded.
//   - The Datadog APM test agent's VCR JSON (one exchange a file:
//     request {method, url, headers, body}, response {status {code,
//     message}, headers, body}, a binary body as "base64:...").
//   - httprr trace v1: the raw HTTP/1.1 exchanges are parsed with net/http,
//     so chunked responses are de-chunked; a length that runs past the end
//     of the file is ErrTruncated naming the byte offset.
//   - Response-only fixtures: .chunks.txt (one SSE data payload per line,
//     written as "data: <line>\n\n"; for Bedrock each line is a decoded
//     {"<eventType>": {...}} event, encoded as a real AWS event-stream
//     frame with :event-type, :content-type and :message-type headers and
//     the inner object as payload), .json (a non-streaming body) and .sse
//     (raw SSE). They get a made-up request: POST to the protocol's usual
//     host and path (the model from the payload where it names one, else
//     "unknown-model"), an empty body, and the header
//     X-Conform-Response-Only: true. The header, not go-vcr's discard flag,
//     marks them because it is the only mark that survives a save.
//     No "data: [DONE]" or "event:" line is invented: the fixtures do not
//     hold them, and a cassette says only what was recorded.
//
// The protocol is given by the caller (WithProtocol) or guessed: from the
// URLs of a recording, from the first payload's shape for a response-only
// fixture (not from the file name, which misleads for fixtures such as an
// Anthropic model behind an OpenAI-compatible endpoint). A protocol given
// for a recording whose URLs all name another is ErrProtocolMismatch. A
// JSON file that is a recording of a format conform does not read (a
// top-level interactions, entries or log key, or a request beside a
// response) is ErrUnknownFormat, never one response body.
//
// Every error is an *ImportError naming the file and the line (YAML, chunk
// lines) or byte offset (httprr, JSON) of the fault, wrapping a sentinel:
// ErrUnknownFormat, ErrUnknownProtocol, ErrTruncated, ErrMalformed or
// ErrTooLarge. Files above MaxFileSize and bodies that decompress beyond
// MaxBodySize are refused. Every change beyond reformatting is listed in
// Result.Notes: decompressed bodies, dropped headers, and what redaction
// removed (by name, never by value).
//
// # Redaction
//
// RedactInteraction removes credentials from every place one can sit, by
// what the bytes mean and not only by what they look like, and Import and
// Marshal apply it, so nothing unredacted reaches a file:
//
//   - Headers of requests and responses (and trailers), query and URL
//     fragment parameters, form, multipart and JSON fields, XML elements
//     and attributes named like credentials: any name with a word holding
//     key, token, secret, password, auth, credential, signature, cookie or
//     bearer (X-Access-Key, X-Functions-Key, x-portkey-virtual-key), and
//     OpenAI-Organization and the like, in any case. Names that only hold
//     such a word are kept when an allow-list says they are harmless:
//     token counts (max_tokens, promptTokenCount, x-ratelimit-*-tokens),
//     types and methods (credentialType), page tokens, cache and
//     idempotency keys, author, keyword; in JSON also the bare key, token,
//     sig, signature and auth that the protocols use (a logprob's token, a
//     thinking block's signature, Gemini's thoughtSignature).
//     TestCredentialNames lists both sides.
//   - The value of a JSON name/value object ({"name": "api-key", "value":
//     ...}, as HAR writes headers) or [name, value] pair naming a
//     credential; user information of URLs.
//   - Key-shaped values anywhere: sk-, sk-ant-, sk-proj-, AKIA and ASIA
//     ids, AIza, xai-, GitHub, Slack, Hugging Face, Groq, Replicate,
//     Perplexity and Stripe tokens, JSON Web Tokens and "Bearer <token>"
//     (in bodies only a token of 20 bytes or more), also when a JSON escape
//     hides them.
//
// Bodies are read through their encodings, and what changed is encoded
// again as it was: a gzip or deflate Content-Encoding, AWS event-stream
// frames, multipart parts, JSON whole or one value a line (SSE, NDJSON),
// strings that hold JSON (a tool call's arguments) or base64 of text (an
// event-stream chunk's bytes). The strings of a stream's events are also
// read joined per field path (and call index), so that a key cut into
// one-byte deltas, or a credential field in streamed arguments, is masked
// piece by piece. Every depth of nesting is bounded (maxViewDepth).
//
// Import, Marshal and Save run a second pass that removes, in every
// encoding and decoded view, each value the first removed by name (a key
// from a header echoed in a body) and the keys of the environment
// (EnvSecrets); RedactInteractionWith does the same for keys a caller
// knows (record's). Save then reads the file back and refuses it
// (ErrSecretLeft, naming places, never values) when CheckSecrets still
// finds one of them in any field or decoded view.
//
// In a body a secret becomes a mask of its own length ("REDACTED***");
// every other byte is kept, because bodies are what a cassette is for.
// Import lists what it removed in Result.Notes, by name, never by value.
// For recording, RedactHook redacts go-vcr's own copy of each interaction,
// and RedactRequest returns a redacted clone, so the request sent upstream
// is never changed.
//
// # Recording
//
// NewRecorder wraps go-vcr's recorder for `conform record`: live calls go
// through, and on Stop the cassette is written redacted (by hook and again
// by Marshal, which go-vcr is given as its marshal function) and
// atomically, through a go-vcr file system that uses WriteFile. Without
// force it refuses an existing cassette before making any live call.
//
// # Writing
//
// Save and WriteFile write to a temporary file in the target directory and
// rename it into place, so no reader sees half a file. Without force, an
// existing file is never replaced: the final step is a hard link, which
// fails if the file appeared after the first check (ErrExists). The
// temporary file (.<name>.<digits>.tmp) is locked while it is written and
// removed on every error; SaveVerified also reads it back and hands it to
// a check before it is put in place. A run killed mid-write leaves its
// temporary file; the next write to the same target removes such files
// when they match that pattern exactly, were last written before the
// current process started and are not locked by a live writer.
//
// # Replay
//
// Matcher matches on method, URL path and body compared as JSON. Headers
// are never compared: go-vcr's default matcher compares all of them, API
// keys and user agents included, so a cassette recorded with one key would
// not replay with another. Host and query are ignored too, so a cassette
// replays against an httptest server; the path and the body are what tell
// one call from another in every protocol conform knows. Requests marked
// response-only match on method and path. NewReplayer wraps go-vcr's
// recorder in replay-only mode with this matcher; ReplayHandler serves any
// RoundTripper as an http.Handler, a fake provider for a real client.
// go-vcr keeps a streamed body whole and no chunk timing, so ReplayHandler
// re-chunks it: SplitStream cuts SSE after each event, AWS event-stream
// after each frame and NDJSON after each line, and each piece is flushed
// on its own.
//
// # The imported corpus
//
// Every file of testdata/corpus/<protocol>/ is imported to
// cassettes/<protocol>/<file>.yaml (a name already ending in .yaml is
// kept, any other gets .yaml appended, so x.json and x.chunks.txt stay
// apart). `go test ./cassettes -run TestImportCorpus -update` regenerates
// them and PROVENANCE.md; without -update the test fails when a committed
// cassette differs from a fresh import. The cassettes are embedded in the
// package: Glob lists them by protocol folder and Load reads them (or any
// cassette path on disk).
package cassettes
