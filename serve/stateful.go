package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/scenarios"
)

// statefulParam is what an OpenAI Responses request says about server-side
// state: the response it continues and whether its own response is kept.
type statefulParam struct {
	previous string
	// noStore is set by "store": false; the API then keeps nothing.
	noStore bool
}

// statefulOf reads previous_response_id and store from a Responses body.
// The adapter's canonical request has neither, so they come from the raw
// body.
func statefulOf(protocol string, body []byte) (statefulParam, *httpError) {
	if !descriptor(protocol).Grading.StoredResponses {
		return statefulParam{}, nil
	}
	var w struct {
		PreviousResponseID json.RawMessage `json:"previous_response_id"`
		Store              *bool           `json:"store"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return statefulParam{}, nil // the adapter reports a body that is not JSON
	}
	p := statefulParam{noStore: w.Store != nil && !*w.Store}
	raw := bytes.TrimSpace(w.PreviousResponseID)
	if len(raw) == 0 || string(raw) == "null" {
		return p, nil
	}
	if err := json.Unmarshal(raw, &p.previous); err != nil {
		return p, fail(http.StatusBadRequest, "invalid_request_error", "serve: previous_response_id: %s is not a string", describe(raw))
	}
	if p.previous == "" {
		return p, fail(http.StatusBadRequest, "invalid_request_error", "serve: previous_response_id: empty string")
	}
	return p, nil
}

// storedResponse is a response kept for previous_response_id: the whole
// conversation up to and including it.
type storedResponse struct {
	name     string
	messages []core.Message
	// noStore marks a response created with "store": false, kept only to
	// say so when a client names it.
	noStore bool
}

func (s *Server) lookupResponse(id string) (storedResponse, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.responses[id]
	return r, ok
}

// MaxKeptResponses bounds the OpenAI Responses conversations a server keeps
// for previous_response_id, so that its memory does not grow with every
// request of a long load run. Responses past it are not kept, and a
// verdict note says so.
const MaxKeptResponses = 10000

// storeResponse keeps a Responses conversation under the id of its last
// response. A response created with store false keeps no messages. It
// returns a note when the response could not be kept.
func (s *Server) storeResponse(id, name string, st statefulParam, messages []core.Message) string {
	if id == "" {
		return ""
	}
	r := storedResponse{name: name, noStore: st.noStore}
	if !st.noStore {
		r.messages = messages
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, had := s.responses[id]
	if !had && len(s.responses) >= s.maxKept || !s.keep(messagesSize(r.messages), messagesSize(old.messages)) {
		s.dropped++
		return fmt.Sprintf("response %s not kept for previous_response_id: serve keeps at most %d responses and %d bytes of kept conversations", id, s.maxKept, s.maxKeptBytes)
	}
	s.responses[id] = r
	return ""
}

// expandResponse puts the stored conversation named by previous_response_id
// before the request's own messages, as the API does (G08). It returns the
// problems of a stateful follow-up: an id this server never issued, or one
// created with store false, and items of the stored response sent again
// ("Duplicate item"). When items are sent again the request is graded on
// its own messages, the stored ones left out, so the duplicates are not
// counted twice. missing reports that there is no conversation to expand.
func (s *Server) expandResponse(req *core.Request, st statefulParam) (problems []scenarios.Problem, missing bool) {
	prev, ok := s.lookupResponse(st.previous)
	switch {
	case !ok:
		msg := fmt.Sprintf("previous_response_id %q names no response this server issued", st.previous)
		s.mu.Lock()
		if s.dropped > 0 {
			msg += fmt.Sprintf(" or kept (%d responses past the limit of %d were not kept)", s.dropped, s.maxKept)
		}
		s.mu.Unlock()
		return []scenarios.Problem{{Rule: "G08", Message: msg}}, true
	case prev.noStore:
		return []scenarios.Problem{{Rule: "G08", Message: fmt.Sprintf("previous_response_id %q names a response created with store false, which the API does not keep", st.previous)}}, true
	}
	calls := map[string]bool{}
	items := map[string]bool{}
	for _, m := range prev.messages {
		for _, p := range m.Parts {
			if p.ItemID != "" {
				items[p.ItemID] = true
			}
			if p.Call != nil {
				calls[p.Call.ID] = true
				if p.Call.ItemID != "" {
					items[p.Call.ItemID] = true
				}
			}
		}
	}
	for _, m := range req.Messages {
		for _, p := range m.Parts {
			switch {
			case p.Call != nil && (calls[p.Call.ID] || items[p.Call.ItemID]):
				problems = append(problems, scenarios.Problem{Rule: "G08", Message: fmt.Sprintf("function_call %s (%s) is sent again with previous_response_id %q, which already holds it; the API answers 400 \"Duplicate item\"", p.Call.ID, p.Call.Name, st.previous)})
			case p.Kind == core.PartThinking && p.ItemID != "" && items[p.ItemID]:
				problems = append(problems, scenarios.Problem{Rule: "G08", Message: fmt.Sprintf("reasoning item %s is sent again with previous_response_id %q, which already holds it; the API answers 400 \"Duplicate item\"", p.ItemID, st.previous)})
			}
		}
	}
	// One report per reasoning item, however many summary parts it has.
	problems = slices.CompactFunc(problems, func(a, b scenarios.Problem) bool { return a.Rule == b.Rule && a.Message == b.Message })
	if len(problems) == 0 {
		req.Messages = append(slices.Clone(prev.messages), req.Messages...)
	}
	return problems, false
}
