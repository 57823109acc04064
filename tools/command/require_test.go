package command_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/tools"
	"github.com/toolconform/conform/tools/command"
	"github.com/toolconform/conform/tools/sandbox"
)

// TestRequireRefusesUnsandboxed executes calls through the registry with
// the Config of a policy that requires a sandbox for destructive tools,
// as the agent loop does not: a Go function tool, a tool whose program
// cannot say it is sandboxed, and a program tool without a policy are
// refused with ErrSandboxRequired and the reason, and never run; a
// program tool with a policy, and every tool at a level not required,
// get past the requirement. ExecuteAll takes the same path.
func TestRequireRefusesUnsandboxed(t *testing.T) {
	var ran atomic.Int32
	fn := func(name string, risk tools.Risk, opts ...tools.ToolOption) *tools.Tool {
		tool, err := tools.NewTool(name, "test", func(context.Context, struct{}) (string, error) {
			ran.Add(1)
			return "ran", nil
		}, append([]tools.ToolOption{tools.WithRisk(risk)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return tool
	}
	program := func(name string, p *sandbox.Policy) *tools.Tool {
		// A program that cannot start: a call that gets past the
		// requirement fails in Prepare or exec, never with the refusal.
		tool, err := command.New(name, "test", json.RawMessage(`{"type":"object"}`),
			command.Program{Argv: []string{"/nonexistent/program"}, Sandbox: p}, tools.WithRisk(tools.RiskDestructive))
		if err != nil {
			t.Fatal(err)
		}
		return tool
	}
	reg := tools.NewRegistry()
	for _, tool := range []*tools.Tool{
		fn("delete_everything", tools.RiskDestructive),
		fn("mcp_delete", tools.RiskDestructive, tools.WithProgram("an MCP server on the host")),
		fn("lookup", tools.RiskReadOnly),
		program("rm_unfenced", nil),
		program("rm_fenced", &sandbox.Policy{}),
	} {
		if err := reg.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	ctx := command.WithConfig(context.Background(), command.Config{Require: map[tools.Risk]bool{tools.RiskDestructive: true}})
	refused := map[string]string{
		"delete_everything": `tool "delete_everything" was not run: sandbox required: destructive tools must run in a sandbox, and "delete_everything" would not (a Go function tool runs in this process)`,
		"mcp_delete":        `tool "mcp_delete" was not run: sandbox required: destructive tools must run in a sandbox, and "mcp_delete" would not (its program does not run in a sandbox)`,
		"rm_unfenced":       `tool "rm_unfenced" was not run: sandbox required: destructive tools must run in a sandbox, and "rm_unfenced" would not (its program has no sandbox policy, and the configuration no default)`,
	}
	var calls []core.Call
	for _, name := range reg.Names() {
		calls = append(calls, core.Call{ID: name, Name: name, Arguments: json.RawMessage(`{}`)})
	}
	check := func(how string, results []core.Result) {
		for _, res := range results {
			want, isRefused := refused[res.Name]
			switch {
			case isRefused && (!res.IsError || res.Text() != want):
				t.Errorf("%s %s: got error=%v %q, want %q", how, res.Name, res.IsError, res.Text(), want)
			case !isRefused && strings.Contains(res.Text(), command.ErrSandboxRequired.Error()):
				t.Errorf("%s %s: refused: %q", how, res.Name, res.Text())
			}
		}
	}
	var one []core.Result
	for _, c := range calls {
		one = append(one, reg.ExecuteWith(ctx, c, tools.ExecOptions{}))
	}
	check("ExecuteWith", one)
	check("ExecuteAll", reg.ExecuteAll(ctx, calls, tools.ExecOptions{}))
	if n := ran.Load(); n != 2 {
		t.Errorf("Go function handlers ran %d times, want 2 (lookup, once per path)", n)
	}
	// A default policy fences the program without one.
	withDefault := command.WithConfig(context.Background(), command.Config{Default: &sandbox.Policy{}, Require: map[tools.Risk]bool{tools.RiskDestructive: true}})
	if res := reg.Execute(withDefault, core.Call{ID: "x", Name: "rm_unfenced", Arguments: json.RawMessage(`{}`)}); strings.Contains(res.Text(), command.ErrSandboxRequired.Error()) {
		t.Errorf("rm_unfenced with a default policy: refused: %q", res.Text())
	}
	// Without a requirement nothing is refused.
	if res := reg.Execute(command.WithConfig(context.Background(), command.Config{}), calls[0]); res.IsError {
		t.Errorf("%s without a requirement: %q", calls[0].Name, res.Text())
	}
}
