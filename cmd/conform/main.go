// Command conform is a conformance test harness and fuzzing suite for LLM
// tool calling. Run "conform help" for its commands.
//
// Every command exits with 0 when all passed or was done, 1 when a check
// failed or a body could not be decoded, and 2 for bad usage or input that
// could not be read; the message names the file, byte offset, JSON path or
// flag. The scripts under testdata/script check the exact status of every
// bad input with their exitcode command, since "! exec" tells only zero
// from non-zero.
//
// Some choices behind the statuses:
//
//   - A flag given explicitly with an empty value (an empty --exec, --adapter ",")
//     is a usage error, never the flag's default: an unset shell variable
//     must not turn a run of one adapter into a run of all of them.
//   - conform run --exec refuses an adapter whose hello names a protocol no
//     built-in adapter has (2): it would select no scenario and pass.
//   - A run whose selected cases were all skipped checked nothing and fails
//     (1), as a known-failing case that passes does.
//   - A scenario directory that cannot be read, or holds a broken case, is
//     unreadable input (2), named as DIR/relative path.
package main

import (
	"context"
	"os"
)

func main() { os.Exit(Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
