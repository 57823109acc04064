// Package providers is the literal list of conform's built-in wire
// protocols: one descriptor (Protocol) each, from the protocol's own
// package. Lookup returns a new adapter by name, Describe the descriptor;
// an unknown name is an error that lists the known ones.
//
// A descriptor holds every fact the rest of the tree needs about its
// protocol: the HTTP endpoint (where requests go, how a stream is asked
// for and framed, how the key travels, how a recorded URL or response
// payload is recognised), the SSE framing, the adapter that writes the
// one-JSON-array stream form where there is one, what the fake provider
// needs to grade a follow-up (body shape rules, the failure mode of a
// missing result, result order, ids, thinking, plans, stored responses,
// threads) and which request options a recorded body depends on, or
// that it answers another endpoint than the protocol's. serve,
// cassettes, record, reduce, gateway and agent ask the descriptor; no
// non-test file outside providers/ names a protocol in a string literal
// (TestNoProtocolLiteralsOutsideProviders).
//
// The endpoint rows live in the leaf package providers/protocol, which
// imports only core, so that cassettes can read them without importing
// the adapters.
//
// # Adding a protocol
//
//  1. Its own package providers/<p>: the adapter (core.Adapter, with
//     Features and ToolNameRules), its tests on providers/internal/adaptertest,
//     and protocol.go exporting Protocol.
//  2. Its endpoint row in providers/protocol/endpoints.go.
//  3. One line of the list in providers.go.
//  4. Its scenarios under scenarios/cases/<p>, its recordings under
//     testdata/corpus/<p>, and its reader in scenarios/generate_test.go
//     (independent of the adapter on purpose: it checks the cases
//     generated from the recordings).
//
// TestDescriptorsComplete checks that every descriptor sets what its
// consumers read, and that the importer recognises the protocol's URL and
// response body; nothing else needs to change.
package providers
