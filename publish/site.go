package publish

import (
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolconform/conform/failuremodes"
)

// WriteSite writes the static site for subjects into dir, which it creates:
// index.html, subjects/NAME.html, modes/ID.html, badges/NAME.svg and
// results.json (the cases of every run, as Read gave them).
func WriteSite(dir string, runs []*Run) error {
	subjects := Subjects(runs)
	if len(subjects) == 0 {
		return fmt.Errorf("site: no results to publish")
	}
	for _, sub := range []string{"subjects", "modes", "badges"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	slugs := map[*Subject]string{}
	used := map[string]bool{}
	for _, s := range subjects {
		slug := slugFor(s.Kind + "-" + s.Name)
		for n := 2; used[slug]; n++ {
			slug = fmt.Sprintf("%s-%d", slugFor(s.Kind+"-"+s.Name), n)
		}
		used[slug] = true
		slugs[s] = slug
	}
	modes := modePages(subjects, slugs)
	write := func(name string, t *template.Template, data any) error {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if err := t.Execute(f, data); err != nil {
			f.Close()
			return fmt.Errorf("site: %s: %w", name, err)
		}
		return f.Close()
	}
	var rows []indexRow
	for _, s := range subjects {
		l := s.Latest()
		rows = append(rows, indexRow{Subject: s, Slug: slugs[s], Latest: l, Conform: conformVersion(l.Provenance)})
		if err := os.WriteFile(filepath.Join(dir, "badges", slugs[s]+".svg"), badge(l.Counts), 0o644); err != nil {
			return err
		}
		if err := write(filepath.Join("subjects", slugs[s]+".html"), subjectPage, subjectData{Subject: s, Latest: l, Conform: conformVersion(l.Provenance), Groups: groups(l)}); err != nil {
			return err
		}
	}
	for _, m := range modes {
		if err := write(filepath.Join("modes", m.ID+".html"), modePage, m); err != nil {
			return err
		}
	}
	if err := write("index.html", indexPage, indexData{Total: Total(subjects), Rows: rows, Modes: modes}); err != nil {
		return err
	}
	data, err := json.MarshalIndent(runs, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "results.json"), append(data, '\n'), 0o644)
}

type indexRow struct {
	Subject *Subject
	Slug    string
	Latest  *SubjectRun
	Conform string
}

type indexData struct {
	Total Counts
	Rows  []indexRow
	Modes []modeData
}

type subjectData struct {
	Subject *Subject
	Latest  *SubjectRun
	Conform string
	Groups  []groupData
}

type groupData struct {
	ID, Title string
	Cases     []Case
}

func groups(r *SubjectRun) []groupData {
	var out []groupData
	for _, g := range r.Failures() {
		id := g.Mode
		if id == "" {
			id = "none"
		}
		out = append(out, groupData{ID: id, Title: modeTitle(g.Mode), Cases: g.Cases})
	}
	return out
}

type modeData struct {
	ID, Title, Group, What string
	Known                  bool
	Subjects               []modeSubject
	Failed                 int
}

type modeSubject struct {
	Name, Kind, Slug string
	Cases            []Case
}

