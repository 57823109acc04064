// Package core is the vocabulary of conform: tools and their registry, calls
// and results, the canonical conversation (Request, Message, Response), the
// canonical stream Event, the streaming Buffer that reassembles tool calls
// from chunks, and the Adapter interface every wire protocol implements.
//
// The design decisions of the tool side (schemas, names, validation,
// execution) are written in tool_doc.go, and those of the streaming Buffer
// (one decision per stream-level failure mode) in buffer_doc.go.
//
// core imports only the standard library and its own sub-packages
// (core/schema for schema inference and validation, core/repair for JSON
// repair).
package core
