package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/providers"
	"github.com/toolconform/conform/report"
	"github.com/toolconform/conform/tools"
	"github.com/toolconform/conform/tools/mcp"
	"github.com/toolconform/conform/tools/names"
)

// maxToolsFile bounds the tool definitions file tools reads.
const maxToolsFile = 64 << 20

// maxChanges bounds the schema changes listed for one tool and provider.
const maxChanges = 20

// The verdicts of conform tools, from best to worst.
const (
	verdictAccepted  = "accepted"
	verdictRewritten = "rewritten"
	verdictRefused   = "refused"
)

// toolDef is one tool definition as read from a file or a server.
type toolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// toolVerdict is what one provider makes of one tool.
type toolVerdict struct {
	Protocol string `json:"protocol"`
	Tool     string `json:"tool"`
	Verdict  string `json:"verdict"`
	// WireName is the name the tool is sent under.
	WireName string `json:"wire_name"`
	// Reasons lists every rewrite (a JSON pointer into the input schema
	// and what happened there, or the name's rewrite) or the refusal.
	Reasons []string `json:"reasons,omitempty"`
}

func runTools(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "tools")
	mcpCmd := fs.String("mcp", "", "read the tools of the MCP server started by the shell command `CMD` (over stdio)")
	mcpURL := fs.String("mcp-url", "", "read the tools of the streamable-HTTP MCP server at `URL`")
	strict := fs.Bool("strict", false, "offer every tool in OpenAI strict mode, where the protocol has it")
	format := fs.String("format", "text", "output `FORMAT`: text, json, or sarif (SARIF 2.1.0, for code scanning)")
	var protocols listFlag
	fs.Var(&protocols, "protocol", "check only protocol `P` (repeatable); all built-in protocols by default")
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	sources := fs.NArg()
	if *mcpCmd != "" {
		sources++
	}
	if *mcpURL != "" {
		sources++
	}
	if sources != 1 {
		return usageError(e, fs, "tools: give one FILE, --mcp CMD or --mcp-url URL")
	}
	if *format != "text" && *format != "json" && *format != "sarif" {
		return usageError(e, fs, "tools: --format %q: want text, json or sarif", *format)
	}
	if len(protocols) == 0 {
		protocols = providers.Names()
	}
	for _, p := range protocols {
		if _, err := providers.Lookup(p); err != nil {
			return usageError(e, fs, "tools: %v", err)
		}
	}
	var (
		defs []toolDef
		err  error
	)
	switch {
	case *mcpCmd != "":
		defs, err = mcpDefinitions(ctx, *mcpCmd, "", func(ctx context.Context) (*mcp.Server, error) {
			return mcp.ConnectCommand(ctx, "mcp", exec.Command("sh", "-c", *mcpCmd))
		})
	case *mcpURL != "":
		defs, err = mcpDefinitions(ctx, "", *mcpURL, func(ctx context.Context) (*mcp.Server, error) {
			return mcp.ConnectURL(ctx, "mcp", *mcpURL, nil)
		})
	default:
		defs, err = readToolsFile(fs.Arg(0))
	}
	if err != nil {
		e.errorf("tools: %v", err)
		return exitUsage
	}
	verdicts, err := checkTools(defs, protocols, *strict)
	if err != nil {
		e.errorf("tools: %v", err)
		return exitUsage
	}
	if *format == "sarif" {
		var file string
		var data []byte
		if *mcpCmd == "" && *mcpURL == "" {
			file = fs.Arg(0)
			data, _ = os.ReadFile(file) // read once already; a line number is all it adds
		}
		if err := writeSARIF(e.stdout, verdicts, file, data); err != nil {
			e.errorf("tools: %v", err)
			return exitFail
		}
	} else if *format == "json" {
		if verdicts == nil {
			verdicts = []toolVerdict{}
		}
		out, _ := json.MarshalIndent(struct {
			Provenance report.Provenance `json:"provenance"`
			Verdicts   []toolVerdict     `json:"verdicts"`
		}{report.NewProvenance("tools", time.Now()), verdicts}, "", "  ")
		fmt.Fprintf(e.stdout, "%s\n", out)
	} else {
		writeVerdicts(e.stdout, verdicts, len(defs), len(protocols))
	}
	for _, v := range verdicts {
		if v.Verdict == verdictRefused {
			return exitFail
		}
	}
	return exitOK
}

// mcpDefinitions connects to a server, reads its tool definitions and
// closes it, within a minute.
func mcpDefinitions(ctx context.Context, cmd, url string, connect func(context.Context) (*mcp.Server, error)) ([]toolDef, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	srv, err := connect(ctx)
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	raw, err := srv.Definitions(ctx)
	if err != nil {
		return nil, err
	}
	where := "--mcp " + strconv.Quote(cmd)
	if url != "" {
		where = "--mcp-url " + url
	}
	return parseDefinitions(where, raw)
}

