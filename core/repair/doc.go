// Package repair fixes model-made JSON that is almost, but not quite, valid,
// and previews the arguments of a tool call that is still streaming.
//
// # Repair
//
// Repair wraps github.com/kaptinlin/jsonrepair behind guards, because the
// library on its own breaks properties a conformance harness depends on.
// Repair keeps these rules:
//
//   - Valid JSON is returned unchanged, with changed == false, and the
//     library is never called for it. This alone fences off three upstream
//     faults: the library doubles the backslashes of some valid strings
//     ({"p":"C:\\Program Files\\App"} comes back with four backslashes), it
//     rejects valid input such as {"cmd":"/bin/echo \"hi\""} with "colon
//     expected", and it changes other valid documents it should leave alone.
//   - Input longer than MaxInputBytes is refused with ErrTooLarge before any
//     work is done, so a hostile stream cannot make the library (which copies
//     its input into a rune slice) allocate without bound.
//   - Input nested deeper than MaxDepth (core.MaxDepth, 512) is refused with
//     ErrTooDeep and the offset of the bracket too many, by a count made
//     without recursion before anything else: the library recurses once per
//     level with no limit (2,090,000 open brackets overflow the stack and
//     kill the process), and encoding/json gives up on valid JSON deeper
//     than 10,000 levels, which would send valid input to the library.
//   - The library's time grows with the square of its input (each comma it
//     writes or inserts copies its output so far; 64 KiB of missing commas
//     take seconds), so text that needs it and is longer than
//     MaxLibraryBytes (8 KiB) is refused with ErrTooLarge. Every other step
//     of Repair is linear in its input; BenchmarkRepair shows both.
//   - Input that ends inside an open string, object or array is refused with
//     ErrTruncated. Closing such input would turn a truncated tool call into
//     a complete-looking one (B09, B10, B11); completing a prefix is what
//     Preview is for, and Preview never claims its result is final.
//   - Raw control characters inside strings (B07) are escaped by this
//     package, not by the library: the library either rejects them
//     ("/\x03" fails with "invalid character") or copies them into its output
//     unescaped, and its handling of them is not idempotent. When escaping
//     them is the only repair needed, the library is not called at all.
//   - A backslash inside a string that starts no valid escape (\x41, a
//     short \u00e) is doubled by this package, so the text survives as
//     written; the library drops such a backslash ({"a":"\x41"} becomes
//     {"a":"x41"}) or rejects the input.
//   - The library's output is checked with json.Valid. It can emit invalid
//     JSON: a bare e becomes e0 ({"a":e} comes back as {"a":e0}). Such output
//     is an ErrUnrepairable error, never returned.
//   - Every string literal of the input that is already a valid JSON string
//     must reappear, with the same content and in the same order, in the
//     output; otherwise the repair rewrote data and is refused with
//     ErrUnsafeRepair. This fences off the backslash doubling for strings
//     inside documents that do need a repair elsewhere
//     ({"p":"C:\\Program Files\\App",} for instance).
//   - A panic inside the library is recovered and reported as
//     ErrUnrepairable.
//
// Repair does not promise the shape of its output: newline-separated
// objects become an array and stray text becomes a JSON string. Callers
// that need an object (core.Buffer does) must check. testdata/repair.golden
// records what Repair and Preview make of a list of model-made inputs
// (regenerate with go test -run TestGolden -update, then read the diff).
//
// Because the output of a successful Repair is valid JSON, and valid JSON is
// returned unchanged, Repair is idempotent by construction:
// Repair(Repair(x)) == Repair(x). FuzzRepair checks this, together with the
// other rules, against seeds taken from the recorded corpus and the inputs
// listed above.
//
// Errors carry the byte offset of the fault in the input (an *Error), and
// wrap one of the sentinels so callers can branch with errors.Is.
//
// # Preview
//
// Preview is a small parser of this package's own, independent of the
// library, that turns an incomplete JSON prefix into a valid JSON value for
// display: open strings are closed (an incomplete escape or UTF-8 sequence at
// the end is dropped), open arrays and objects are closed, a dangling key or
// a key without a value is dropped with its comma, an incomplete number is
// cut back to its last valid form and a partial true, false or null is
// completed. A prefix that is not the beginning of any JSON document gives
// ok == false. Preview is for user interfaces only: its result must never be
// executed as a tool call's arguments.
package repair
