package core

import "errors"

// ErrInvalidUTF8 reports a body or stream with bytes that are not UTF-8.
// JSON exchanged between systems must be UTF-8 (RFC 8259 §8.1); a decoder
// refuses such input and names the first bad byte, rather than replacing
// it with U+FFFD, which would lose a byte of the arguments without a word.
// The escape \u0000 is valid JSON and decodes to U+0000; a raw control
// character, NUL included, is invalid in a JSON string and refused as
// malformed JSON.
var ErrInvalidUTF8 = errors.New("invalid UTF-8 (RFC 8259 §8.1)")