// modePages is one page per failure mode that a newest run fails, the
// modes most failed first.
func modePages(subjects []*Subject, slugs map[*Subject]string) []modeData {
	index := map[string]*modeData{}
	for _, s := range subjects {
		for _, g := range s.Latest().Failures() {
			if g.Mode == "" {
				continue
			}
			m := index[g.Mode]
			if m == nil {
				m = &modeData{ID: g.Mode, Title: modeTitle(g.Mode)}
				if fm, ok := failuremodes.Lookup(g.Mode); ok {
					m.Known, m.Group, m.What = true, fm.Group, fm.What
				}
				index[g.Mode] = m
			}
			m.Subjects = append(m.Subjects, modeSubject{Name: s.Name, Kind: s.Kind, Slug: slugs[s], Cases: g.Cases})
			m.Failed += len(g.Cases)
		}
	}
	var out []modeData
	for _, m := range index {
		out = append(out, *m)
	}
	slices.SortFunc(out, func(a, b modeData) int {
		if a.Failed != b.Failed {
			return b.Failed - a.Failed
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// conformVersion is the conform that wrote a run, as its provenance says.
func conformVersion(p map[string]string) string {
	for _, k := range []string{"version"} {
		if v := p[k]; v != "" {
			if c := p["commit"]; c != "" && !strings.Contains(v, c) {
				v += " (" + c + ")"
			}
			return v
		}
	}
	return "not recorded"
}

// slugFor is a file name for a subject: letters, digits, dots and dashes.
func slugFor(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= 80 {
			break
		}
	}
	out := strings.Trim(b.String(), "-.")
	if out == "" {
		out = "subject"
	}
	return out
}

// badge is an SVG badge: "conform" and the passed share of the graded
// cases, green when nothing counted failed.
func badge(n Counts) []byte {
	value := fmt.Sprintf("%d/%d passed", n.Passed, n.Passed+n.Failed)
	color := "#2e7d32"
	if n.Failed > 0 {
		color = "#c62828"
	}
	const label = "conform"
	lw, vw := 8+7*len(label), 10+7*len(value)
	return fmt.Appendf(nil, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="20" role="img" aria-label="%s: %s">
<title>%s: %s</title>
<rect width="%d" height="20" fill="#555"/><rect x="%d" width="%d" height="20" fill="%s"/>
<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">
<text x="5" y="14">%s</text><text x="%d" y="14">%s</text>
</g>
</svg>
`, lw+vw, label, value, label, value, lw, lw, vw, color, label, lw+5, value)
}

var funcs = template.FuncMap{
	"modeHref": func(id string) string { return "../modes/" + id + ".html" },
}

const style = `<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:80em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}
td.n{text-align:right}th{background:#f3f3f3}.fail{color:#c62828}.pass{color:#2e7d32}
pre{background:#f7f7f7;padding:.5em;overflow-x:auto;max-height:20em}details{margin:.3em 0}
</style>`

var indexPage = template.Must(template.New("index").Funcs(funcs).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>conform results</title>` + style + `</head><body>
<h1>conform results</h1>
<p id="total">{{.Total}}</p>
<h2>Subjects</h2>
<table id="subjects"><tr><th>subject</th><th>kind</th><th>badge</th><th>passed</th><th>failed</th><th>not counted</th><th>not applicable</th><th>date</th><th>conform</th></tr>
{{range .Rows}}<tr><td><a href="subjects/{{.Slug}}.html">{{.Subject.Name}}</a></td><td>{{.Subject.Kind}}</td><td><img src="badges/{{.Slug}}.svg" alt="badge"></td><td class="n pass">{{.Latest.Counts.Passed}}</td><td class="n fail">{{.Latest.Counts.Failed}}</td><td class="n">{{.Latest.Counts.NotCounted}}</td><td class="n">{{.Latest.Counts.NotApplicable}}</td><td>{{.Latest.Date}}</td><td>{{.Conform}}</td></tr>
{{end}}</table>
<h2>Failure modes failed</h2>
{{if .Modes}}<table id="modes"><tr><th>mode</th><th>subjects</th><th>failed cases</th></tr>
{{range .Modes}}<tr><td><a href="modes/{{.ID}}.html">{{.Title}}</a></td><td class="n">{{len .Subjects}}</td><td class="n">{{.Failed}}</td></tr>
{{end}}</table>{{else}}<p>No subject fails a failure mode.</p>{{end}}
</body></html>
`))

var subjectPage = template.Must(template.New("subject").Funcs(funcs).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Subject.Name}} — conform</title>` + style + `</head><body>
<p><a href="../index.html">all subjects</a></p>
<h1>{{.Subject.Name}}</h1>
<p>{{.Subject.Kind}} · <span id="counts">{{.Latest.Counts}}</span></p>
<table id="provenance"><tr><th>conform</th><td>{{.Conform}}</td></tr>
{{range $k, $v := .Latest.Provenance}}<tr><th>{{$k}}</th><td>{{$v}}</td></tr>
{{end}}<tr><th>results file</th><td>{{.Latest.File}}</td></tr></table>
{{if gt (len .Subject.Runs) 1}}<h2>History</h2>
<table id="history"><tr><th>date</th><th>passed</th><th>failed</th><th>not counted</th><th>not applicable</th></tr>
{{range .Subject.Runs}}<tr><td>{{.Date}}</td><td class="n">{{.Counts.Passed}}</td><td class="n">{{.Counts.Failed}}</td><td class="n">{{.Counts.NotCounted}}</td><td class="n">{{.Counts.NotApplicable}}</td></tr>
{{end}}</table>{{end}}
<h2>Per protocol and variant</h2>
<table id="cells"><tr><th>protocol</th><th>variant</th><th>passed</th><th>failed</th><th>not counted</th><th>not applicable</th></tr>
{{range .Latest.Cells}}<tr><td>{{.Protocol}}</td><td>{{.Variant}}</td><td class="n pass">{{.Counts.Passed}}</td><td class="n fail">{{.Counts.Failed}}</td><td class="n">{{.Counts.NotCounted}}</td><td class="n">{{.Counts.NotApplicable}}</td></tr>
{{end}}</table>
<h2>Failures by failure mode</h2>
{{range .Groups}}<h3 id="{{.ID}}">{{if ne .ID "none"}}<a href="{{modeHref .ID}}">{{.Title}}</a>{{else}}{{.Title}}{{end}} — {{len .Cases}} failed</h3>
{{range .Cases}}<details><summary><code>{{.Name}}</code>{{if .Variant}} ({{.Variant}}){{end}} [{{.Severity}}]{{if not .Counted}} not counted{{end}}{{if .Cause}} — cause: {{.Cause}}{{end}}</summary>
{{range .Problems}}<pre>{{.}}</pre>{{end}}{{range .Evidence}}<pre>{{.}}</pre>{{end}}</details>
{{end}}{{else}}<p>No failures.</p>{{end}}
</body></html>
`))

var modePage = template.Must(template.New("mode").Funcs(funcs).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.ID}} — conform</title>` + style + `</head><body>
<p><a href="../index.html">all subjects</a></p>
<h1>{{.ID}}</h1>
{{if .Known}}<p>{{.Group}}</p><p>{{.What}}</p>{{else}}<p>Not in this conform's failure-mode catalogue.</p>{{end}}
<h2>Subjects that fail it</h2>
<table id="failing"><tr><th>subject</th><th>kind</th><th>failed cases</th></tr>
{{range .Subjects}}<tr><td><a href="../subjects/{{.Slug}}.html#{{$.ID}}">{{.Name}}</a></td><td>{{.Kind}}</td><td>{{range .Cases}}<code>{{.Name}}</code>{{if .Variant}} ({{.Variant}}){{end}}<br>{{end}}</td></tr>
{{end}}</table>
</body></html>
`))
