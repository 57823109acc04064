package protocol

import (
	"net/http"
	"regexp"
	"strconv"

	"github.com/toolconform/conform/core"
)

// ErrorStatuses says which HTTP status an API sends with an error body it
// answers a refused request with, from the API's documentation. The rule
// is Status: the body's own code when it is an HTTP error status, else
// the status of its code or type (Types), else the status of the first
// documented body it matches (Bodies), else 400.
type ErrorStatuses struct {
	// Types maps error types and codes, as the adapter decodes them into
	// core.ProviderError, to statuses.
	Types map[string]int
	// Bodies are error bodies without a type that the documentation lists
	// under a status.
	Bodies []BodyStatus
}

// BodyStatus is a documented error body, matched as bytes, and its status.
type BodyStatus struct {
	Body   *regexp.Regexp
	Status int
}

// Status returns the HTTP status sent with the error body, which the
// protocol's adapter decoded into e. A body that says nothing the rules
// know gets 400, the status every API here documents for a request it
// refuses.
func (s ErrorStatuses) Status(body []byte, e *core.ProviderError) int {
	if e != nil {
		if n, err := strconv.Atoi(e.Code); err == nil && n >= 400 && n <= 599 {
			return n
		}
		for _, k := range []string{e.Code, e.Type} { // a code is the more specific
			if n, ok := s.Types[k]; ok && k != "" {
				return n
			}
		}
	}
	for _, b := range s.Bodies {
		if b.Body.Match(body) {
			return b.Status
		}
	}
	return http.StatusBadRequest
}
