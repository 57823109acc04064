package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/toolconform/conform/agent"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/tools"
)

type weatherIn struct {
	City string `json:"city" jsonschema:"the city"`
}

type weatherOut struct {
	City  string `json:"city"`
	TempC int    `json:"temp_c"`
}

type deleteIn struct {
	Path string `json:"path" jsonschema:"the file to delete"`
}

type deleteOut struct {
	Deleted bool `json:"deleted"`
}

// fixture is a registry with a read-only weather tool and a destructive
// delete tool, counting the runs of each.
type fixture struct {
	reg              *tools.Registry
	weather, deletes atomic.Int32
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{reg: tools.NewRegistry()}
	w, err := tools.NewTool("get_weather", "Current weather in a city.", func(ctx context.Context, in weatherIn) (weatherOut, error) {
		f.weather.Add(1)
		return weatherOut{City: in.City, TempC: 21}, nil
	}, tools.WithRisk(tools.RiskReadOnly))
	if err != nil {
		t.Fatal(err)
	}
	d, err := tools.NewTool("delete_file", "Delete a file.", func(ctx context.Context, in deleteIn) (deleteOut, error) {
		f.deletes.Add(1)
		return deleteOut{Deleted: true}, nil
	}, tools.WithRisk(tools.RiskDestructive))
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []*tools.Tool{w, d} {
		if err := f.reg.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func user(s string) core.Message {
	return core.Message{Role: core.RoleUser, Parts: []core.Part{core.TextPart(s)}}
}

// turn is one scripted model turn, written the way each mode's model
// would write it.
type turn struct {
	text  string
	calls []core.Call
}

// structuredViaTool lists protocols whose requests cannot carry a
// response_format: the loop runs ModeStructured over them through one
// forced tool, agent.StepSchemaName, whose input is the step.
// checkModeShape fails if the requests do not have that shape, so the list
// cannot claim a protocol the loop treats otherwise.
var structuredViaTool = map[string]bool{"bedrock": true}

// scriptedFor is scripted for a protocol: over a protocol in
// structuredViaTool, structured steps come as calls of the step tool.
func scriptedFor(protocol string, mode agent.Mode, turns []turn) []core.Response {
	out := scripted(mode, turns)
	if mode != agent.ModeStructured || !structuredViaTool[protocol] {
		return out
	}
	for i := range out {
		step := out[i].Message.Text()
		out[i].Message.Parts = []core.Part{core.CallPart(core.Call{ID: fmt.Sprintf("tooluse_step%d", i+1), Name: agent.StepSchemaName, Arguments: json.RawMessage(step)})}
		out[i].Finish = core.FinishToolCalls
	}
	return out
}

// scripted renders turns as canonical responses for a mode: native calls
// as call parts, text-mode calls as <tool_call> blocks (after the text),
// structured calls and answers as JSON steps.
func scripted(mode agent.Mode, turns []turn) []core.Response {
	var out []core.Response
	for i, tu := range turns {
		r := core.Response{ID: fmt.Sprintf("resp%d", i+1), Model: "fake-model", Message: core.Message{Role: core.RoleAssistant}}
		switch mode {
		case agent.ModeNative:
			if tu.text != "" {
				r.Message.Parts = append(r.Message.Parts, core.TextPart(tu.text))
			}
			for _, c := range tu.calls {
				r.Message.Parts = append(r.Message.Parts, core.CallPart(c))
			}
		case agent.ModeStructured:
			var step any
			if len(tu.calls) > 0 {
				step = map[string]any{"tool": tu.calls[0].Name, "arguments": json.RawMessage(tu.calls[0].Arguments)}
			} else {
				step = map[string]any{"answer": tu.text}
			}
			b, _ := json.Marshal(map[string]any{"step": step})
			r.Message.Parts = append(r.Message.Parts, core.TextPart(string(b)))
		default:
			s := tu.text
			for _, c := range tu.calls {
				s += fmt.Sprintf("\n<tool_call>{\"tool\": %q, \"arguments\": %s}</tool_call>", c.Name, c.Arguments)
			}
			r.Message.Parts = append(r.Message.Parts, core.TextPart(s))
		}
		r.Finish = core.FinishStop
		if len(tu.calls) > 0 && mode == agent.ModeNative {
			r.Finish = core.FinishToolCalls
		}
		r.Usage = &core.Usage{InputTokens: 10, OutputTokens: 5}
		out = append(out, r)
	}
	return out
}
