// Command conform is a conformance test harness and fuzzing suite for LLM
// tool calling. Run "conform help" for its commands.
package main

import (
	"context"
	"os"
)

func main() { os.Exit(Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
