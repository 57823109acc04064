// Package providers is the literal list of conform's built-in adapters, one
// per wire protocol.
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
)

// builtins maps each protocol name to the constructor of its adapter.
var builtins = map[string]func() core.Adapter{
	"anthropic":        func() core.Adapter { return anthropic.New() },
	"bedrock":          func() core.Adapter { return bedrock.New() },
	"cohere":           func() core.Adapter { return cohere.New() },
	"gemini":           func() core.Adapter { return gemini.New() },
	"mistral":          func() core.Adapter { return mistral.New() },
	"ollama":           func() core.Adapter { return ollama.New() },
	"openai-chat":      func() core.Adapter { return openaichat.New() },
	"openai-responses": func() core.Adapter { return openairesponses.New() },
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
	newAdapter, ok := builtins[name]
	if !ok {
		return nil, fmt.Errorf("unknown protocol %q; known: %s", name, strings.Join(Names(), ", "))
	}
	return newAdapter(), nil
}

// All returns a new instance of every built-in adapter, in name order.
func All() []core.Adapter {
	var all []core.Adapter
	for _, name := range Names() {
		all = append(all, builtins[name]())
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
