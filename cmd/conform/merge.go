package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"sort"
	"time"

	"github.com/toolconform/conform/gateway"
	"github.com/toolconform/conform/report"
)

// maxMergeInput bounds one file conform merge reads.
const maxMergeInput = 1 << 30

// runMerge joins the JSON results of shards — of run --client (JSON lines,
// the totals last) or of gateway (gateway.File) — into one report, in
// the order of the run names. Two shards holding the same run, or files
// of both kinds, are errors naming the files.
func runMerge(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "merge")
	format := fs.String("format", "text", "output `FORMAT`: text, json or html")
	out := fs.String("out", "", "write the report to `FILE` instead of stdout")
	strict := fs.Bool("strict", false, "for gateway results, count failed SHOULD cases (client runs carry their own counting)")
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	if fs.NArg() == 0 {
		return usageError(e, fs, "merge: name the shards' JSON result files")
	}
	if *format != "text" && *format != "json" && *format != "html" {
		return usageError(e, fs, "merge: --format %q: want text, json or html", *format)
	}
	var m merged
	for _, f := range fs.Args() {
		if err := m.read(f); err != nil {
			e.errorf("merge: %v", err)
			return exitUsage
		}
	}
	m.sort()
	prov := report.NewProvenance("merge", time.Now())
	prov.Inputs = m.inputs
	if m.kind == "gateway" && *format != "html" {
		return writeGatewayResults(e, gateway.NewFile(prov, m.gateway), *format, *out, *strict)
	}
	w := e.stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			e.errorf("merge: %v", err)
			return exitFail
		}
		defer f.Close()
		w = f
	}
	if m.kind == "gateway" {
		if err := writeMergeHTML(w, prov, gateway.Groups(m.gateway), m.htmlRows(*strict), fmt.Sprintf("conform gateway: %d results", len(m.gateway))); err != nil {
			e.errorf("merge: %v", err)
			return exitFail
		}
		for _, r := range m.gateway {
			if gateway.Counted(r, *strict) {
				return exitFail
			}
		}
		return exitOK
	}
	var counts clientCounts
	for _, r := range m.client {
		counts.add(r)
	}
	var err error
	groups := clientGroups(m.client)
	switch *format {
	case "json":
		enc := json.NewEncoder(w)
		for _, r := range m.client {
			if err = enc.Encode(r); err != nil {
				break
			}
		}
		if err == nil {
			err = enc.Encode(clientTotals{Provenance: prov, Totals: counts, Strict: m.strict, Passed: counts.Failed == 0, Groups: groups})
		}
	case "html":
		err = writeMergeHTML(w, prov, groups, m.htmlRows(false), counts.String())
	default:
		for _, r := range m.client {
			printClientResult(w, r)
		}
		report.WriteGroups(w, groups)
		_, err = fmt.Fprintln(w, counts)
	}
	if err != nil {
		e.errorf("merge: %v", err)
		return exitFail
	}
	if counts.Failed > 0 {
		return exitFail
	}
	return exitOK
}

// merged is the runs read from the shards' files.
type merged struct {
	kind    string // "client" or "gateway"
	client  []clientResult
	gateway []gateway.Result
	strict  bool
	// from names the file each run came from, by run name.
	from map[string]string
	// strictFrom names the file whose totals set strict.
	strictFrom string
	// inputs are the provenances of the files, in the order read.
	inputs []report.Provenance
}

