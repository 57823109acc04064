package gateway

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/toolconform/conform/scenarios"
	"github.com/toolconform/conform/serve"
)

// MaxExchangeBody bounds each body an Upstream keeps of an exchange.
const MaxExchangeBody = 4 << 20

// Exchange is one request a gateway sent upstream and what serve answered.
type Exchange struct {
	Method, Path string
	Body         []byte
	Status       int
	Response     []byte
	// Cut reports that a body was longer than MaxExchangeBody and cut.
	Cut bool
	// Dropped reports that serve dropped the connection after Response
	// (chaos disconnect): the gateway read it to an unexpected EOF.
	Dropped bool
}

// Upstream is the upstream end of gateway grading: conform serve behind a
// handler that serves one scenario at a time (to requests that name none,
// as a gateway's do) and keeps the exchanges of the current case.
type Upstream struct {
	cases []*scenarios.Scenario
	chaos serve.Chaos
	names []string
	list  *serve.Server // lists the servable scenarios

	mu        sync.Mutex
	srv       *serve.Server
	exchanges []Exchange
	// pending are closed as the exchanges under way end.
	pending []chan struct{}
}

// exchangeWait bounds how long Exchanges waits for exchanges under way.
const exchangeWait = 30 * time.Second

// NewUpstream returns an upstream serving from cases, with chaos applied to
// every response.
func NewUpstream(cases []*scenarios.Scenario, chaos serve.Chaos) (*Upstream, error) {
	srv, err := serve.New(serve.Options{Scenarios: cases})
	if err != nil {
		return nil, err
	}
	return &Upstream{cases: cases, chaos: chaos, names: srv.Names(), list: srv}, nil
}

// Names returns the names of the scenarios servable in protocol, in
// order.
func (u *Upstream) Names(protocol string) []string {
	var out []string
	for _, n := range u.names {
		if p, _ := u.list.Protocol(n); p == protocol {
			out = append(out, n)
		}
	}
	return out
}

// Scenario returns the named servable scenario.
func (u *Upstream) Scenario(name string) (*scenarios.Scenario, bool) {
	return u.list.Scenario(name)
}

// Begin starts a case: a fresh server (no verdict, no kept conversation
// of an earlier case) serves the named scenario, and the kept exchanges
// are dropped.
func (u *Upstream) Begin(name string) error {
	srv, err := serve.New(serve.Options{Scenarios: u.cases, Scenario: name, Chaos: u.chaos, Echo: true, EchoErrors: true})
	if err != nil {
		return err
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.srv, u.exchanges, u.pending = srv, nil, nil
	return nil
}

// Exchanges returns the exchanges of the current case, in order, once
// those under way have ended (a gateway may read serve's whole answer
// before serve's handler has returned), or after exchangeWait.
func (u *Upstream) Exchanges() []Exchange {
	u.mu.Lock()
	pending := u.pending
	u.mu.Unlock()
	timer := time.NewTimer(exchangeWait)
	defer timer.Stop()
	for _, ch := range pending {
		select {
		case <-ch:
		case <-timer.C:
		}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]Exchange(nil), u.exchanges...)
}

// Verdict returns serve's verdict on the named scenario of the current
// case.
func (u *Upstream) Verdict(name string) (serve.Verdict, bool) {
	u.mu.Lock()
	srv := u.srv
	u.mu.Unlock()
	if srv == nil {
		return serve.Verdict{}, false
	}
	return srv.Verdict(name)
}

// ServeHTTP passes a request to the current case's server and keeps the
// exchange.
func (u *Upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	done := make(chan struct{})
	defer close(done)
	u.mu.Lock()
	srv := u.srv
	u.pending = append(u.pending, done)
	u.mu.Unlock()
	if srv == nil {
		http.Error(w, "conform gateway: no case is running", http.StatusServiceUnavailable)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, serve.DefaultMaxBody+1))
	ex := Exchange{Method: r.Method, Path: r.URL.Path}
	ex.Body, ex.Cut = cut(body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	// serve aborts a connection it drops on purpose (chaos disconnect)
	// with a panic the http package recovers; the exchange is kept first.
	defer func() {
		p := recover()
		ex.Dropped = p == http.ErrAbortHandler
		ex.Status = rec.status
		ex.Response = rec.buf.Bytes()
		ex.Cut = ex.Cut || rec.cut
		u.mu.Lock()
		if u.srv == srv {
			u.exchanges = append(u.exchanges, ex)
		}
		u.mu.Unlock()
		if p != nil {
			panic(p)
		}
	}()
	srv.ServeHTTP(rec, r)
}

func cut(b []byte) ([]byte, bool) {
	if len(b) > MaxExchangeBody {
		return b[:MaxExchangeBody], true
	}
	return b, false
}

// recorder keeps what serve writes (at most MaxExchangeBody bytes) while
// passing it on.
type recorder struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
	cut    bool
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	if room := MaxExchangeBody - r.buf.Len(); room > 0 {
		r.buf.Write(p[:min(len(p), room)])
		r.cut = r.cut || len(p) > room
	} else if len(p) > 0 {
		r.cut = true
	}
	return r.ResponseWriter.Write(p)
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
