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
// changed and writes SSE the codec reads back; a body the codec reads is
// written back exactly.
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
			v, step, why := s.apply(Variant{Scenario: sc, Chaos: true}, protocol, "split=1")
			if why != "" || s.name == "no-chaos" {
				continue
			}
			if step.Has == "" || step.Becomes == "" {
				t.Errorf("%s: step %+v does not say what changed", s.name, step)
			}
			if bytes.Equal(v.Scenario.Body, body) {
				t.Errorf("%s applies but changes no byte", s.name)
			}
			if _, err := parseSSE(v.Scenario.Body); err != nil && s.name != "re-encode" {
				t.Errorf("%s wrote a body the SSE codec does not read (%v):\n%q", s.name, err, v.Scenario.Body)
			}
		}
		if evs, err := parseSSE(body); err == nil && !bytes.Equal(writeSSE(evs), body) {
			t.Errorf("parseSSE does not give the body back:\n%q", body)
		}
	})
}

var fuzzProtocols = []string{"anthropic", "openai-chat"}
