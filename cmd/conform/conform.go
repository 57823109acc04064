package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/toolconform/conform/cassettes"
	"github.com/toolconform/conform/report"
	"github.com/toolconform/conform/scenarios"
)

// Exit statuses of every command.
const (
	exitOK    = 0 // everything passed or was done
	exitFail  = 1 // a check failed, or the input could not be decoded
	exitUsage = 2 // bad usage or unreadable input
)

// env is what a command may touch of the outside world.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// errorf prints a message to stderr, prefixed with the program name.
func (e *env) errorf(format string, args ...any) {
	fmt.Fprintf(e.stderr, "conform: "+format+"\n", args...)
}

// command is one entry of the flat command table.
type command struct {
	name    string
	args    string // the usage line after the name
	summary string
	run     func(ctx context.Context, e *env, args []string) int
}

// commands returns the command table. It is a function, not a variable,
// because help refers to it.
func commands() []command {
	return []command{
		{"run", "[--adapter NAME | --exec CMD | --client CMD [--protocol P] [--chaos OPTIONS] [--shard I/N]] [--run PATTERN] [--skip PATTERN] [--known-failing FILE] [--strict] [--format FORMAT] [--out FILE]", "run every scenario against every built-in adapter, or against yours", runRun},
		{"decode", "--protocol P [FILE]", "decode one captured response body into canonical JSON", runDecode},
		{"parse", "--format F [--tools FILE] [--chunks] [--thinking open|off] [FILE]", "parse tool calls a model wrote into its text (Hermes, Qwen3-Coder, Mistral, …) into the canonical JSON decode prints", runParse},
		{"serve", "[--addr HOST:PORT] [--scenario NAME] [--chaos OPTIONS] [--for DURATION] [--list]", "run a fake provider on loopback that replays scenarios and grades follow-up requests", runServe},
		{"gateway", "(--reference --front P | --spec FILE) [--upstream Q,...] [--run PATTERN] [--chaos OPTIONS] [--shard I/N] [--strict] [--format text|json|markdown] [--out FILE]", "grade a translating gateway: conform is the client in the front protocol and the upstream provider (serve) in the other", runGateway},
		{"merge", "[--strict] [--format text|json|html] [--out FILE] FILE...", "join the JSON results of the shards of run --client or of gateway (--shard I/N) into one report", runMerge},
		{"proxy", "--front P --upstream Q --upstream-url URL [--addr HOST:PORT] [--key KEY]", "run the reference gateway: take requests in protocol P, send them on in protocol Q with conform's adapters (streams are collected, then re-encoded)", runProxy},
		{"record", "--protocol P --scenario NAME [--base-url URL] [--force] [-o FILE]", "send a scenario's request to a live API and save a redacted cassette", runRecord},
		{"tools", "[--protocol P]... [--strict] [--format text|json] (FILE | --mcp CMD | --mcp-url URL)", "check tool definitions (a file, or a live MCP server) against each provider's name and schema rules", runTools},
		{"scenario", "new --from FILE#N [--protocol P] [--dir DIR] [--name CATEGORY/CASE] [--severity S] [--force]", "turn one recorded exchange into a regression case, its expectations read by the reference decoder", runScenario},
		{"import", "[-o DIR] [--protocol P] [--force] FILE...", "turn foreign recordings (go-vcr, VCR.py, Ruby VCR, httprr, Polly.js HAR, Datadog test-agent JSON, chunk fixtures; gzip too) into conform cassettes", runImport},
		{"publish", "[--format markdown|junit|site] [--out FILE|DIR] [SUBJECT=]FILE...", "combine the JSON results of any runs (adapters, clients, gateways) into a markdown summary, JUnit XML or a static site", runPublish},
		{"list", "[--scenarios DIR] [scenarios|adapters|failure-modes|formats]...", "list scenarios, adapters, failure modes with how many scenarios guard each, and text formats with their names in each engine", runList},
		{"help", "[COMMAND]", "show help for conform or one command", runHelp},
		{"version", "", "print the version of conform, its commit, and the version and hash of its scenario set", runVersion},
	}
}

// Run runs conform with the given arguments (without the program name) and
// returns the exit status.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		printUsage(e.stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(ctx, e, args[1:])
		}
	}
	e.errorf("unknown command %q", name)
	printUsage(e.stderr)
	return exitUsage
}

func printUsage(w io.Writer) {
	fmt.Fprintf(w, "conform is a conformance test harness for LLM tool calling.\n\nUsage:\n\n\tconform <command> [arguments]\n\nCommands:\n\n")
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, c := range commands() {
		fmt.Fprintf(tw, "\t%s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nRun \"conform help <command>\" for more about a command.\n")
}

// newFlagSet returns a flag set for the named command. Its Usage, which a
// usage error prints, is the command's usage line and where to read more;
// -h and conform help print the flags too (fullUsage).
func newFlagSet(e *env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		if c, ok := lookupCommand(name); ok {
			fmt.Fprintf(fs.Output(), "usage: conform %s %s\n", c.name, c.args)
		}
		cmd, _, _ := strings.Cut(name, " ")
		fmt.Fprintf(fs.Output(), "Run 'conform help %s' for its flags.\n", cmd)
	}
	return fs
}

