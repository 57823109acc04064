// Package gateway grades translating gateways: proxies that take requests
// in one wire protocol (the front, P) and send them on in another (the
// upstream, Q). conform plays both ends.
//
//	up, _ := gateway.NewUpstream(cases, serve.Chaos{})    // conform serve, one case at a time
//	// ... start the gateway with its upstream pointed at up (an http.Handler) ...
//	results := gateway.Run(ctx, up, gateway.Target{Front: "anthropic", Upstream: "gemini", URL: gatewayURL}, up.Names("gemini"))
//
// For each scenario servable in Q, and for a whole and a streamed request,
// Check:
//
//  1. sends the scenario's request in P (FirstRequest: its tools, tool
//     choice and parallel flag, one user message) to the gateway;
//  2. grades the request the gateway sent upstream against that request as
//     Q's adapter carries it (encoded and decoded again): tool names (E04),
//     schemas (H01), tool choice (F08), parallel flag (H04);
//  3. reads the gateway's answer strictly: CheckStream's rules of P's
//     stream (block order and indexes A19/A21, tool_use start input I01,
//     empty text blocks I05, finish against calls I05/F03, terminators
//     I01), then P's reference decoder, where any error is a problem;
//  4. holds the answer to what serve sent, decoded by Q's reference
//     decoder (which the scenario tests hold to the scenario's
//     expectations): the same complete calls (C03), names (I06), arguments
//     as JSON (I04), ids where both wires carry them (D03), no call that
//     was incomplete upstream (B09), the same text (F06), a finish that
//     agrees (I05, F03, F04), an upstream error passed on (I03);
//  5. when calls came back, sends the follow-up in P (the assistant turn as
//     received, one result per call echoing its arguments) and takes
//     serve's grade of what the gateway sent upstream (serve.Grade: ids,
//     names, arguments, order, results; a changed result is G10). The
//     results come in the form formFor picks by the case's name (plain,
//     or marked as errors where P carries the flag), and a flag lost on
//     the way upstream is I07.
//
// Every problem names a failure mode of failuremodes/FAILURE-MODES.md.
// Results quote the bytes they were read from (Evidence). docs/gateway.md
// describes the command and the spec file that starts a gateway.
//
// A Runner runs the cases of one gateway with a bound on each case
// (CaseTimeout, rule case-timeout) and, given Exited (Process.Exited),
// reports a gateway that died: the case it died in fails with rule
// gateway-died, its exit status and last output, and no later case is run.
// File is the JSON of conform gateway: the Provenance, the failures
// grouped by fault (Groups) and the results.
package gateway
