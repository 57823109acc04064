// Package streamenc holds what the stream encoders share: ResponseMeta (the
// response id and model of an event list), Indexes (the wire index of each
// call), AppendCallArgs (which argument texts a call delta or end chunk
// writes) and CheckKinds (the event kinds an encoder refuses).
package streamenc
