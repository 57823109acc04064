// Package jsonstr reads and writes JSON strings the way the adapters need
// them, and holds the text rule.
//
// UnquoteRaw and QuoteRaw keep bytes that are not valid UTF-8, so that a
// character split between two stream deltas reassembles exactly (B05);
// AppendUnescaped is the unescaper under UnquoteRaw, with a reused buffer
// and its report of lone surrogates, which the fast paths call directly.
// CheckUTF8, InvalidUTF8At and CheckText apply the one text rule (RFC 8259
// §8.1): text that is not UTF-8 is refused with the offset of its first bad
// byte, never replaced by U+FFFD.
package jsonstr
