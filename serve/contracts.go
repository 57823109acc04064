package serve

import (
	"github.com/toolconform/conform/scenarios"
)

// Contracts names, for every rule that can fail a client or a gateway,
// the API reference or the recorded behaviour that requires it; a rule is
// graded no stricter than its contract says. Problem.Contract carries it
// into every failure message (Cite). docs/client-protocol.md and
// docs/gateway.md have the longer reasons.
var Contracts = map[string]string{
	// Follow-ups (serve.Grade, GradeBody, GradeEcho).
	"B09":    "a call is complete only when its stream closes it (Messages content_block_stop, Chat Completions finish_reason, Converse contentBlockStop before messageStop, …); a call the stream left open must not be run (every API's streaming reference)",
	"D02":    "the tool result names the call id the API sent (Messages tool_use_id, Chat Completions tool_call_id, Responses call_id, Converse toolUseId): the API refuses an unknown id with 400 (recorded refusals in testdata/corpus)",
	"D06":    "each call needs its own id: a history with a repeated tool_use or tool_call id is refused with 400 (Anthropic and OpenAI API references)",
	"D08":    "a Responses function_call item is sent back with the id the API gave it (OpenAI Responses API reference, input items)",
	"E01":    "a call comes back under the name the API sent, which is a declared tool's (every API's tool-calling reference)",
	"G01":    "each tool_use needs its tool_result in the very next user message (Anthropic Messages API reference, tool use; Converse toolResult likewise, ValidationException)",
	"G02":    "every tool result answers a call of the assistant turn before it, and no call appears that was not served (every API refuses an orphan result with 400)",
	"G03":    "every tool call of the assistant message gets one tool message (OpenAI Chat Completions: \"messages with role 'tool' must be a response to a preceding message with 'tool_calls'\"; Mistral, Cohere and Ollama follow it)",
	"G04":    "one functionResponse per functionCall of the model turn, in its order (Gemini API reference, function calling)",
	"G05":    "tool results come in the order of the calls where the API requires it (Anthropic, Converse, Gemini)",
	"G06":    "a tool result carries the id of the call it answers (every API's tool-result field is required)",
	"G07":    "every function_call of the turn has its function_call_output (OpenAI Responses API reference: \"No tool output found for function call\")",
	"G08":    "previous_response_id names a stored response, and an item it holds is not sent again (OpenAI Responses API reference; recorded 400 \"Duplicate item\")",
	"G09":    "the call comes back with the arguments the API sent, as JSON (compared as JSON values; null and {} alike for a call without arguments)",
	"G10":    "a tool result's content is what the tool returned: for Chat Completions and Mistral a string or text parts, never JSON text of a list of parts (the model reads it as JSON); for Ollama, whose content is a string, no list (API references)",
	"G11":    "no empty text block (Anthropic Messages: \"text content blocks must be non-empty\"; Converse likewise, recorded 400s)",
	"G12":    "signed thinking comes back unchanged before the tool_use, when thinking is enabled (Anthropic, extended thinking with tool use; Converse reasoningContent likewise)",
	"G13":    "a call's signature comes back with it, in the same part (Gemini thoughtSignature, Gemini API reference, thinking; recorded 400s without it)",
	"G14":    "reasoning_content comes back on each assistant message with calls for models whose provider refuses a history without it (DeepSeek: \"Missing reasoning_content field in the assistant message\", recorded)",
	"G15":    "Converse shapes: toolUse carries an object input, toolResult content is a list, in a user message, and toolChoice has no none (Amazon Bedrock Converse API reference, ValidationException)",
	"G16":    "a Cohere tool_plan goes back as tool_plan, not as content, and v1 fields do not belong in a v2 request (Cohere v2 Chat API reference)",
	EchoRule: "the echo tool of conform's client protocol answers with its call's arguments and never fails (docs/client-protocol.md)",

	// Gateways (package gateway): the answer in the front protocol.
	"A02": "a Chat Completions tool call keeps one id over its deltas (OpenAI streaming: the id comes on the call's first delta)",
	"A07": "a Chat Completions tool call delta carries its index (OpenAI streaming reference, choices[].delta.tool_calls[].index)",
	"A09": "a Chat Completions tool call's first delta carries its id and name (OpenAI streaming; recorded streams)",
	"A19": "Messages content blocks open one at a time, each closed before the next, deltas of the block's own type (Anthropic streaming reference)",
	"A20": "no delta after a Messages block's content_block_stop (Anthropic streaming reference)",
	"A21": "blocks and call indexes are numbered from 0 in order (Anthropic streaming, index; Chat Completions tool_calls[].index; SDKs refuse gaps, recorded: anthropic-sdk-go, openai-go)",
	"C03": "every complete call the upstream sent comes back, none added (a call is never lost or invented)",
	"D03": "a call id comes back as the upstream sent it where both wires carry it",
	"E04": "the tools sent upstream are the request's tools",
	"F03": "a tool_calls finish comes with calls (recorded APIs send stop when no call was made)",
	"F04": "the finish comes back as the upstream sent it",
	"F06": "the text comes back as the upstream sent it",
	"F08": "the tool choice goes upstream as asked; an absent one is the API's default, auto when tools are given (API references)",
	"H01": "each schema goes upstream accepting what the request's accepts (JSON Schema: empty properties, required and $defs accept what their absence does)",
	"H04": "the parallel-calls flag goes upstream as asked, left unset when unset (some models reject the parameter)",
	"I01": "the stream is valid in the front protocol: its events, order and terminator (the front API's streaming reference)",
	"I02": "the body is a valid request or response of its protocol (the API reference)",
	"I03": "a failure upstream comes back as an error, and a good answer as a good one (a decode error is not a connection error, litellm #33678)",
	"I04": "a call's arguments come back as the upstream sent them, as JSON",
	"I05": "the finish agrees with the calls: tool_calls (tool_use) with calls, and no empty text block (front API references)",
	"I06": "a call's name comes back as the upstream sent it",
	"I07": "a tool result's error flag reaches the upstream as sent (is_error, Converse status error)",

	// The harness's own rules: what conform needs to grade at all.
	"setup":        "conform could not set the case up (an unknown protocol, a case not servable); no contract of the API is graded",
	"outbound":     "a gateway under grading reaches nothing but the upstream it was given (docs/gateway.md, isolation)",
	"gateway-died": "a gateway that dies has no answer to give; a crash is never a pass",
	"case-timeout": "an answer comes within the case's time (--case-timeout); an API that never answers has failed the request",
}

// Cite sets each problem's Contract from Contracts, where it has none.
func Cite(ps []scenarios.Problem) []scenarios.Problem {
	for i := range ps {
		if ps[i].Contract == "" {
			ps[i].Contract = Contracts[ps[i].Rule]
		}
	}
	return ps
}
