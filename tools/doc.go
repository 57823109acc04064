// Package tools is conform's tool runtime: a Tool (built from a Go
// function with an inferred schema, from a raw JSON Schema, or from an MCP
// tool definition), the Registry that holds tools by name, validation of a
// call's arguments against its tool's schema, and execution with timeouts,
// output limits and panic recovery. A NameMapper maps names that providers
// reject to ones they accept.
//
// Calls and results are core's (core.Call, core.Result); a Registry's
// Specs are the core.ToolSpec values a core.Request carries. The design
// decisions are written in tool_doc.go. Sub-packages: tools/schema (schema
// inference and validation, the only importer of a JSON Schema library),
// tools/mcp (tools from a live MCP server), tools/command (tools that run a
// program per call), tools/sandbox (the fence for such programs) and
// tools/names (per-provider name rules).
//
//	reg := tools.NewRegistry()
//	t, err := tools.NewTool("get_weather", "Current temperature in a city.", getWeather,
//		tools.WithRisk(tools.RiskReadOnly))
//	if err == nil {
//		err = reg.Add(t)
//	}
//	res := reg.Execute(ctx, call) // an error becomes an error Result
package tools