// fullUsage prints the command's usage line, what it does and its flags.
func fullUsage(fs *flag.FlagSet) {
	w := fs.Output()
	if c, ok := lookupCommand(fs.Name()); ok {
		fmt.Fprintf(w, "usage: conform %s %s\n\n%s.\n", c.name, c.args, c.summary)
	}
	var b strings.Builder
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(w)
	if b.Len() > 0 {
		fmt.Fprintf(w, "\nFlags:\n%s", b.String())
	}
}

// lookupCommand finds a command by its name, or by the first word of a
// subcommand's flag-set name ("scenario new").
func lookupCommand(name string) (command, bool) {
	name, _, _ = strings.Cut(name, " ")
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// parseFlags parses args and reports whether the command should go on; when
// it should not, status is the exit status to return. -h prints the full
// usage and exits 0; a flag error prints that one problem, prefixed
// "conform: CMD:", and the usage line.
//
// A string flag given explicitly with an empty (or all-blank) value is a
// usage error naming the flag: "--exec ”" from an unset shell variable
// must not quietly run something else than what was asked. List flags
// (listFlag, repeatedFlag) refuse empty values in their Set methods.
func parseFlags(fs *flag.FlagSet, args []string) (ok bool, status int) {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fullUsage(fs)
			return false, exitOK
		}
		fmt.Fprintf(out, "conform: %s: %v\n", fs.Name(), err)
		fs.Usage()
		return false, exitUsage
	}
	var empty []string
	fs.Visit(func(f *flag.Flag) {
		g, ok := f.Value.(flag.Getter)
		if !ok {
			return
		}
		if s, ok := g.Get().(string); ok && strings.TrimSpace(s) == "" {
			dash := "--"
			if len(f.Name) == 1 {
				dash = "-" // as in "-o"
			}
			empty = append(empty, dash+f.Name)
		}
	})
	if len(empty) > 0 {
		fmt.Fprintf(out, "conform: %s: %s: empty value; leave the flag out for its default\n", fs.Name(), strings.Join(empty, ", "))
		fs.Usage()
		return false, exitUsage
	}
	return true, exitOK
}

// usageError prints msg and the command's usage, and returns exitUsage.
func usageError(e *env, fs *flag.FlagSet, format string, args ...any) int {
	e.errorf(format, args...)
	fs.Usage()
	return exitUsage
}

func runHelp(_ context.Context, e *env, args []string) int {
	switch len(args) {
	case 0:
		printUsage(e.stdout)
		return exitOK
	case 1:
		for _, c := range commands() {
			if c.name == args[0] {
				// Each command declares its own flags; running it with -h
				// prints them.
				return c.run(context.Background(), &env{stdin: e.stdin, stdout: e.stdout, stderr: e.stdout}, []string{"-h"})
			}
		}
		e.errorf("unknown command %q", args[0])
		printUsage(e.stderr)
		return exitUsage
	default:
		e.errorf("help takes at most one command")
		return exitUsage
	}
}

func runVersion(_ context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "version")
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	if fs.NArg() > 0 {
		return usageError(e, fs, "version takes no arguments")
	}
	info, _ := debug.ReadBuildInfo()
	version := buildVersion(info)
	fmt.Fprintf(e.stdout, "conform %s %s/%s %s\n", version, runtime.GOOS, runtime.GOARCH, runtime.Version())
	p := report.FromBuild(info)
	if p.Commit != "" {
		fmt.Fprintf(e.stdout, "commit %s\n", p.Commit)
	}
	cases, err := scenarios.LoadBuiltin(scenarios.VCRResolver(cassettes.Load))
	if err != nil {
		e.errorf("version: the built-in scenarios: %v", err)
		return exitFail
	}
	fmt.Fprintf(e.stdout, "scenario set %s (%d cases, %s)\nresult schema %s\n", p.ScenarioSet, len(cases), report.ScenarioHash(cases), p.Schema)
	return exitOK
}

// buildVersion is conform's version as the build recorded it: the module
// version of a go install github.com/toolconform/conform/cmd/conform@v1.2.3
// (or the pseudo-version of @latest on an untagged commit); for a build from
// a checkout, "(devel)" followed by the commit, its time and "+dirty" for
// uncommitted changes, when the build recorded them (-buildvcs, the
// default in a git checkout).
func buildVersion(info *debug.BuildInfo) string {
	if info == nil {
		return "(devel)"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	vcs := map[string]string{}
	for _, s := range info.Settings {
		vcs[s.Key] = s.Value
	}
	version := "(devel)"
	if rev := vcs["vcs.revision"]; rev != "" {
		version += " " + rev[:min(len(rev), 12)]
		if t := vcs["vcs.time"]; t != "" {
			version += " " + t
		}
		if vcs["vcs.modified"] == "true" {
			version += "+dirty"
		}
	}
	return version
}
