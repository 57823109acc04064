package serve

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolconform/conform/providers"
)

// ruleLiteral matches a rule id written where a problem is made: the
// first argument of an add function, or a Rule field.
var ruleLiteral = regexp.MustCompile(`(?:\badd\(|Rule: *)"([A-Za-z0-9-]+)"`)

// TestEveryRuleCitesItsContract reads the source of serve and gateway for
// every rule a problem is made with, and each protocol's rule for a
// missing result, and checks that Contracts names the API reference or
// recorded behaviour that requires it.
func TestEveryRuleCitesItsContract(t *testing.T) {
	rules := map[string]string{EchoRule: "serve"}
	for _, dir := range []string{".", "../gateway"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ruleLiteral.FindAllStringSubmatch(string(src), -1) {
				rules[m[1]] = f
			}
		}
	}
	for _, p := range providers.Names() {
		d, _ := providers.Describe(p)
		rules[d.Grading.MissingResult] = p + "'s descriptor"
	}
	rules["gateway-died"], rules["case-timeout"] = "gateway", "gateway"
	if len(rules) < 40 {
		t.Fatalf("found only %d rules; the pattern no longer matches the source", len(rules))
	}
	for r, where := range rules {
		if strings.TrimSpace(Contracts[r]) == "" {
			t.Errorf("rule %s (%s) cites no contract", r, where)
		}
	}
}

// TestProblemsCiteTheirContract checks that a graded follow-up's problems
// carry their contract into the failure message.
func TestProblemsCiteTheirContract(t *testing.T) {
	ps := Cite(GradeBody("anthropic", []byte(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":""}]}]}`)))
	if len(ps) == 0 {
		t.Fatal("no problem with a blank text block")
	}
	for _, p := range ps {
		if p.Contract == "" || !strings.Contains(p.String(), "(contract: "+p.Contract+")") {
			t.Errorf("%s: contract %q not in %q", p.Rule, p.Contract, p.String())
		}
	}
}
