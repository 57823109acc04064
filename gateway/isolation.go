package gateway

import (
	"regexp"
	"strings"

	"github.com/toolconform/conform/scenarios"
)

// outboundLine matches what a program prints when it tried to reach beyond
// loopback in a network namespace that has only loopback: no route
// (ENETUNREACH) or no name resolution (EAI_AGAIN, ENOTFOUND, Go's "no such
// host"). The namespace makes every such attempt fail at once; the
// gateway's own log is where the attempt shows.
var outboundLine = regexp.MustCompile(`(?i)(ENETUNREACH|network is unreachable|EAI_AGAIN|ENOTFOUND|getaddrinfo|no such host|temporary failure in name resolution)`)

// MaxOutboundLines bounds the lines an outbound finding quotes.
const MaxOutboundLines = 20

// OutboundFinding returns a failed result naming every line of a
// gateway's output that shows an attempt to reach beyond loopback, or
// false when there is none. It is named front>upstream/isolation/outbound.
func OutboundFinding(t Target, output string) (Result, bool) {
	var lines []string
	for _, l := range strings.Split(output, "\n") {
		if outboundLine.MatchString(l) {
			if len(lines) < MaxOutboundLines {
				lines = append(lines, l)
			}
		}
	}
	if len(lines) == 0 {
		return Result{}, false
	}
	return Result{
		Name: t.Front + ">" + t.Upstream + "/isolation/outbound", Scenario: "isolation/outbound",
		Front: t.Front, Upstream: t.Upstream, Severity: "MUST", Status: StatusFail,
		Problems: []scenarios.Problem{{Rule: "outbound", Message: "the gateway tried to reach beyond loopback; in its network namespace the attempt failed"}},
		Evidence: []Evidence{{What: "gateway output", Bytes: strings.Join(lines, "\n")}},
	}, true
}