// readToolsFile reads tool definitions: a JSON array of them, or an
// object with a "tools" array (an MCP tools/list result).
func readToolsFile(name string) ([]toolDef, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxToolsFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxToolsFile {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, maxToolsFile)
	}
	if err := core.CheckDepth(data); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(data, &list); err != nil {
		var wrapped struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if err2 := json.Unmarshal(data, &wrapped); err2 != nil || wrapped.Tools == nil {
			return nil, fmt.Errorf("%s: want a JSON array of tool definitions or an object with a \"tools\" array: %v", name, jsonFault(data, err))
		}
		list = wrapped.Tools
	}
	return parseDefinitions(name, list)
}

// jsonFault names the byte offset of a syntax error.
func jsonFault(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("at byte %d: %v", se.Offset, err)
	}
	return err
}

// parseDefinitions reads each definition in one of the forms tools are
// written in: MCP ({name, description, inputSchema}), Anthropic and
// conform ({name, input_schema}), an OpenAI function ({name, parameters}),
// or an OpenAI tool ({type: "function", function: {...}}).
func parseDefinitions(where string, list []json.RawMessage) ([]toolDef, error) {
	defs := make([]toolDef, 0, len(list))
	seen := map[string]int{}
	for i, raw := range list {
		var d struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
			InputSnake  json.RawMessage `json:"input_schema"`
			Parameters  json.RawMessage `json:"parameters"`
			Function    json.RawMessage `json:"function"`
		}
		if err := json.Unmarshal(raw, &d); err != nil {
			return nil, fmt.Errorf("%s: tools[%d]: want an object with name and inputSchema: %v", where, i, err)
		}
		if len(d.Function) > 0 {
			if err := json.Unmarshal(d.Function, &d); err != nil {
				return nil, fmt.Errorf("%s: tools[%d].function: %v", where, i, err)
			}
		}
		schema := d.InputSchema
		for _, alt := range []json.RawMessage{d.InputSnake, d.Parameters} {
			if len(schema) == 0 {
				schema = alt
			}
		}
		switch {
		case d.Name == "":
			return nil, fmt.Errorf("%s: tools[%d].name: missing", where, i)
		case len(schema) == 0:
			return nil, fmt.Errorf("%s: tools[%d] %q: no inputSchema (nor input_schema, parameters)", where, i, d.Name)
		}
		if j, dup := seen[d.Name]; dup {
			return nil, fmt.Errorf("%s: tools[%d]: name %q already used by tools[%d]", where, i, d.Name, j)
		}
		seen[d.Name] = i
		defs = append(defs, toolDef{Name: d.Name, Description: d.Description, InputSchema: schema})
	}
	if len(defs) == 0 {
		return nil, fmt.Errorf("%s: no tool definitions", where)
	}
	return defs, nil
}

// checkTools gives every tool's verdict for every protocol: the name under
// the protocol's rules (tools/names maps the whole set), then the tool
// through the adapter's own request encoder and decoder: an encoder error
// is a refusal, and a schema that comes back different was rewritten.
func checkTools(defs []toolDef, protocols []string, strict bool) ([]toolVerdict, error) {
	all := make([]string, len(defs))
	invalid := make([]error, len(defs))
	for i, d := range defs {
		all[i] = d.Name
		_, invalid[i] = tools.FromMCP(mustJSON(d), refuseRun, tools.WithNameMapper(tools.NewNameMapper()))
	}
	var out []toolVerdict
	for _, p := range protocols {
		adapter, err := providers.Lookup(p)
		if err != nil {
			return nil, err
		}
		rules, ok := names.For(adapter)
		if !ok {
			return nil, fmt.Errorf("%s: the adapter declares no tool-name rules", p)
		}
		mapping, err := names.Map(rules, all)
		if err != nil {
			return nil, err
		}
		for i, d := range defs {
			out = append(out, checkTool(adapter, p, rules, mapping, d, invalid[i], strict))
		}
	}
	return out, nil
}

