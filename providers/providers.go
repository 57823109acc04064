package providers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers/anthropic"
	"github.com/toolconform/conform/providers/bedrock"
	"github.com/toolconform/conform/providers/cohere"
	"github.com/toolconform/conform/providers/gemini"
	"github.com/toolconform/conform/providers/mistral"
	"github.com/toolconform/conform/providers/ollama"
	"github.com/toolconform/conform/providers/openaichat"
	"github.com/toolconform/conform/providers/openairesponses"
	"github.com/toolconform/conform/providers/protocol"
)

// builtins is the list: each built-in protocol's descriptor, by name.
var builtins = byName(
	anthropic.Protocol,
	bedrock.Protocol,
	cohere.Protocol,
	gemini.Protocol,
	mistral.Protocol,
	ollama.Protocol,
	openaichat.Protocol,
	openairesponses.Protocol,
)

// Protocol is a wire protocol's descriptor (see package protocol).
type Protocol = protocol.Protocol

// Requirement is a request option a recorded response depends on.
type Requirement = protocol.Requirement

// StreamEvents names the event vocabulary of a protocol's stream.
type StreamEvents = protocol.StreamEvents

// The stream vocabularies code outside the adapters reads.
const (
	EventsMessages   = protocol.EventsMessages
	EventsChatChunks = protocol.EventsChatChunks
)

func byName(list ...Protocol) map[string]Protocol {
	m := make(map[string]Protocol, len(list))
	for _, p := range list {
		if _, dup := m[p.Protocol]; dup || p.Protocol == "" {
			panic(fmt.Sprintf("providers: protocol %q listed twice or unnamed", p.Protocol))
		}
		m[p.Protocol] = p
	}
	return m
}

// Names returns the names of the built-in adapters, sorted.
func Names() []string {
	names := make([]string, 0, len(builtins))
	for name := range builtins {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Lookup returns a new adapter for the named protocol. An unknown name is an
// error that lists the known ones.
func Lookup(name string) (core.Adapter, error) {
	p, err := Describe(name)
	if err != nil {
		return nil, err
	}
	return p.New(), nil
}

// Describe returns the descriptor of the named protocol. An unknown name
// is an error that lists the known ones.
func Describe(name string) (Protocol, error) {
	p, ok := builtins[name]
	if !ok {
		return Protocol{}, fmt.Errorf("unknown protocol %q; known: %s", name, strings.Join(Names(), ", "))
	}
	return p, nil
}

// Protocols returns the descriptor of every built-in protocol, in name
// order.
func Protocols() []Protocol {
	var all []Protocol
	for _, name := range Names() {
		all = append(all, builtins[name])
	}
	return all
}

// All returns a new instance of every built-in adapter, in name order.
func All() []core.Adapter {
	var all []core.Adapter
	for _, name := range Names() {
		all = append(all, builtins[name].New())
	}
	return all
}

// Features returns the features of the named protocol, as its built-in
// adapter declares them. An unknown name is an error that lists the known
// ones.
func Features(name string) ([]core.Feature, error) {
	a, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	d, ok := a.(core.FeatureDeclarer)
	if !ok {
		return nil, fmt.Errorf("adapter %q declares no features", name)
	}
	return d.Features(), nil
}
