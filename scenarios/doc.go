// Package scenarios holds conform's conformance cases as data, the loader
// that reads them and the engine that runs them against adapters.
//
// # Format
//
// A scenario is a txtar file. Its comment says, in prose, what the case
// checks and which failure modes it guards, and holds header lines of the
// form "key: value" (a line starting with a lowercase word and a colon):
//
//	severity: MUST | SHOULD | INFO
//	guards: A05 B09        failure-mode ids of shared/FAILURE-MODES.md (may be empty for recorded cases)
//	protocol: openai-chat  the one protocol of a protocol-specific case
//	protocols: *           or a list: a case declared once, expanded over adapters
//	requires: result-ids   features (core.Feature) a protocol must have for the case to apply
//	kind: stream | response | request | history
//	source: PATH#N         the recording a generated case was made from (provenance only)
//	cassette: PATH#N       take the provider bytes from interaction N of a go-vcr cassette
//
// Unknown header keys, unknown sections, repeated keys and repeated sections
// are errors naming the file and line. Sections:
//
//	tools.json               []core.ToolSpec; fills request.json's tools when it has none
//	request.json             a canonical core.Request
//	response.sse|.json|.ndjson|.b64   provider bytes (.b64 is base64, for binary frames)
//	events.json              canonical []core.Event (stream cases for every protocol)
//	canonical-response.json  a canonical core.Response (response cases for every protocol)
//	want/calls.json          the complete calls, in order; absent means none
//	want/incomplete.json     the calls still open at the end; absent means none
//	want/text.txt            the visible text (its final newline dropped)
//	want/finish.txt          normalised finish reason, then optionally the provider's raw value
//	want/error.txt           a regular expression the error must match
//	want/limit-calls.json    calls complete on the wire that conform's decoder
//	                         leaves incomplete at its own limit (A12); clients
//	                         and gateways may run them or refuse them
//	want/decode-error.json   {"from": N, "to": M}: decoding must fail with a
//	                         decode error (not a provider error, not a stream
//	                         cut short) naming a byte offset from N to M, in
//	                         any wording: the error's kind and place, never
//	                         its text
//	want/request.json        the encoded request, compared as JSON on the top-level keys it names
//
// No want may be vacuous: an error pattern that matches the empty string
// (and so every error) and a want/request.json that names no key are
// parse errors.
//
// A call in want/calls.json always has name and arguments; id is compared
// too, and the special id "<any>" (AnyID) accepts any non-empty id as long as
// the ids are distinct (protocols without ids, D01). item_id and signature
// are compared only when the want gives them; repaired and original always
// are, so an unreported repair or an unexpected one is a failure (C09).
// Arguments are compared as JSON; argument text that is not JSON shows in a
// diff as "<invalid JSON> TEXT", and empty text as "<empty>". A call of
// want/incomplete.json may leave out arguments: core.Collect keeps the text
// of an incomplete call in original, with no arguments.
//
// # Names and where the files live
//
// A scenario's name is its path below the scenario root without ".txtar":
// protocol/category/case, for example
// openai-chat/streaming/A05-round-robin-interleaving. The first segment is
// the protocol for a protocol-specific case and "any" for a case expanded
// over adapters; its results carry the adapter's name in place of "any".
// Two cases must never produce one result name: a case declared for every
// protocol and a protocol-specific case of the same category and case name
// would, so Load and Check reject them with a NameClashError
// naming both files. A protocol-specific case that covers the same failure
// mode as a declared-once case describes its own bytes in its name
// (openai-chat/streaming/A05-three-calls-round-robin-id-on-first-chunk
// beside any/streaming/A05-round-robin-interleaving).
// The built-in scenarios live in cases/ and are embedded (Builtin), so that
// a module outside this one can run them; they are therefore self-contained.
// Cases generated from recordings copy the provider bytes into the file and
// name the recording in "source:"; the generator test (go test -run
// TestGenerate -update) rewrites them, and without -update it checks that the
// files are up to date. A "cassette:" reference names a file relative to
// the scenario file, as a link does, so a user's case and its cassette can
// sit side by side and run from any directory (conform scenario new writes
// them so); a reference with no such file goes to the loader's
// CassetteResolver, which embedded cases cannot rely on.
//
// # Engine
//
// Check runs each case on each adapter it applies to and returns one Result
// per pair with every problem found, each naming the rule broken and the
// case's failure-mode ids, with a cmp.Diff (-want +got) of indented JSON
// where there is something to compare.
//
//   - stream: decode the bytes (or the stream the adapter encodes from
//     events.json), collect the events into a response and check the wants;
//     then decode again in random-size reads (seeded by the case name, so
//     deterministic) and require the same outcome (split-independence).
//   - response: decode the body (or the adapter's encoding of
//     canonical-response.json) and check the wants.
//   - request: encode request.json, compare with want/request.json when
//     given, decode it again and require the original (round-trip).
//   - history: encode request.json and compare with want/request.json, or
//     require an error matching want/error.txt (replay rules such as
//     "a tool_use needs a tool_result", G01).
//
// Events are collected with core.Collect, the way a client that waits for
// the end of a stream sees them: routed by core.Buffer, calls closed by
// call_end, Done or a finish event, calls still open at the end reported in
// Response.Incomplete and in the returned error. A repair the Buffer makes
// shows as "repaired" in the calls and so fails a case that does not expect
// it (C09).
//
// A case declared once is expanded over the adapters it is declared for
// (protocols:) whose protocol has every feature it requires (requires:).
// The built-in adapters declare their protocol's features
// (core.FeatureDeclarer); an adapter from elsewhere (a subprocess, a Go
// value graded by package conformtest) is graded as a Subject: under its
// own label, as an adapter of the protocol it declares, held to that
// protocol's features. An adapter that declares the features a case
// requires cannot skip it: refusing it is a problem (rule feature).
// Otherwise a case is skipped only when an encoder returns an error wrapping
// errors.ErrUnsupported. A case that needs an operation the adapter does not
// implement at all (core.Implementer, core.NotImplementedError) is not
// graded (StatusNotGraded). Neither a skip nor a case not graded is ever a
// pass. Adapter panics are caught and reported as problems (rule no-panic).
//
// # The built-in cases
//
//   - cases/<protocol>/recorded/: one case per cassette interaction of package
//     cassettes that carries tool calls, generated by TestGenerate. The
//     expectations are read from the provider JSON by small extractors in
//     generate_test.go, written independently of the adapters; guards are
//     derived from what the recording shows (empty or null arguments,
//     missing ids, signatures, a stop finish with calls). Interactions that
//     cannot be read that way are listed, with the reason, in COVERAGE.md.
//   - cases/<protocol>/{streaming,response,history}/: hand-written provider
//     bytes for the failure modes A–G, named by their id.
//   - cases/any/: cases declared once and expanded over adapters.
//
// COVERAGE.md (TestCoverage -update) is the table of failure modes by
// protocol: how many cases guard each and carry its id in their name (a
// secondary guard is a claim, not coverage), why a mode cannot apply where
// it cannot, and what is missing. known-failing.txt lists, with a comment each,
// the cases that fail on a built-in adapter because of an adapter bug;
// TestBuiltinAdapters runs every case on every adapter of providers.All().
//
// # Patterns
//
// --run, --skip and known-failing lists use one pattern language (Pattern):
// a slash-separated list of regular expressions matched segment by segment,
// as go test -run does. A pattern that matches nothing is an error
// (UnmatchedPatternError). A known-failing list has one pattern per line and
// # comments; a listed case that passes fails with "known-failing case now
// passes: remove it from FILE:LINE".
package scenarios
