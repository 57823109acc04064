package oaichat

import (
	"regexp"

	"github.com/toolconform/conform/providers/protocol"
)

// ErrorStatuses are the statuses OpenAI's API sends with its error types
// and codes (OpenAI API documentation, "Error codes": 401 invalid key, 403
// unsupported region, 429 rate limit and quota, 500 server error), and
// FastAPI's 422 for a request body it cannot validate, {"detail": [{"loc",
// "msg", "type"}]} (FastAPI documentation, "Handling Errors"), which
// compatible servers built on it send.
var ErrorStatuses = protocol.ErrorStatuses{
	Types: map[string]int{
		"invalid_request_error":                400,
		"invalid_api_key":                      401,
		"authentication_error":                 401,
		"permission_error":                     403,
		"unsupported_country_region_territory": 403,
		"model_not_found":                      404,
		"not_found_error":                      404,
		"rate_limit_exceeded":                  429,
		"rate_limit_error":                     429,
		"insufficient_quota":                   429,
		"server_error":                         500,
	},
	Bodies: []protocol.BodyStatus{
		{Body: regexp.MustCompile(`^\s*\{\s*"detail"\s*:\s*\[`), Status: 422},
	},
}
