package report

import (
	"html/template"
	"io"

	"github.com/toolconform/conform/reduce"
	"github.com/toolconform/conform/scenarios"
)

// htmlCell is one cell of the HTML matrix.
type htmlCell struct {
	Counts
	Present bool
	Class   string
	Anchor  string
}

type htmlRow struct {
	Adapter string
	Cells   []htmlCell
}

type htmlFailure struct {
	Result    scenarios.Result
	Counted   bool
	Anchor    string
	Reduction *reduce.Result
}

// htmlFinding is one group of GroupFindings with its cases' anchors.
type htmlFinding struct {
	Group
	Links []htmlLink
}

type htmlLink struct{ Name, Anchor string }

// htmlFindings are the groups of failures, each case linked to its details.
func htmlFindings(groups []Group) []htmlFinding {
	var out []htmlFinding
	for _, g := range groups {
		f := htmlFinding{Group: g}
		for _, c := range g.Cases {
			f.Links = append(f.Links, htmlLink{c, anchor(g.Subject, c)})
		}
		out = append(out, f)
	}
	return out
}

type htmlGroup struct {
	Anchor, Adapter, Category string
	Failures                  []htmlFailure
}

// WriteHTML writes one self-contained page: no script, no external asset.
// The matrix has a row per adapter and a column per category, each cell
// coloured by its worst outcome with its counts; a cell with failures links
// to them, and each failure's problems and diffs open with one click.
func (rep *Report) WriteHTML(w io.Writer) error {
	adapters, categories, cells := rep.Matrix()
	var rows []htmlRow
	groups := map[string]*htmlGroup{}
	var order []string
	for _, a := range adapters {
		row := htmlRow{Adapter: a}
		for _, c := range categories {
			n, ok := cells[[2]string{a, c}]
			cell := htmlCell{Counts: n, Present: ok, Anchor: anchor(a, c)}
			switch {
			case !ok:
				cell.Class = "none"
			case n.Fail > 0:
				cell.Class = "fail"
			case n.KnownFailing > 0 || n.Uncounted > 0:
				cell.Class = "warn"
			case n.Pass == 0:
				cell.Class = "skip"
			default:
				cell.Class = "pass"
			}
			row.Cells = append(row.Cells, cell)
		}
		rows = append(rows, row)
	}
	for _, r := range rep.Results {
		if r.Status != scenarios.StatusFail && r.Status != scenarios.StatusKnownFailing {
			continue
		}
		a := anchor(r.Adapter, Category(r.Name))
		g, ok := groups[a]
		if !ok {
			g = &htmlGroup{Anchor: a, Adapter: r.Adapter, Category: Category(r.Name)}
			groups[a] = g
			order = append(order, a)
		}
		g.Failures = append(g.Failures, htmlFailure{Result: r, Counted: rep.Fails(r), Anchor: anchor(r.Adapter, r.Name), Reduction: rep.Reduction(r)})
	}
	var list []*htmlGroup
	for _, a := range order {
		list = append(list, groups[a])
	}
	return htmlPage.Execute(w, map[string]any{
		"Categories": categories,
		"Rows":       rows,
		"Groups":     list,
		"Total":      rep.Total(),
		"Failed":     rep.Failed(),
		"Strict":     rep.Strict,
		"Coverage":   rep.Coverage(),
		"Findings":   htmlFindings(rep.Groups()),
		"Provenance": rep.Provenance,
	})
}

func anchor(parts ...string) string {
	b := []byte("r")
	for _, p := range parts {
		b = append(b, '-')
		for i := 0; i < len(p); i++ {
			c := p[i]
			switch {
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
				b = append(b, c)
			default:
				b = append(b, '_')
			}
		}
	}
	return string(b)
}

