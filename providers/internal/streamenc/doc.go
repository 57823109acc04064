// Package streamenc holds what the stream encoders share: ResponseMeta (the
// response id and model of an event list), Indexes (the wire index of each
// call), AppendCallArgs (which argument texts a call delta or end chunk
// writes), CheckKinds and CheckKind (the event kinds an encoder refuses)
// and Source (the events an encoder writes, a list's or a live stream's,
// so that one encoder writes EncodeStream and EncodeLiveStream).
package streamenc
