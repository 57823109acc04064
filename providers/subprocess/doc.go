// Package subprocess runs an adapter written in any language as a child
// process that answers questions in newline-delimited JSON on its standard
// input and output. docs/adapter-protocol.md states the protocol; this
// package is the harness side of it.
//
// One question is in flight at a time. Every answer has a deadline. A child
// that crashes, writes something that is not an answer, or answers the wrong
// question fails that question only: the child is killed and a fresh one is
// started for the next question, so a broken adapter never takes the
// harness down with it. A child that misses a deadline is killed and not
// asked again: every later question fails at once, naming the first
// timeout, so a hanging adapter costs one deadline, not one per question.
//
// An operation the child does not list in its hello answer fails with
// core.NotImplementedError (the case is not graded); one it lists and then
// refuses with "unsupported" fails with errors.ErrUnsupported (a refusal,
// held to the protocol's features).
//
// The child runs as internal/process runs every subject, --client programs
// included: sh -c in a process group of its own, killed whole; an *Error
// carries the first KiB and the last 4 KiB of its standard error.
package subprocess
