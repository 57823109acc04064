// Package publish reads the JSON results of every kind of conform run — the
// adapters of conform run, the client programs of run --client, the
// gateways of conform gateway, each whole or merged from shards — into one
// view, and writes that view as a markdown summary, as JUnit XML, or as a
// static site.
//
// A Run is one result file: the subject it graded (an adapter, a client
// set-up, a gateway), when and with which conform, and its cases. Read
// tells the kinds apart by their shape: a JSON object with "results" and
// "coverage" is conform run's report, a JSON array (or an object whose
// results name a "front") is gateway's, and JSON lines closed by a
// "totals" line are run --client's. A client or gateway file does not name
// its subject; the caller does (by default the file's name).
//
// The site has an index of subjects with a badge each, a page per subject
// (its pinned version where the run said it, date, conform version, counts
// per protocol and variant, every failure with its failure mode, reduced
// cause and bytes), a page per failure mode (which subjects fail it), and a
// history per subject when runs of several dates are given. It is plain
// HTML and SVG with no script, so any static host serves it.
package publish
