// Package streamdec is the skeleton every stream decoder shares.
//
// Queue holds the events decoded from one wire event until Next takes
// them, stamping the response id and model on the first; Pull is the Next
// loop over it. Input counts the bytes a decoder reads and remembers
// whether any event of its protocol was seen, so that NotStream tells input
// with no event of the protocol (core.ErrNotStream, at the offset of the
// first unusable event) from blank input, the same whatever the read sizes.
// Vouched keeps the argument texts a decoder checked, for the VouchArgs
// method core.Collect asks; Pool keeps the decoders of ended streams for
// the next ones.
package streamdec
