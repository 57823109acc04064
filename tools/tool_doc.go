package tools

// Design notes for the tool runtime: Tool, NameMapper, Registry,
// Validate and Execute. (The package comment is in doc.go; these notes are
// kept beside the code they explain.)
//
// # Tools
//
// A Tool is built only by NewTool, NewRawTool or FromMCP, which compile its
// schemas at construction; a bad schema or type is a construction error,
// never a surprise at call time. Registry.Add refuses a Tool built any other
// way. Schemas are stored compact and handed out as copies, so a caller
// that edits a returned schema cannot change the tool.
//
// Schema inference walks the Go type before jsonschema-go does, because
// jsonschema-go's errors name the Go type but not the field path; the walk
// names In.Filters.Callback and says what to use instead. Enumerations use
// an `enum:"a,b"` tag rather than a key inside the `jsonschema` tag, since
// jsonschema-go reserves "WORD=" at the start of that tag.
//
// The default Risk is RiskDestructive, following MCP, where destructiveHint
// defaults to true: a tool is assumed to be dangerous until its author says
// otherwise. Rejected: a zero "unknown" level, which every user of Risk
// would have to treat as destructive anyway.
//
// # Names
//
// Providers accept ^[a-zA-Z0-9_-]{1,64}$ (E01–E03). An invalid name is an
// error unless the tool is built WithNameMapper, so that renaming is always
// a visible choice. The mapper is per registry (or per MCP server) rather
// than global, so two registries never influence each other's names. With
// a mapper every name goes through it, valid names too, so that a valid
// name holds its slot and a later "fs.read" cannot become a second
// "fs_read" (nor map back to the wrong tool). A valid name is never changed
// unless an earlier tool of the same mapper already holds it; hash
// suffixes come from SHA-256 of the original, so they are the same across
// runs and machines.
//
// A tool from a source (an MCP server, a plugin; WithSource) has the
// qualified name "<source>.<name>", and its Name is made from that, so the
// tools of several sources in one registry never share a name; the source
// may not hold a dot, so the qualified name splits one way only. For one
// provider's own alphabet, where a valid name must never move whatever the
// order of registration, tools/names maps a whole set of names at once
// against the rules each adapter declares (NameRules, NameRuler).
//
// # Validation
//
// Empty, whitespace-only, "" and null arguments mean "no arguments" and
// become {} for every tool, not only for tools without parameters (C01,
// C06): a tool with required parameters then gets a message naming each
// missing one, which is better feedback than "not JSON".
//
// Double-encoded arguments (C05) are reported, not unwrapped, and so is a
// parameter holding an encoded object or array; see (*Tool).Validate.
// Every schema problem is listed, sorted by JSON pointer, in one message
// meant for the model. Validation.Err carries the same failure as an error
// wrapping ErrUnknownTool, ErrArgumentsTooLarge, ErrMalformedArguments or
// ErrSchemaMismatch, for Go callers that branch.
//
// An unknown tool name (E04) lists the available tools and the closest
// (Levenshtein distance, ignoring case, at most half the name's length).
// Names longer than 256 bytes get no suggestion, to keep the quadratic
// distance cheap.
//
// # Execution
//
// Execute validates first and runs the handler only with valid, normalised
// arguments; every failure is an error Result whose text says what
// happened, so an agent loop can always send something back to the model.
// The handler runs in its own goroutine so that a timeout returns at once;
// a handler that ignores its context keeps running until it returns (Go
// cannot stop it), and its output is dropped. Panics are recovered in that
// goroutine; the model sees the panic value, ExecOptions.OnPanic the stack.
//
// A tool with an output schema has its output checked; a mismatch is an
// error result, since it is the tool, not the model, that is wrong, and the
// agent should not pass the model data that breaks the tool's contract.
//
// Output longer than MaxOutputBytes is cut on a UTF-8 boundary and marked
// "[output truncated: N of M bytes]"; the marker is added after the limit
// so that the kept text is exactly N bytes. Error texts are cut the same
// way. Nothing past the cap is copied or parsed: a typed tool's result is
// encoded through a writer that keeps only the cap, and output above the
// cap from a tool with an output schema is an error result
// (ErrOutputTooLarge), since a cut output cannot match it. A handler that
// calls runtime.Goexit (t.FailNow does) is an error result too
// (ErrHandlerExited), with or without a timeout.
//
// ExecOptions is a struct, not functional options: its fields are plain
// limits that callers want to read back, log and compare, and the zero
// value means the documented defaults.
