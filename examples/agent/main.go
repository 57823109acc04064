// Command agent runs the conform agent loop against a loopback fake
// provider: it starts a fake OpenAI Chat Completions server with a scripted
// conversation, registers two tools, runs the loop and prints the trace
// (requests, calls, results, answer).
//
//	go run ./examples/agent
//	go run ./examples/agent -protocol anthropic -mode validated -stream
//	go run ./examples/agent -mode auto -model gpt-4o   # structured, from the capability table
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/toolconform/conform/agent"
	"github.com/toolconform/conform/agent/fakeprovider"
	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/tools"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

type weatherIn struct {
	City string `json:"city" jsonschema:"the city"`
}

type weatherOut struct {
	City  string `json:"city"`
	TempC int    `json:"temp_c"`
}

type convertIn struct {
	Celsius float64 `json:"celsius" jsonschema:"a temperature in degrees Celsius"`
}

type convertOut struct {
	Fahrenheit float64 `json:"fahrenheit"`
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	protocol := fs.String("protocol", "openai-chat", "wire protocol of the fake provider: "+strings.Join(providers.Names(), ", "))
	modeName := fs.String("mode", "native", "tool mode: auto, native, structured, validated or parsed")
	model := fs.String("model", "fake-model", "model name; with -mode auto it picks the mode")
	capsFile := fs.String("capabilities", "", "JSON file of capability entries that override the built-in table")
	stream := fs.Bool("stream", false, "ask for streamed responses")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	mode, err := agent.ParseMode(*modeName)
	if err != nil {
		fmt.Fprintf(stderr, "agent: -mode: %v\n", err)
		return 2
	}
	var capOpts []agent.CapOption
	if *capsFile != "" {
		capOpts = append(capOpts, agent.WithFile(*capsFile))
	}
	caps, err := agent.NewCapabilities(capOpts...)
	if err != nil {
		fmt.Fprintf(stderr, "agent: %v\n", err)
		return 2
	}
	mode = caps.Mode(mode, *model)
	adapter, err := providers.Lookup(*protocol)
	if err != nil {
		fmt.Fprintf(stderr, "agent: %v\n", err)
		return 2
	}
	reg, err := newRegistry()
	if err != nil {
		fmt.Fprintf(stderr, "agent: %v\n", err)
		return 1
	}
	srv := fakeprovider.New(adapter, script(*protocol, mode)...)
	defer srv.Close()
	loop := &agent.Loop{
		Adapter:      adapter,
		Endpoint:     agent.Endpoint{BaseURL: srv.URL, Client: srv.Client()},
		Registry:     reg,
		Model:        *model,
		Mode:         mode,
		Capabilities: caps,
		Stream:       *stream,
		Exec:         tools.ExecOptions{Timeout: 5 * time.Second},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	fmt.Fprintf(stdout, "fake %s provider at %s, mode %s\n", *protocol, srv.URL, mode)
	out, err := loop.Run(ctx, []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("How warm is it in Lisbon, in Fahrenheit?")}}})
	if werr := out.Trace.Write(stdout); werr != nil {
		fmt.Fprintf(stderr, "agent: %v\n", werr)
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "agent: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "answer: %s\n", out.Answer)
	return 0
}

// newRegistry registers a read-only weather tool and a unit converter.
func newRegistry() (*tools.Registry, error) {
	weather, err := tools.NewTool("get_weather", "Current temperature in a city.",
		func(ctx context.Context, in weatherIn) (weatherOut, error) {
			return weatherOut{City: in.City, TempC: 22}, nil
		}, tools.WithRisk(tools.RiskReadOnly))
	if err != nil {
		return nil, err
	}
	convert, err := tools.NewTool("to_fahrenheit", "Converts Celsius to Fahrenheit.",
		func(ctx context.Context, in convertIn) (convertOut, error) {
			return convertOut{Fahrenheit: in.Celsius*9/5 + 32}, nil
		}, tools.WithRisk(tools.RiskReadOnly))
	if err != nil {
		return nil, err
	}
	reg := tools.NewRegistry()
	for _, t := range []*tools.Tool{weather, convert} {
		if err := reg.Add(t); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// script is what the fake model says: a weather call, then a conversion,
// then the answer; calls as native tool calls, structured JSON steps or
// <tool_call> text, as the mode asks. Over Bedrock, which has no response
// format, the loop asks for structured steps through one forced tool, so
// the fake model writes each step as that tool's input.
func script(protocol string, mode agent.Mode) []core.Response {
	out := textScript(mode)
	if mode != agent.ModeStructured || protocol != "bedrock" {
		return out
	}
	for i, r := range out {
		step := core.Call{ID: fmt.Sprintf("tooluse_step%d", i+1), Name: agent.StepSchemaName, Arguments: json.RawMessage(r.Message.Text())}
		out[i].Message.Parts = []core.Part{core.CallPart(step)}
		out[i].Finish = core.FinishToolCalls
	}
	return out
}

// textScript is the script with every step in the response's body.
func textScript(mode agent.Mode) []core.Response {
	calls := []core.Call{
		{ID: "call00001", Name: "get_weather", Arguments: json.RawMessage(`{"city":"Lisbon"}`)},
		{ID: "call00002", Name: "to_fahrenheit", Arguments: json.RawMessage(`{"celsius":22}`)},
	}
	var out []core.Response
	for _, c := range calls {
		msg := core.Message{Role: core.RoleAssistant}
		switch mode {
		case agent.ModeNative:
			msg.Parts = []core.Part{core.CallPart(c)}
		case agent.ModeStructured:
			msg.Parts = []core.Part{core.TextPart(fmt.Sprintf(`{"step": {"tool": %q, "arguments": %s}}`, c.Name, c.Arguments))}
		default:
			msg.Parts = []core.Part{core.TextPart(fmt.Sprintf("<tool_call>{\"tool\": %q, \"arguments\": %s}</tool_call>", c.Name, c.Arguments))}
		}
		out = append(out, core.Response{Model: "fake-model", Message: msg, Finish: core.FinishToolCalls})
	}
	answer := "It is 22 °C in Lisbon, which is 71.6 °F."
	if mode == agent.ModeStructured {
		answer = `{"step": {"answer": "` + answer + `"}}`
	}
	out = append(out, core.Response{Model: "fake-model", Finish: core.FinishStop,
		Message: core.Message{Role: core.RoleAssistant, Parts: []core.Part{core.TextPart(answer)}}})
	return out
}
