// Package textcalls parses tool calls that open-weight models write into
// their text (Hermes <tool_call>, Qwen3-Coder XML, Mistral [TOOL_CALLS],
// DeepSeek and Kimi special tokens, gpt-oss harmony, …) into conform's
// canonical events, and renders calls back into each format's text.
//
// A Format is looked up by its canonical name (Lookup, Formats; each
// lists the names vLLM, SGLang, llama.cpp and Ollama give it). Its Parser
// takes text deltas as an engine streams them and appends core.Events:
// text, thinking, call start, argument deltas, call end, and errors.
// Stream makes those events a core.EventStream, so core.Collect (and every
// check built on it) reads a parser as it reads a wire adapter:
//
//	f, _ := textcalls.Lookup("hermes")
//	resp, err := textcalls.Collect(f, textcalls.Options{}, deltas...)
//
// The decisions a caller must know:
//
//   - Any split of the text gives the same events, joined, as the whole
//     text. A parser holds back only a tail that may begin a marker (and a
//     UTF-8 character the delta cut), so text is emitted as early as the
//     format allows and a marker split across deltas is never lost.
//   - Arguments stream as soon as the format makes them known: a JSON
//     object as its bytes arrive once the call's name is known, typed
//     parameters one by one.
//   - A call whose closing marker never came gets no call end, and a call
//     whose body is malformed gets none either and an error: collected,
//     both are incomplete and reported, never complete and never {}. A
//     block that holds no call is reported as a nameless incomplete call.
//   - Text is never changed: white space next to a marker is text, as
//     vLLM keeps it (Ollama trims it; graders compare text trimmed).
//   - Formats that write parameters as raw text type each value by the
//     declared tool's schema (ParamValue); without a schema a value stays
//     a string.
//   - Every body a parser keeps is bounded (Options.MaxBody), every JSON
//     nesting by core.MaxDepth; a limit hit is an error and the rest of the
//     text is ignored.
//
// Package textcallstest loads the test vectors (testdata/textcalls) and
// grades any subject's Result against them.
package textcalls
