// Package ollama grades Ollama's tool-call text parsers
// (github.com/ollama/ollama/model/parsers and its harmony parser, at the
// version go.mod pins) in-process against conform's reference parsers and
// the test vectors, as conform run --format-parser grades a subprocess:
// every vector of each format both have, whole, in the source's chunks,
// cut into bytes, code points, at markers and at random. It is a module
// of its own so that Ollama stays out of conform's go.mod.
//
// TestOllamaParsers checks that RESULTS.md is what the grading gives
// (go test -run TestOllamaParsers -write rewrites it); the benchmarks
// compare each conform parser with Ollama's on the same text.
package ollama
