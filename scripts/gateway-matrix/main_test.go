package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolconform/conform/gateway"
	"github.com/toolconform/conform/scenarios"
)

// TestGatewaysArePinned checks every gateway of gateways/: its spec file
// loads, its package.json names one exact version, and its
// package-lock.json pins that version and every package it installs at an
// exact version with an integrity hash, so npm ci installs the same bytes.
func TestGatewaysArePinned(t *testing.T) {
	dirs, err := gatewayDirs(filepath.Join("..", "..", "gateways"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 2 {
		t.Fatalf("%d gateways under gateways/, want at least 2", len(dirs))
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			spec, err := gateway.LoadSpec(filepath.Join(dir, "spec.json"))
			if err != nil {
				t.Fatal(err)
			}
			if len(spec.UpstreamNames()) == 0 {
				t.Errorf("spec names no upstream")
			}
			pkg, version, err := pinnedPackage(dir)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
			if err != nil {
				t.Fatal(err)
			}
			var lock struct {
				LockfileVersion int `json:"lockfileVersion"`
				Packages        map[string]struct {
					Version      string            `json:"version"`
					Integrity    string            `json:"integrity"`
					Dependencies map[string]string `json:"dependencies"`
					Link         bool              `json:"link"`
				} `json:"packages"`
			}
			if err := json.Unmarshal(data, &lock); err != nil {
				t.Fatalf("package-lock.json: %v", err)
			}
			if lock.LockfileVersion < 2 {
				t.Errorf("lockfileVersion %d, want 2 or 3 (with the packages map)", lock.LockfileVersion)
			}
			if got := lock.Packages[""].Dependencies[pkg]; got != version {
				t.Errorf("package-lock.json: the root depends on %s %q, package.json pins %q", pkg, got, version)
			}
			if got := lock.Packages["node_modules/"+pkg].Version; got != version {
				t.Errorf("package-lock.json installs %s %q, package.json pins %q", pkg, got, version)
			}
			for path, p := range lock.Packages {
				if path == "" || p.Link {
					continue
				}
				if p.Version == "" || !strings.HasPrefix(p.Integrity, "sha512-") {
					t.Errorf("package-lock.json: %s: version %q, integrity %q: want an exact version and a sha512 hash", path, p.Version, p.Integrity)
				}
			}
		})
	}
}

func TestPinnedPackageRefusesRanges(t *testing.T) {
	for _, v := range []string{"^1.0.73", "~2.0.0", ">=1", "1.x", "*", "latest || 1"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"dependencies": {"gw": "`+v+`"}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := pinnedPackage(dir); err == nil || !strings.Contains(err.Error(), "not a pinned version") {
			t.Errorf("%q: err %v, want not a pinned version", v, err)
		}
	}
}

func TestSameFailures(t *testing.T) {
	spec := &gateway.Spec{Front: "anthropic"}
	fail := func(name string, rules ...string) gateway.Result {
		r := gateway.Result{Name: name, Status: gateway.StatusFail}
		for _, rule := range rules {
			r.Problems = append(r.Problems, scenarios.Problem{Rule: rule, Message: "m " + name})
		}
		return r
	}
	a := graded{name: "a", spec: spec, results: []gateway.Result{fail("x", "I04", "C03"), {Name: "y", Status: gateway.StatusPass}}}
	b := graded{name: "b", spec: spec, results: []gateway.Result{fail("x", "C03", "I04", "C03")}}
	c := graded{name: "c", spec: spec, results: []gateway.Result{fail("x", "C03")}}
	if got := sameFailures([]graded{a}, b); got != "a" {
		t.Errorf("b fails x with the modes a does: got %q, want a", got)
	}
	if got := sameFailures([]graded{a}, c); got != "" {
		t.Errorf("c fails x with fewer modes than a: got %q, want none", got)
	}
}

// TestSummaryFromGroups checks that the summary is made from the groups:
// one row per pair and failure mode, each failed case counted once.
func TestSummaryFromGroups(t *testing.T) {
	fail := func(name, upstream string, rules ...string) gateway.Result {
		r := gateway.Result{Name: "anthropic>" + name, Front: "anthropic", Upstream: upstream, Status: gateway.StatusFail}
		for _, rule := range rules {
			r.Problems = append(r.Problems, scenarios.Problem{Rule: rule, Message: "m"})
		}
		return r
	}
	runs := []graded{
		{name: "a", results: []gateway.Result{fail("gemini/s/x", "gemini", "I04", "C03"), fail("gemini/s/y", "gemini", "C03", "I04"), fail("gemini/s/z", "gemini", "G10"), {Name: "p", Status: gateway.StatusPass}}},
		{name: "b", setup: "npm ci failed"},
		{name: "c", results: []gateway.Result{{Name: "q", Status: gateway.StatusPass}}},
	}
	var b bytes.Buffer
	writeSummary(&b, runs)
	for _, want := range []string{
		"| a | anthropic > gemini | C03 + I04 | 2 | `gemini/s/x` |\n",
		"| a | anthropic > gemini | G10 | 1 | `gemini/s/z` |\n",
		"| b | — | set-up failed | — | — |\n",
		"| c | — | no failed case | 0 | — |\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}
