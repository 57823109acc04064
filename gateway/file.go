package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolconform/conform/report"
)

// File is the results of conform gateway --format json: what produced
// them, the failures grouped by fault, and every case.
type File struct {
	Provenance report.Provenance `json:"provenance"`
	Groups     []report.Group    `json:"groups"`
	Results    []Result          `json:"results"`
}

// NewFile returns the file of results, their groups made.
func NewFile(p report.Provenance, results []Result) File {
	if results == nil {
		results = []Result{}
	}
	return File{Provenance: p, Groups: Groups(results), Results: results}
}

// Groups groups the failed results by front>upstream pair and failure
// mode (report.GroupFindings; gateway cases are not reduced).
func Groups(results []Result) []report.Group {
	var fs []report.Finding
	for _, r := range results {
		if r.Status != StatusFail {
			continue
		}
		f := report.Finding{Subject: r.Front + ">" + r.Upstream, Name: r.Name}
		for _, p := range r.Problems {
			f.Rules = append(f.Rules, p.Rule)
		}
		fs = append(fs, f)
	}
	groups := report.GroupFindings(fs)
	if groups == nil {
		groups = []report.Group{}
	}
	return groups
}

// ParseFile reads a File, or the bare JSON array of results that
// versions before the file had, which has no provenance.
func ParseFile(data []byte) (File, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var rs []Result
		if err := json.Unmarshal(data, &rs); err != nil {
			return File{}, err
		}
		f := File{Results: rs, Groups: Groups(rs)}
		return f, checkNames(f.Results)
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return File{}, err
	}
	if f.Results == nil {
		return File{}, errors.New(`no "results": not the output of conform gateway --format json`)
	}
	return f, checkNames(f.Results)
}

// checkNames refuses a result without a name.
func checkNames(results []Result) error {
	for i, r := range results {
		if r.Name == "" {
			return fmt.Errorf("results[%d]: a result without a name", i)
		}
	}
	return nil
}

// IsFile reports whether data starts as a File or a bare array of
// results would, rather than as the JSON lines of run --client.
func IsFile(data []byte) bool {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		return true
	}
	var probe struct {
		Results    json.RawMessage `json:"results"`
		Provenance json.RawMessage `json:"provenance"`
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	return dec.Decode(&probe) == nil && probe.Results != nil && probe.Provenance != nil
}
