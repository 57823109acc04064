// Package vendorerr reads the error bodies that vendors and gateways send
// in place of a protocol's own: an error object or string, detail, message,
// lists of errors. FromBody turns one into a *core.ProviderError, Fallback
// reports a body an adapter could not decode as that error when it is one,
// and GuardStream does the same for a stream whose first bytes are an error
// body instead of events.
package vendorerr
