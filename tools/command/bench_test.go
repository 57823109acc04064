//go:build linux

package command_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolconform/conform/tools/command"
	"github.com/toolconform/conform/tools/sandbox"
)

// BenchmarkRun measures one run of /bin/true, plain and in the strictest
// sandbox (new namespaces, read-only tree, the helper re-executed).
func BenchmarkRun(b *testing.B) {
	for _, bc := range []struct {
		name   string
		policy *sandbox.Policy
	}{{"plain", nil}, {"sandboxed", &sandbox.Policy{Limits: sandbox.Limits{Processes: 16, OpenFiles: 64}}}} {
		b.Run(bc.name, func(b *testing.B) {
			p := command.Program{Argv: []string{"/bin/true"}, Sandbox: bc.policy}
			for b.Loop() {
				if _, err := p.Run(context.Background(), json.RawMessage(`{}`)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
