// Package command builds tools that run a program per call: the call's
// validated arguments, a compact JSON object, go to the program's standard
// input; its standard output is the result; a non-zero exit status is an
// error whose message is the start of its standard error.
//
//	tool, err := command.New("lookup", "Look a word up.", schema,
//		command.Program{Argv: []string{"dict", "--json"}, Sandbox: &sandbox.Policy{Env: []string{"PATH"}}},
//		tools.WithRisk(tools.RiskReadOnly))
//
// A run is bounded like a Go function tool's call: the registry's timeout
// cancels it, which kills its whole process group (and, sandboxed, its
// PID namespace), and Run returns even when a child still holds the
// program's pipes; standard output is counted while it is read, and past
// the registry's output limit (tools.OutputLimit; Program.MaxOutputBytes
// overrides it) the program is killed (ErrOutputLimit) rather than its
// output kept and cut later.
//
// Sandboxing (tools/sandbox) is per program (Program.Sandbox) or, for
// programs without a policy, from the Config in the call's context: a
// Default policy, and the risk levels that Require one. A restriction
// that cannot be enforced on this machine refuses the call before the
// program runs. Config.Observe receives, per call, what the sandbox
// enforced. The agent loop sets the Config from its Programs field.
//
// The tool's tools.Tool.Program is the *Program, whose Sandboxed method
// tells the agent loop whether a call would run fenced. Under a Config
// that requires a sandbox, a registry refuses every tool that would run
// unfenced, a Go function tool included, before its handler runs
// (WithConfig adds the tools.Guard).
package command
