// Package core is the vocabulary of conform: calls and results, the
// canonical conversation (Request, Message, Response), the canonical stream
// Event, the streaming Buffer that reassembles tool calls from chunks,
// Collect, history checks, the Adapter interface every wire protocol
// implements, features, the tool-name rule every provider accepts, and the
// limits (Limits, MaxDepth).
//
// The tool runtime (Tool, Registry, validation, execution) is package
// tools, above core. The design decisions of the streaming Buffer (one
// decision per stream-level failure mode) are written in buffer_doc.go.
//
// core imports only the standard library and its own sub-packages
// (core/repair for JSON repair); TestImports keeps it so.
package core
