//go:build linux

package command_test

import (
	"context"
	"encoding/json"
	"syscall"
	"testing"

	"github.com/toolconform/conform/tools/command"
	"github.com/toolconform/conform/tools/sandbox"
)

// BenchmarkRun measures one run of /bin/true, plain and in the strictest
// sandbox (new namespaces and root, the helper re-executed, the filter).
// child-cpu-ns/op is the CPU time of the processes each run started
// (getrusage of the children), which the load of the machine inflates
// less than the wall time.
func BenchmarkRun(b *testing.B) {
	for _, bc := range []struct {
		name   string
		policy *sandbox.Policy
	}{{"plain", nil}, {"sandboxed", &sandbox.Policy{Limits: sandbox.Limits{Processes: 16, OpenFiles: 64}}}} {
		b.Run(bc.name, func(b *testing.B) {
			p := command.Program{Argv: []string{"/bin/true"}, Sandbox: bc.policy}
			before := childCPU()
			for b.Loop() {
				if _, err := p.Run(context.Background(), json.RawMessage(`{}`)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(childCPU()-before)/float64(b.N), "child-cpu-ns/op")
		})
	}
}

// childCPU is the user and system time of the waited-for children, in
// nanoseconds.
func childCPU() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
