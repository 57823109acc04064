// Package jsonscan is the JSON scanner the adapters' stream fast paths
// share: it reads the common shapes of a provider's stream events straight
// from the event bytes, without encoding/json, and gives up on anything
// else, so that the general path decodes it.
//
// # The contract
//
// A Scanner never decides what a value means; it only says whether the
// bytes are inside the subset a fast path can read exactly as
// encoding/json would decode them into the general path's structs. Every
// method reports false for anything outside that subset, syntax errors
// included, and a fast path that sees false changes nothing and hands the
// event to its general path. So the scanner may refuse more than it needs
// to (it costs only speed), but never accept what encoding/json would read
// differently. Hence the rules:
//
//   - keys must be plain, unescaped ASCII: an escaped or non-ASCII key may
//     match a field once encoding/json unescapes or case folds it;
//   - a key the caller reads must be spelled exactly as listed and appear
//     once: encoding/json matches case-folded keys and lets the last of
//     repeated keys win;
//   - a key the caller does not read is skipped only when it matches none
//     of the json names of the general path's struct, case folded
//     (Ignored), since encoding/json ignores exactly those;
//   - a skipped value must be valid JSON of at most MaxDepth levels
//     (core.MaxDepth, as everywhere), and its strings valid UTF-8;
//   - numbers a caller reads as integers (Small) are plain non-negative
//     integers of at most 9 digits.
//
// String values come back as the bytes between the quotes with a flag
// saying whether they hold escapes. Strings turns them into Go strings:
// Text as encoding/json would decode them (refusing invalid UTF-8 and lone
// surrogate escapes, which encoding/json replaces), Raw as jsonstr.UnquoteRaw
// would (bytes that are not UTF-8 pass unchanged). Both copy small strings
// into an append-only arena, so that a stream of small deltas costs an
// allocation per arena block rather than one per string. Arena and
// Unescape do the same over buffers a caller already holds, and Take and
// Slab hand out the fast paths' per-event values (a *core.Chunk) from slabs
// (a Slab's grow from one value, so that a short stream pays for few).
//
// # Why one package
//
// The Chat Completions, Responses and Gemini fast paths were written
// separately and carried three copies of the same string, number and value
// scanner, with the same arena. The copies differed only in small ways
// (one checked the UTF-8 of skipped strings, one accepted empty objects);
// this package keeps the stricter choice where they differed, so that no
// fast path accepts more than it did, and lets each caller refuse the
// rest (an empty object, for instance) before calling Object.
package jsonscan
