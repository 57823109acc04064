// Package streamenc holds what the stream encoders share: ResponseMeta (the
// response id and model of an event list), Indexes (the wire index of each
// call) and AppendCallArgs (which argument texts a call delta or end chunk
// writes).
package streamenc
