package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/textcalls"
)

// parseOutput is the JSON object parse prints: decode's canonical fields,
// with the format in place of the protocol and the reasoning beside the
// text.
type parseOutput struct {
	Format         string              `json:"format"`
	Chunks         int                 `json:"chunks"`
	Text           string              `json:"text"`
	Thinking       string              `json:"thinking"`
	Calls          []decodedCall       `json:"calls"`
	Incomplete     []decodedCall       `json:"incomplete,omitempty"`
	FinishReason   core.FinishReason   `json:"finish_reason"`
	ProviderFinish string              `json:"provider_finish_reason"`
	Error          *core.ProviderError `json:"error"`
}

func runParse(_ context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "parse")
	format := fs.String("format", "", "the text format of the model's output (see conform list formats)")
	toolsFile := fs.String("tools", "", "the declared tools, a JSON array of {name, parameters}, in `FILE`")
	chunks := fs.Bool("chunks", false, "the input is a JSON array of the text deltas as an engine streamed them")
	thinking := fs.String("thinking", "", "`open`: the prompt opened the reasoning region; off: reasoning markers are text")
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	if *format == "" {
		return usageError(e, fs, "parse: --format is required")
	}
	f, err := textcalls.Lookup(*format)
	if err != nil {
		return usageError(e, fs, "parse: %v", err)
	}
	var opts textcalls.Options
	switch *thinking {
	case "":
	case "open":
		opts.ThinkingOpen = true
	case "off":
		opts.NoThinking = true
	default:
		return usageError(e, fs, "parse: --thinking %q: want open or off", *thinking)
	}
	if *toolsFile != "" {
		data, err := os.ReadFile(*toolsFile)
		if err != nil {
			e.errorf("parse: %v", err)
			return exitUsage
		}
		if err := json.Unmarshal(data, &opts.Tools); err != nil {
			e.errorf("parse: %s: %v", *toolsFile, jsonErrorAt(data, err))
			return exitUsage
		}
		for i, t := range opts.Tools {
			if t.Name == "" {
				e.errorf("parse: %s: tool %d ([%d].name): no name", *toolsFile, i, i)
				return exitUsage
			}
		}
	}
	name, in := "standard input", e.stdin
	switch fs.NArg() {
	case 0:
	case 1:
		name = fs.Arg(0)
		file, err := os.Open(name)
		if err != nil {
			e.errorf("parse: %v", err)
			return exitUsage
		}
		defer file.Close()
		in = file
	default:
		return usageError(e, fs, "parse: at most one FILE")
	}
	data, err := readBounded(in, maxResponseBody)
	if err != nil {
		e.errorf("parse: reading %s: %v", name, err)
		return exitUsage
	}
	deltas := []string{string(data)}
	if *chunks {
		deltas = nil
		if err := json.Unmarshal(data, &deltas); err != nil {
			e.errorf("parse: %s: --chunks wants a JSON array of strings: %v", name, jsonErrorAt(data, err))
			return exitUsage
		}
	}
	resp, cerr := textcalls.Collect(f, opts, deltas...)
	out := parseOutput{
		Format:         f.Name,
		Chunks:         len(deltas),
		Calls:          decodedCalls(resp.Calls()),
		Incomplete:     decodedCalls(resp.Incomplete),
		FinishReason:   resp.Finish,
		ProviderFinish: resp.ProviderFinish,
		Error:          resp.Error,
	}
	var text, thought strings.Builder
	for _, p := range resp.Message.Parts {
		switch p.Kind {
		case core.PartText:
			text.WriteString(p.Text)
		case core.PartThinking:
			thought.WriteString(p.Text)
		}
	}
	out.Text, out.Thinking = text.String(), thought.String()
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false) // markers such as <tool_call> read as written
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		e.errorf("parse: %v", err)
		return exitFail
	}
	if cerr != nil {
		e.errorf("parse: %s: %v", name, cerr)
		return exitFail
	}
	return exitOK
}

// jsonErrorAt names the byte offset of a JSON syntax or type error.
func jsonErrorAt(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("at byte %d: %v", se.Offset, err)
	case errors.As(err, &te):
		return fmt.Errorf("at byte %d (%s): %v", te.Offset, te.Field, err)
	}
	return err
}

// listFormats prints every text format with the names engines give it.
func listFormats(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "FORMAT\tVLLM\tSGLANG\tLLAMA.CPP\tOLLAMA\n")
	names := func(xs []string) string {
		if len(xs) == 0 {
			return "-"
		}
		return strings.Join(xs, ", ")
	}
	all := textcalls.Formats()
	for _, f := range all {
		a := f.Aliases
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.Name, names(a.VLLM), names(a.SGLang), names(a.LlamaCpp), names(a.Ollama))
	}
	fmt.Fprintf(tw, "%d formats\n", len(all))
	return tw.Flush()
}