func (m *merged) read(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxMergeInput+1))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxMergeInput {
		return fmt.Errorf("%s: longer than %d bytes", path, maxMergeInput)
	}
	kind := "client"
	if gateway.IsFile(data) {
		kind = "gateway"
	}
	if m.kind != "" && m.kind != kind {
		return fmt.Errorf("%s holds %s results, the files before it %s results", path, kind, m.kind)
	}
	m.kind = kind
	if m.from == nil {
		m.from = map[string]string{}
	}
	if kind == "gateway" {
		file, err := gateway.ParseFile(data)
		if err != nil {
			return fmt.Errorf("%s: %w", path, jsonOffset(data, err))
		}
		for _, r := range file.Results {
			if err := m.claim(r.Name, path); err != nil {
				return err
			}
		}
		if file.Provenance.Command != "" {
			m.inputs = append(m.inputs, file.Provenance)
		}
		m.gateway = append(m.gateway, file.Results...)
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	totals := false
	for n := 1; ; n++ {
		start := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return fmt.Errorf("%s: value %d: %w", path, n, jsonOffset(data, err))
		}
		if totals {
			return fmt.Errorf("%s: byte %d: a value after the totals", path, start)
		}
		var probe struct {
			Totals     *clientCounts      `json:"totals"`
			Strict     bool               `json:"strict"`
			Provenance *report.Provenance `json:"provenance"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			return fmt.Errorf("%s: byte %d: %w", path, start, err)
		}
		if probe.Totals != nil {
			totals = true
			if m.strictFrom != "" && probe.Strict != m.strict {
				return fmt.Errorf("%s: strict is %t, in %s %t: the shards were not run alike", path, probe.Strict, m.strictFrom, m.strict)
			}
			m.strict, m.strictFrom = probe.Strict, path
			if probe.Provenance != nil {
				m.inputs = append(m.inputs, *probe.Provenance)
			}
			continue
		}
		var r clientResult
		dr := json.NewDecoder(bytes.NewReader(raw))
		dr.DisallowUnknownFields()
		if err := dr.Decode(&r); err != nil {
			return fmt.Errorf("%s: byte %d: not a client run: %w", path, start, err)
		}
		if r.Name == "" {
			return fmt.Errorf("%s: byte %d: a client run without a name", path, start)
		}
		if err := m.claim(r.Name, path); err != nil {
			return err
		}
		m.client = append(m.client, r)
	}
	if !totals {
		return fmt.Errorf("%s: no totals line: not the whole output of run --client --format json", path)
	}
	return nil
}

// claim records that run name came from path; a second file with it is an
// error.
func (m *merged) claim(name, path string) error {
	if other, ok := m.from[name]; ok {
		return fmt.Errorf("%s and %s both hold %q: shards overlap", other, path, name)
	}
	m.from[name] = path
	return nil
}

func (m *merged) sort() {
	sort.SliceStable(m.client, func(i, j int) bool { return m.client[i].Name < m.client[j].Name })
	sort.SliceStable(m.gateway, func(i, j int) bool { return m.gateway[i].Name < m.gateway[j].Name })
}

// jsonOffset adds the byte offset of a JSON syntax error.
func jsonOffset(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n")) + 1
		return fmt.Errorf("byte %d (line %d): %w", se.Offset, line, err)
	}
	return err
}

// mergeRow is one run in the HTML report.
type mergeRow struct {
	Name, Status, Severity string
	Details                []string
}

func (m *merged) htmlRows(strict bool) []mergeRow {
	var rows []mergeRow
	for _, r := range m.client {
		row := mergeRow{Name: r.Name, Status: r.Status, Severity: string(r.Severity), Details: r.Reasons}
		if r.Counted != nil && !*r.Counted {
			row.Status += " (not counted)"
		}
		rows = append(rows, row)
	}
	for _, r := range m.gateway {
		row := mergeRow{Name: r.Name, Status: r.Status, Severity: string(r.Severity)}
		if r.Status == gateway.StatusFail && !gateway.Counted(r, strict) {
			row.Status += " (not counted)"
		}
		if r.Reason != "" {
			row.Details = append(row.Details, r.Reason)
		}
		for _, p := range r.Problems {
			row.Details = append(row.Details, "["+p.Rule+"] "+p.Message)
		}
		for _, ev := range r.Evidence {
			row.Details = append(row.Details, ev.What+":\n"+ev.Bytes)
		}
		rows = append(rows, row)
	}
	return rows
}

var mergeHTML = template.Must(template.New("merge").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>conform: merged report</title>
<style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top;text-align:left}
.fail{background:#fdd}.pass{background:#dfd}pre{white-space:pre-wrap;margin:0;max-width:100ch}</style></head>
<body><h1>conform: merged report</h1><p class="provenance">{{.Provenance}}</p><p>{{.Summary}}</p>
{{if .Findings}}<h2>Findings</h2><p>Failed cases grouped by subject, reduced cause and failure mode: one group per fault.</p>
{{range .Findings}}<details><summary>{{.Title}}</summary><ul>{{range .Cases}}<li>{{.}}</li>{{end}}</ul></details>
{{end}}{{end}}
<table><tr><th>run</th><th>status</th><th>severity</th><th>details</th></tr>
{{range .Rows}}<tr class="{{if eq .Status "pass"}}pass{{else if eq .Status "fail"}}fail{{end}}"><td>{{.Name}}</td><td>{{.Status}}</td><td>{{.Severity}}</td><td>{{range .Details}}<pre>{{.}}</pre>{{end}}</td></tr>
{{end}}</table></body></html>
`))

func writeMergeHTML(w io.Writer, prov report.Provenance, groups []report.Group, rows []mergeRow, summary string) error {
	bw := bufio.NewWriter(w)
	if err := mergeHTML.Execute(bw, struct {
		Provenance report.Provenance
		Findings   []report.Group
		Summary    string
		Rows       []mergeRow
	}{prov, groups, summary, rows}); err != nil {
		return err
	}
	return bw.Flush()
}
