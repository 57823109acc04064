// Package protocol holds the descriptor type of a wire protocol and the
// HTTP facts of every protocol conform knows: where requests go, how a
// stream is asked for and framed, how the key travels, and how a recorded
// URL or response payload is recognised.
//
// The endpoint rows sit in this leaf package, which imports only core,
// so that packages below the adapters (cassettes) can read them; every
// other fact about protocol p is in the Protocol value that package
// providers/<p> exports. See providers' package doc for the checklist of
// a new protocol.
package protocol
