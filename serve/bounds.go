package serve

import (
	"fmt"
	"net/http"
	"time"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/scenarios"
)

// The bounds of what a server keeps and how long it waits, so that its
// memory and connections follow the scenarios served, not the requests an
// attacker sends. A request naming an unknown scenario keeps nothing.
const (
	// MaxKeptBytes bounds the conversations kept for Anthropic threads and
	// OpenAI Responses previous_response_id together, counted by
	// messagesSize; a conversation past it is not kept, and a verdict note
	// says so.
	MaxKeptBytes = 256 << 20
	// MaxKeptThreads bounds the Anthropic threads kept.
	MaxKeptThreads = 10000
	// MaxVerdictErrors bounds the refused requests a verdict lists; later
	// ones are counted in ErrorsDropped.
	MaxVerdictErrors = 20
	// MaxVerdictProblems bounds the problems a verdict lists; later ones
	// are counted in ProblemsDropped.
	MaxVerdictProblems = 100
	// MaxVerdictText bounds one error or note kept in a verdict.
	MaxVerdictText = 1024
	// MaxFollowUpBody bounds the follow-up body kept in a verdict (the
	// rest is cut and FollowUpCut set).
	MaxFollowUpBody = 64 << 10
)

// The http.Server timeouts of ServeListener: a request's headers must
// arrive within ReadHeaderTimeout and its whole body within ReadTimeout; an
// idle keep-alive connection is closed after IdleTimeout. No write timeout:
// the delay chaos streams slowly on purpose.
const (
	ReadHeaderTimeout = 10 * time.Second
	ReadTimeout       = 30 * time.Second
	IdleTimeout       = 60 * time.Second
	MaxHeaderBytes    = 64 << 10
)

// httpServer returns the http.Server of ServeListener.
func (s *Server) httpServer() *http.Server {
	read, header := s.readTimeout, s.readTimeout
	if read <= 0 {
		read, header = ReadTimeout, ReadHeaderTimeout
	}
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: header,
		ReadTimeout:       read,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
		Protocols:         Protocols(),
	}
}

// Protocols returns the HTTP versions a loopback listener of conform
// accepts: HTTP/1.1, and HTTP/2 with prior knowledge over plain TCP (h2c,
// RFC 9113 section 3.3), which some clients use for http:// URLs (the AWS
// SDK for JavaScript's default handler). HTTP/2 over TLS does not arise:
// the listeners are plain loopback ones.
func Protocols() *http.Protocols {
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	return &p
}

// messagesSize estimates the bytes a kept conversation holds: its strings
// and a fixed cost per part and message.
func messagesSize(msgs []core.Message) int {
	n := 0
	for _, m := range msgs {
		n += 64
		for _, p := range m.Parts {
			n += 64 + len(p.Text) + len(p.Signature) + len(p.Data) + len(p.ItemID)
			if c := p.Call; c != nil {
				n += len(c.ID) + len(c.ItemID) + len(c.Name) + len(c.Arguments) + len(c.Signature) + len(c.Original)
			}
			if r := p.Result; r != nil {
				n += len(r.CallID) + len(r.Name)
				for _, q := range r.Content {
					n += 64 + len(q.Text) + len(q.Data)
				}
			}
		}
	}
	return n
}

// keep reserves room for a conversation of size bytes replacing one of old
// bytes; the caller holds s.mu. It reports false when the budget is spent.
func (s *Server) keep(size, old int) bool {
	if s.keptBytes-old+size > s.maxKeptBytes {
		return false
	}
	s.keptBytes += size - old
	return true
}

// clip cuts a text kept in a verdict to MaxVerdictText bytes.
func clip(s string) string {
	if len(s) <= MaxVerdictText {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes cut)", s[:MaxVerdictText], len(s)-MaxVerdictText)
}

// addError records a refused request in v, bounded.
func (v *Verdict) addError(msg string) {
	if len(v.Errors) >= MaxVerdictErrors {
		v.ErrorsDropped++
		return
	}
	v.Errors = append(v.Errors, clip(msg))
}

// setProblems replaces v's problems, bounded.
func (v *Verdict) setProblems(ps []scenarios.Problem) {
	v.ProblemsDropped = 0
	if len(ps) > MaxVerdictProblems {
		v.ProblemsDropped = len(ps) - MaxVerdictProblems
		ps = ps[:MaxVerdictProblems]
	}
	for i := range ps {
		ps[i].Message = clip(ps[i].Message)
	}
	v.Problems = Cite(ps)
}

// setFollowUp keeps the body of the follow-up that was graded, bounded.
func (v *Verdict) setFollowUp(body []byte) {
	v.FollowUpCut = len(body) > MaxFollowUpBody
	if v.FollowUpCut {
		body = body[:MaxFollowUpBody]
	}
	v.FollowUp = string(body)
}

// retained returns the number of verdicts, threads and kept responses
// and the bytes their strings hold, for the bounds tests.
func (s *Server) retained() (entries, bytes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, v := range s.verdicts {
		entries++
		bytes += len(name) + len(v.FollowUp)
		for _, e := range v.Errors {
			bytes += len(e)
		}
		for _, n := range v.Notes {
			bytes += len(n)
		}
		for _, p := range v.Problems {
			bytes += len(p.Message)
		}
	}
	for id := range s.threads {
		entries++
		bytes += len(id)
	}
	for id := range s.responses {
		entries++
		bytes += len(id)
	}
	return entries, bytes + s.keptBytes
}
