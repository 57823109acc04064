package adaptertest

import (
	"encoding/json"

	"pgregory.net/rapid"
)

// DrawText draws a short text, 1 to 12 characters, from an alphabet that
// tests escaping: quotes, backslashes, newlines, JSON punctuation, Latin
// letters with accents and an emoji (four UTF-8 bytes, a surrogate pair in
// a JSON \u escape).
func DrawText(t *rapid.T, label string) string {
	return rapid.StringMatching(`[a-zA-Z0-9 äé😀"\\\n{}:,]{1,12}`).Draw(t, label)
}

// DrawArgs draws tool-call arguments: a JSON object, compact as
// encoding/json writes it, of up to four fields whose values are integers,
// booleans or strings with quotes, backslashes, newlines and non-ASCII
// letters.
func DrawArgs(t *rapid.T, label string) json.RawMessage {
	m := rapid.MapOfN(rapid.StringMatching(`[a-z]{1,5}`), rapid.OneOf(
		rapid.Map(rapid.IntRange(-1000, 1000), func(i int) any { return i }),
		rapid.Map(rapid.StringMatching(`[a-zA-Z ä"\\\n]{0,8}`), func(s string) any { return s }),
		rapid.Map(rapid.Bool(), func(b bool) any { return b }),
	), 0, 4).Draw(t, label)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// DrawCuts cuts s into pieces of drawn lengths, on rune boundaries: a
// JSON string on the wire cannot carry half a UTF-8 sequence, so an
// argument delta never does. The pieces join to s; there are none for "".
func DrawCuts(t *rapid.T, s string) []string {
	var parts []string
	runes := []rune(s)
	for len(runes) > 0 {
		k := rapid.IntRange(1, len(runes)).Draw(t, "cut")
		parts = append(parts, string(runes[:k]))
		runes = runes[k:]
	}
	return parts
}
