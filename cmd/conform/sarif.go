package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/toolconform/conform/report"
)

// SARIF 2.1.0 (OASIS), the format GitHub code scanning and other static
// analysis viewers read. Only the members conform fills are declared.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool         `json:"tool"`
	Results    []sarifResult     `json:"results"`
	Properties map[string]string `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string        `json:"id"`
	ShortDescription     sarifText     `json:"shortDescription"`
	FullDescription      sarifText     `json:"fullDescription"`
	DefaultConfiguration sarifRuleConf `json:"defaultConfiguration"`
}

type sarifRuleConf struct {
	Level string `json:"level"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID     string            `json:"ruleId"`
	Level      string            `json:"level"`
	Message    sarifText         `json:"message"`
	Locations  []sarifLocation   `json:"locations,omitempty"`
	Properties map[string]string `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// The two rules of conform tools: a provider refuses the tool, or accepts it
// only after rewriting its name or schema.
var sarifRules = []sarifRule{
	{
		ID:                   "tool-refused",
		ShortDescription:     sarifText{"A provider refuses this tool definition"},
		FullDescription:      sarifText{"The provider's API answers a request that declares this tool with an error: its name breaks the provider's name rules, or its input schema uses what the provider does not accept. conform tools names the rule and the JSON pointer."},
		DefaultConfiguration: sarifRuleConf{"error"},
	},
	{
		ID:                   "tool-rewritten",
		ShortDescription:     sarifText{"A provider receives this tool only after a rewrite"},
		FullDescription:      sarifText{"conform's adapter sends this tool under another name or with parts of its schema changed or removed, so that the provider accepts it; each rewrite is named with its JSON pointer. A model then sees a tool that differs from the definition."},
		DefaultConfiguration: sarifRuleConf{"warning"},
	},
}

// writeSARIF writes the verdicts as a SARIF log: one result per tool and
// protocol that refuses or rewrites it, located at the line of the tool's
// name in file (when the tools came from a file).
func writeSARIF(w io.Writer, verdicts []toolVerdict, file string, data []byte) error {
	info, _ := debug.ReadBuildInfo()
	prov := report.FromBuild(info)
	run := sarifRun{
		Tool:       sarifTool{sarifDriver{Name: "conform", Version: prov.Version, InformationURI: "https://github.com/toolconform/conform", Rules: sarifRules}},
		Results:    []sarifResult{},
		Properties: map[string]string{"scenario_set": prov.ScenarioSet},
	}
	if prov.Commit != "" {
		run.Properties["commit"] = prov.Commit
	}
	for _, v := range verdicts {
		var rule, level string
		switch v.Verdict {
		case verdictRefused:
			rule, level = "tool-refused", "error"
		case verdictRewritten:
			rule, level = "tool-rewritten", "warning"
		default:
			continue
		}
		msg := fmt.Sprintf("%s %s tool %q", v.Protocol, v.Verdict, v.Tool)
		if v.WireName != "" && v.WireName != v.Tool {
			msg += fmt.Sprintf(" (sent as %q)", v.WireName)
		}
		if len(v.Reasons) > 0 {
			msg += ": " + strings.Join(v.Reasons, "; ")
		}
		res := sarifResult{RuleID: rule, Level: level, Message: sarifText{msg}, Properties: map[string]string{"protocol": v.Protocol, "tool": v.Tool}}
		if file != "" {
			loc := sarifLocation{sarifPhysical{ArtifactLocation: sarifArtifact{URI: file}}}
			if line := nameLine(data, v.Tool); line > 0 {
				loc.PhysicalLocation.Region = &sarifRegion{StartLine: line}
			}
			res.Locations = []sarifLocation{loc}
		}
		run.Results = append(run.Results, res)
	}
	out, err := json.MarshalIndent(sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}}, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", out)
	return err
}

// nameLine is the 1-based line of the first "name": "NAME" member in data,
// or 0.
func nameLine(data []byte, name string) int {
	quoted, _ := json.Marshal(name)
	for i := 0; ; {
		j := bytes.Index(data[i:], []byte(`"name"`))
		if j < 0 {
			return 0
		}
		at := i + j + len(`"name"`)
		rest := bytes.TrimLeft(data[at:], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' && bytes.HasPrefix(bytes.TrimLeft(rest[1:], " \t\r\n"), quoted) {
			return 1 + bytes.Count(data[:i+j], []byte("\n"))
		}
		i = at
	}
}
