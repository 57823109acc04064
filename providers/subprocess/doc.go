// Package subprocess runs an adapter written in any language as a child
// process that answers questions in newline-delimited JSON on its standard
// input and output. docs/adapter-protocol.md states the protocol; this
// package is the harness side of it.
//
// One question is in flight at a time. Every answer has a deadline; a child
// that crashes, hangs, writes something that is not an answer, or answers
// the wrong question fails that question only: the child is killed and a
// fresh one is started for the next question, so a broken adapter never
// takes the harness down with it.
package subprocess
