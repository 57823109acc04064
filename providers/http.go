package providers

import "github.com/toolconform/conform/providers/protocol"

// Endpoint is the HTTP face of one wire protocol (see package protocol).
// Adapters stay free of HTTP; the fake provider (package serve) and the
// recorder (package record) read these facts from here.
type Endpoint = protocol.Endpoint

// Route is what a request path says about the protocol it speaks.
type Route = protocol.Route

// HTTP returns the HTTP facts of the named protocol. An unknown name is an
// error that lists the known ones.
func HTTP(name string) (Endpoint, error) {
	p, err := Describe(name)
	if err != nil {
		return Endpoint{}, err
	}
	return p.Endpoint, nil
}

// Endpoints returns the HTTP facts of every built-in protocol, in name
// order.
func Endpoints() []Endpoint {
	var out []Endpoint
	for _, p := range Protocols() {
		out = append(out, p.Endpoint)
	}
	return out
}

// MatchPath returns the route of a request path (unescaped, without the
// query) among the built-in protocols. Paths match by suffix, so any
// prefix a gateway or SDK puts in front is allowed.
func MatchPath(path string) (Route, bool) { return protocol.MatchPath(Endpoints(), path) }