var htmlPage = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>conform report</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em; color: #1d232a; }
h1 { font-size: 1.4em; margin: 0 0 .3em; }
.verdict { font-weight: 600; }
.verdict.fail { color: #b42318; } .verdict.pass { color: #067647; }
table.matrix { border-collapse: collapse; margin: 1em 0 2em; }
.matrix th, .matrix td { border: 1px solid #d0d5dd; padding: .35em .7em; text-align: center; }
.matrix th { background: #f2f4f7; font-weight: 600; }
.matrix th.adapter { text-align: left; }
td.pass { background: #d1fadf; } td.fail { background: #fecdca; } td.warn { background: #fef0c7; }
td.skip { background: #eaecf0; } td.none { background: #fff; color: #98a2b3; }
td a { color: inherit; font-weight: 600; }
.counts { font-size: .85em; color: #475467; display: block; }
details { border: 1px solid #d0d5dd; border-radius: 4px; margin: .4em 0; padding: .3em .7em; }
details.counted { border-left: 4px solid #b42318; } details.uncounted { border-left: 4px solid #dc6803; }
summary { cursor: pointer; font-family: ui-monospace, monospace; }
pre { background: #f9fafb; padding: .6em; overflow-x: auto; font-size: 12.5px; }
.provenance { color: #475467; font-size: .85em; }
.legend span { display: inline-block; padding: 0 .6em; margin-right: .4em; border: 1px solid #d0d5dd; }
</style>
</head>
<body>
<h1>conform report</h1>
<p class="provenance">{{.Provenance}}</p>
<p class="verdict {{if .Failed}}fail{{else}}pass{{end}}">{{if .Failed}}FAILED{{else}}PASSED{{end}}:
{{.Total.Pass}} passed, {{.Total.Fail}} failed, {{.Total.KnownFailing}} known-failing, {{.Total.Skip}} skipped,
{{.Total.Uncounted}} failed but not counted{{if .Total.NotGraded}}, {{.Total.NotGraded}} not graded{{end}}{{if .Strict}} (strict: SHOULD failures count){{end}}.</p>
<ul class="coverage">{{range .Coverage}}<li>{{.String}}</li>{{end}}</ul>
<p class="legend"><span class="pass" style="background:#d1fadf">all pass</span><span style="background:#fecdca">failures</span><span style="background:#fef0c7">known-failing or not counted</span><span style="background:#eaecf0">skipped</span></p>
<table class="matrix">
<tr><th class="adapter">adapter</th>{{range .Categories}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><th class="adapter">{{.Adapter}}</th>{{range .Cells}}<td class="{{.Class}}">{{if .Present}}{{if or .Fail .KnownFailing .Uncounted}}<a href="#{{.Anchor}}">{{.Pass}}/{{.Total}}</a>{{else}}{{.Pass}}/{{.Total}}{{end}}<span class="counts">{{if .Fail}}{{.Fail}} fail {{end}}{{if .KnownFailing}}{{.KnownFailing}} known {{end}}{{if .Uncounted}}{{.Uncounted}} not counted {{end}}{{if .Skip}}{{.Skip}} skip {{end}}{{if .NotGraded}}{{.NotGraded}} not graded{{end}}</span>{{else}}–{{end}}</td>{{end}}</tr>
{{end}}</table>
{{if .Findings}}<h2>Findings</h2>
<p>Failed cases grouped by subject, reduced cause and failure mode: one group per fault.</p>
{{range .Findings}}<details class="finding"><summary>{{.Title}}</summary><ul>{{range .Links}}<li><a href="#{{.Anchor}}">{{.Name}}</a></li>{{end}}</ul></details>
{{end}}{{end}}
{{if .Groups}}<h2>Failures</h2>{{end}}
{{range .Groups}}<h3 id="{{.Anchor}}">{{.Adapter}} / {{.Category}}</h3>
{{range .Failures}}<details id="{{.Anchor}}" class="{{if .Counted}}counted{{else}}uncounted{{end}}"><summary>{{.Result.Name}} [{{.Result.Severity}}] {{.Result.Status}}{{if .Result.Reason}} — {{.Result.Reason}}{{end}}</summary>
{{if .Result.Scenario}}<p>{{.Result.Scenario.File}}{{if .Result.Scenario.Guards}} — guards {{range .Result.Scenario.Guards}}{{.}} {{end}}{{end}}</p>{{end}}
{{with .Reduction}}<p class="cause">cause: {{.Cause}}<br>smallest failing variant: {{.Smallest}} ({{.Summary}})<br>steps: {{.Tried}}</p>{{end}}
{{range .Result.Problems}}<pre>{{.String}}</pre>{{end}}
</details>
{{end}}{{end}}
</body>
</html>
`))
