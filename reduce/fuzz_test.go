package reduce

import (
	"bytes"
	"testing"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/scenarios"
)

// FuzzSimplify applies every simplification to arbitrary Anthropic and
// Chat Completions stream bodies, seeded with the built-in recordings: no
// panic, and a byte edit that applies changes the body, says what it
// changed and writes plain SSE back.
func FuzzSimplify(f *testing.F) {
	cases, err := scenarios.LoadBuiltin(scenarios.VCRResolver(cassettes.Load))
	if err != nil {
		f.Fatal(err)
	}
	var adapters []core.Adapter
	for _, p := range fuzzProtocols {
		a, err := providers.Lookup(p)
		if err != nil {
			f.Fatal(err)
		}
		adapters = append(adapters, a)
	}
	for _, sc := range cases {
		if sc.Kind != scenarios.KindStream || len(sc.Body) == 0 || len(sc.Body) > 1<<14 {
			continue
		}
		for i, a := range adapters {
			if sc.Applies(a) {
				f.Add(uint8(i), sc.Body)
			}
		}
	}
	f.Fuzz(func(t *testing.T, proto uint8, body []byte) {
		if len(body) > 1<<16 {
			return
		}
		protocol := fuzzProtocols[int(proto)%len(fuzzProtocols)]
		sc := &scenarios.Scenario{Kind: scenarios.KindStream, Body: body, Want: scenarios.Want{Calls: []map[string]any{{"name": "a"}, {"name": "b"}}}}
		for _, s := range simplifications {
			v, step, ok := s.apply(Variant{Scenario: sc, Chaos: true}, protocol, "split=1")
			if !ok || s.name == "no-chaos" {
				continue
			}
			if step.Has == "" || step.Becomes == "" {
				t.Errorf("%s: step %+v does not say what changed", s.name, step)
			}
			if bytes.Equal(v.Scenario.Body, body) {
				t.Errorf("%s applies but changes no byte", s.name)
			}
			if _, plain := parseSSE(v.Scenario.Body); !plain && s.name != "re-encode" {
				t.Errorf("%s wrote a body that is not plain SSE:\n%q", s.name, v.Scenario.Body)
			}
		}
	})
}

var fuzzProtocols = []string{"anthropic", "openai-chat"}
