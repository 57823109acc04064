// Package adaptertest holds the test helpers the provider adapters share.
// It is a normal package so that several packages' _test.go files can
// import it; nothing else may.
//
// It gives:
//
//   - Recordings: the recorded request and response bodies of one protocol,
//     read from the imported cassettes of package cassettes (byte-exact
//     copies of testdata/corpus), each named by the corpus file it came
//     from, so golden files keep their names;
//   - SplitReader and CheckSplitStreams: a reader that hands out data in
//     pieces of chosen sizes, and the property that a decoder gives the
//     same events however its input is cut;
//   - Drain: an EventStream read to its end, with a bound;
//   - EquateJSON: a go-cmp option comparing json.RawMessage as JSON;
//   - CheckGolden and the -update flag: golden files under testdata/
//     written as indented JSON.
//
// The -update flag is defined here, once, so a test package that imports
// adaptertest must not define its own.
package adaptertest