// checkTool gives one tool's verdict for one protocol. invalid is the
// error of tools.FromMCP for the definition: a schema that is not a valid
// object schema is refused by every protocol.
func checkTool(adapter core.Adapter, protocol string, rules core.NameRules, mapping *names.Mapping, d toolDef, invalid error, strict bool) toolVerdict {
	v := toolVerdict{Protocol: protocol, Tool: d.Name, Verdict: verdictAccepted, WireName: d.Name}
	refuse := func(reason string) toolVerdict {
		v.Verdict, v.Reasons = verdictRefused, []string{reason}
		return v
	}
	if invalid != nil {
		return refuse(invalid.Error())
	}
	if wire, _ := mapping.Name(d.Name); wire != d.Name {
		reason := "renamed"
		var ne *names.NameError
		if errors.As(names.Check(rules, d.Name), &ne) {
			reason = ne.Reason
		}
		v.Verdict, v.WireName = verdictRewritten, wire
		v.Reasons = append(v.Reasons, fmt.Sprintf("name %q → %q: %s (%s)", d.Name, wire, reason, rules.Source))
	}
	req := &core.Request{
		Model:    "conform-tools-check",
		Messages: []core.Message{{Role: core.RoleUser, Parts: []core.Part{core.TextPart("check")}}},
		Tools:    []core.ToolSpec{{Name: v.WireName, Description: d.Description, InputSchema: d.InputSchema, Strict: strict}},
	}
	body, err := adapter.EncodeRequest(req)
	if err != nil {
		return refuse(err.Error())
	}
	back, err := adapter.DecodeRequest(body)
	if err != nil {
		return refuse(fmt.Sprintf("%s: the adapter cannot read its own request back: %v", protocol, err))
	}
	if len(back.Tools) != 1 {
		return refuse(fmt.Sprintf("%s: the adapter's request carries %d tools, not the one given", protocol, len(back.Tools)))
	}
	if changes := schemaChanges(d.InputSchema, back.Tools[0].InputSchema); len(changes) > 0 {
		v.Verdict = verdictRewritten
		v.Reasons = append(v.Reasons, changes...)
	}
	return v
}

// refuseRun is the handler of the tools conform tools builds to check
// their definitions with tools.FromMCP; they are never run.
func refuseRun(context.Context, json.RawMessage) (json.RawMessage, error) {
	return nil, errors.New("conform tools checks definitions and runs no tool")
}

func mustJSON(d toolDef) json.RawMessage {
	b, _ := json.Marshal(d)
	return b
}

// schemaChanges lists where the schema sent differs from the one given,
// as JSON pointers into the given one, compared as JSON values: at most
// maxChanges lines, then how many more.
func schemaChanges(given, sent json.RawMessage) []string {
	var a, b any
	if err := decodeNumbers(given, &a); err != nil {
		return []string{"schema: " + err.Error()}
	}
	if err := decodeNumbers(sent, &b); err != nil {
		return []string{"schema sent: " + err.Error()}
	}
	var out []string
	diffJSON("", a, b, &out)
	if len(out) > maxChanges {
		out = append(out[:maxChanges], fmt.Sprintf("… %d more changes", len(out)-maxChanges))
	}
	return out
}

func decodeNumbers(data []byte, v *any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

// diffJSON appends "pointer: what changed" for every difference between
// a and b. Its depth is bounded by the input's, which core.CheckDepth
// bounded (files) or the MCP SDK's decoder did (servers).
func diffJSON(ptr string, a, b any, out *[]string) {
	show := func(v any) string {
		s, _ := json.Marshal(v)
		if len(s) > 60 {
			return string(s[:57]) + "..."
		}
		return string(s)
	}
	at := ptr
	if at == "" {
		at = "/"
	}
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			*out = append(*out, fmt.Sprintf("%s: %s became %s", at, show(a), show(b)))
			return
		}
		keys := make([]string, 0, len(av)+len(bv))
		for k := range av {
			keys = append(keys, k)
		}
		for k := range bv {
			if _, ok := av[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := ptr + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
			x, inA := av[k]
			y, inB := bv[k]
			switch {
			case !inB:
				*out = append(*out, fmt.Sprintf("%s: removed", p))
			case !inA:
				*out = append(*out, fmt.Sprintf("%s: added %s", p, show(y)))
			default:
				diffJSON(p, x, y, out)
			}
		}
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			*out = append(*out, fmt.Sprintf("%s: %s became %s", at, show(a), show(b)))
			return
		}
		for i := range av {
			diffJSON(ptr+"/"+strconv.Itoa(i), av[i], bv[i], out)
		}
	default:
		if show(a) != show(b) {
			*out = append(*out, fmt.Sprintf("%s: %s became %s", at, show(a), show(b)))
		}
	}
}

// writeVerdicts prints one line per tool and protocol, the reasons below
// it, and a summary.
func writeVerdicts(w io.Writer, verdicts []toolVerdict, tools, protocols int) {
	count := map[string]int{}
	for _, v := range verdicts {
		count[v.Verdict]++
		fmt.Fprintf(w, "%-17s %-9s %s\n", v.Protocol, v.Verdict, v.Tool)
		for _, r := range v.Reasons {
			fmt.Fprintf(w, "    %s\n", r)
		}
	}
	fmt.Fprintf(w, "%d tools × %d protocols: %d accepted as is, %d rewritten, %d refused\n",
		tools, protocols, count[verdictAccepted], count[verdictRewritten], count[verdictRefused])
}
