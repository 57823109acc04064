// Package reduce reduces a failed stream case to its cause, as a fuzzer's
// minimiser reduces a crashing input: it tries simpler variants of the
// case and reports the change that makes the subject pass and the
// smallest variant that still fails.
//
//	res := reduce.Reduce(sc, "anthropic", "split=7", 0, func(v reduce.Variant) bool {
//		return runClient(v.Scenario, v.Chaos) != "pass"
//	})
//	fmt.Println(res.Cause()) // fails on content block indices 1, 2; passes with block indices renumbered from 0 (0, 1)
//
// # The algorithm
//
// Greedy, one pass: starting from the case as it failed, each applicable
// simplification is applied to the current variant and the subject is run
// on it. A variant that still fails becomes the current one (it is
// smaller); one that passes names a cause, and the current variant stays.
// At most a budget of runs is spent (DefaultBudget, 8, one per
// simplification); what the budget leaves untried is listed. Result.Steps
// says what became of every simplification (a cause, kept, not
// applicable, untried, skipped) and why each that did not run did not;
// Cause says "not found" only when every applicable simplification ran
// and still failed, and names the budget when it ran out first.
//
// # The simplifications, in the order tried
//
//   - no-chaos: the failing run's chaos option removed.
//   - de-interleave: each content block's (each call's) events together,
//     in order of first appearance.
//   - renumber: content block (call) indices renumbered 0, 1, … in order
//     of first appearance.
//   - no-text: text and thinking removed; blocks numbered from 0 stay so
//     numbered, so removal never opens a gap.
//   - one-call: the first call kept, the others removed; the expected
//     calls become the first one.
//   - whole-arguments: each call's argument fragments joined into its
//     first.
//   - re-encode: the stream decoded and encoded again by conform's own
//     adapter, a coarse catch-all for wire quirks; tried only when nothing
//     more precise made the case pass, and only where the encoder keeps
//     the calls, text and finish the case decodes to.
//
// Which protocols get which: no-chaos and re-encode apply to every
// protocol. The five content simplifications apply as byte edits to
// recorded Anthropic streams (block indices, input_json_delta fragments,
// whole blocks) and to recorded Chat Completions and Mistral streams of
// one choice (tool_calls indices, argument fragments, whole chunks, where
// a chunk to move or drop carries one call entry, or text, and nothing
// else); and as edits of the events to canonical cases (events.json,
// any/...) in every protocol, whose encoder writes the edited events as
// it writes the case. Each applies only where the bytes change (Gemini,
// which writes every call whole, gets one-call and no-text but not
// whole-arguments). Recorded bytes of the other protocols (Responses and
// Cohere events, Gemini chunks, Bedrock frames, Ollama lines) get
// no-chaos and re-encode only.
//
// A byte edit reads the body with package sse, as the adapters do
// (sse.FlushAtEOF): every body the codec reads, comments (": OPENROUTER
// PROCESSING"), CRLF and data over several lines included. Each event
// keeps the bytes of its block, and the bytes between blocks (comment
// blocks, blank lines) stay where they are, so that writing the pieces
// back gives the body exactly; within an event only the value a
// simplification names is replaced, on the data line that holds it. An
// Anthropic stream must be of one message (block indices restart with
// each message). Streams broken on purpose (want/error.txt, incomplete
// calls) are not reduced.
//
// A call is an index and the id last sent on it: an entry (an event) with
// another id on an index already used starts another call, so two calls
// sent on one index with different ids are two calls, and renumber gives
// them two indices. A Chat Completions chunk may be moved or dropped
// whole when it carries one call entry (or text) and otherwise only what
// servers repeat on every chunk (the role, null or empty content).
//
// Result.Changes quotes the bytes: for each cause, the first served line
// it changed and the line it became, from the variant the cause was
// applied to (the kept simplifications replayed; they are pure).
//
// Every simplification is checked by TestSimplificationsKeepCalls: the
// reference adapter decodes every variant of every built-in stream case
// to the expected calls (the first, for one-call).
package reduce
