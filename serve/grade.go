package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/toolconform/conform/core"
	"github.com/toolconform/conform/internal/jsonvalue"
	"github.com/toolconform/conform/scenarios"
)

// Verdict is what the server saw of one scenario: what it served and how
// the client's follow-up measured up.
type Verdict struct {
	Scenario string `json:"scenario"`
	Protocol string `json:"protocol"`
	Chaos    string `json:"chaos,omitempty"`
	// Served counts the first requests answered with the scenario's
	// response, FollowUps the requests that carried tool results.
	Served    int `json:"served"`
	FollowUps int `json:"follow_ups"`
	// Calls are the calls complete in the last response served;
	// Incomplete those it left open, which must never be run; Optional
	// those complete on the wire that conform's decoder cut at its own
	// limit (SplitLimitCalls), which a client may run or refuse.
	Calls      []core.Call `json:"calls,omitempty"`
	Incomplete []core.Call `json:"incomplete,omitempty"`
	Optional   []core.Call `json:"optional,omitempty"`
	// Graded reports that a follow-up was checked; Problems lists what
	// was wrong with the last one.
	Graded   bool                `json:"graded"`
	Pass     bool                `json:"pass"`
	Problems []scenarios.Problem `json:"problems,omitempty"`
	// NotApplicable says why the scenario was not served to the last
	// first request: its recorded bytes depend on a request option the
	// request did not carry (see requirementsOf). Such a run is neither
	// passed nor failed.
	NotApplicable string `json:"not_applicable,omitempty"`
	// ProblemsDropped counts the problems past MaxVerdictProblems.
	ProblemsDropped int `json:"problems_dropped,omitempty"`
	// FollowUp is the body of the last graded follow-up, cut at
	// MaxFollowUpBody (FollowUpCut), so that a report shows what was
	// judged.
	FollowUp    string `json:"follow_up,omitempty"`
	FollowUpCut bool   `json:"follow_up_cut,omitempty"`
	// Errors are requests the server refused (undecodable, wrong path),
	// at most MaxVerdictErrors; ErrorsDropped counts the rest.
	Errors        []string `json:"errors,omitempty"`
	ErrorsDropped int      `json:"errors_dropped,omitempty"`
	// Notes say where the server departed from the scenario (a chaos
	// option that does not apply).
	Notes []string `json:"notes,omitempty"`

	served   *core.Response
	invented map[string]bool // ids of served calls absent from the bytes sent
}

// verdict updates the named verdict under the lock.
func (s *Server) verdict(name, protocol string, update func(v *Verdict)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.verdicts[name]
	if v == nil {
		v = &Verdict{Scenario: name, Protocol: protocol}
		s.verdicts[name] = v
	}
	update(v)
	v.Pass = v.Graded && len(v.Problems) == 0 && len(v.Errors) == 0 && v.ErrorsDropped == 0
}

// Verdicts returns a copy of every verdict, in scenario name order.
func (s *Server) Verdicts() []Verdict {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Verdict, 0, len(s.verdicts))
	for _, v := range s.verdicts {
		c := *v
		c.served = nil
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Scenario < out[j].Scenario })
	return out
}

// Verdict returns a copy of the named scenario's verdict.
func (s *Server) Verdict(name string) (Verdict, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.verdicts[name]
	if !ok {
		return Verdict{}, false
	}
	c := *v
	c.served = nil
	return c, true
}

// missingRule is the failure mode of a call left without a result, by
// protocol: G03 unless the protocol names another.
func missingRule(protocol string) string {
	if r := descriptor(protocol).Grading.MissingResult; r != "" {
		return r
	}
	return "G03"
}

// generatedID reports whether a call id was made up by an adapter (Gemini
// 2 and Ollama send none) rather than sent by the provider.
func generatedID(id string) bool {
	return strings.HasPrefix(id, "gemini_call_") || strings.HasPrefix(id, "ollama_call_")
}

// inventedIDs returns the ids of calls that do not occur in the bytes
// served: ids conform made up where the provider sent none (core.Buffer's
// tool_<turn>_<n>, the Gemini and Ollama adapters' own). A client cannot
// know them, so the follow-up is graded on its pairing, not on their
// spelling.
func inventedIDs(calls []core.Call, sent []byte) map[string]bool {
	out := map[string]bool{}
	for _, c := range calls {
		if c.ID == "" {
			continue
		}
		q, _ := json.Marshal(c.ID)
		if generatedID(c.ID) || !bytes.Contains(sent, q) {
			out[c.ID] = true
		}
	}
	return out
}

// Grade checks a follow-up request against the response that was served:
// the last assistant turn with calls must carry every complete call served
// (same id, name and arguments as JSON, the signatures the protocol needs
// echoed), none of the calls the stream left incomplete, and the messages
// after it exactly one result per call, in call order where the protocol
// demands it. Every problem is reported. Ids the adapters generate (Gemini
// 2, Ollama) are graded as invented: see GradeInvented.
func Grade(protocol string, served *core.Response, req *core.Request) []scenarios.Problem {
	invented := map[string]bool{}
	for _, c := range served.Calls() {
		if generatedID(c.ID) {
			invented[c.ID] = true
		}
	}
	return GradeInvented(protocol, served, req, invented)
}

// GradeInvented is Grade where the served calls whose ids are in invented
// carried no id on the wire. The client's own ids stand for those: each
// such call is paired with the client's call at its position (else the
// first unpaired one with its name and arguments), the client's ids must be
// distinct (D06), and every result must name the id the client gave the
// call it answers, after it.
//
// Signed thinking is graded as for a request that enables thinking;
// serve grades a follow-up by its body (gradeFollowUp).
func GradeInvented(protocol string, served *core.Response, req *core.Request, invented map[string]bool) []scenarios.Problem {
	return gradeFollowUp(protocol, served, req, invented, true, nil)
}

// gradeFollowUp is GradeInvented for a request that enables thinking or
// not (thinkingOn): signed thinking must come back only where the protocol
// requires it for that request (Grading.ThinkingEnabled). An optional
// call (SplitLimitCalls) that the turn carries, by id or else by name, is
// graded as a served call; one it leaves out is no fault.
func gradeFollowUp(protocol string, served *core.Response, req *core.Request, invented map[string]bool, thinkingOn bool, optional []core.Call) []scenarios.Problem {
	rules := descriptor(protocol).Grading
	var out []scenarios.Problem
	add := func(rule, format string, args ...any) {
		out = append(out, scenarios.Problem{Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	want := served.Calls()
	// The turn under grading starts after the last user message that is
	// not only tool results; its calls may be spread over several
	// assistant messages (Responses pairs each function_call item with its
	// output).
	u := -1
	for i, m := range req.Messages {
		if m.Role == core.RoleUser && len(m.Results()) == 0 {
			u = i
		}
	}
	// Earlier tool rounds of the same turn (an agent loop sends no user
	// message between rounds) are not the served response's: the turn
	// starts at the first assistant message that carries a served call by
	// its id, when one does.
	start := u + 1
	servedIDs := map[string]bool{}
	for _, w := range want {
		if w.ID != "" && !invented[w.ID] {
			servedIDs[w.ID] = true
		}
	}
	for i := u + 1; i < len(req.Messages) && len(servedIDs) > 0; i++ {
		if m := req.Messages[i]; m.Role == core.RoleAssistant && slices.ContainsFunc(m.Calls(), func(c core.Call) bool { return servedIDs[c.ID] }) {
			start = i
			break
		}
	}
	ai := -1
	var got []core.Call
	var callMsg []int // message index of each call in got
	for i := start; i < len(req.Messages); i++ {
		m := req.Messages[i]
		if m.Role == core.RoleAssistant && len(m.Calls()) > 0 {
			if ai < 0 {
				ai = i
			}
			for _, c := range m.Calls() {
				got = append(got, c)
				callMsg = append(callMsg, i)
			}
		}
	}
	for _, o := range optional {
		if slices.ContainsFunc(got, func(g core.Call) bool { return o.ID != "" && g.ID == o.ID || o.ID == "" && g.Name == o.Name }) {
			want = append(slices.Clip(want), o)
		}
	}
	if ai < 0 {
		n := 0
		for _, m := range req.Messages {
			n += len(m.Results())
		}
		add("G02", "no assistant turn carries the %d served call(s); the %d tool result(s) have no call to answer", len(want), n)
		return out
	}
	turn := req.Messages[ai]

	// Incomplete calls must never be run.
	for _, inc := range served.Incomplete {
		for _, g := range got {
			if (inc.ID != "" && g.ID == inc.ID) || (inc.ID == "" && g.Name == inc.Name) {
				add("B09", "call %s (%s) was cut off in the stream but appears in the assistant turn", g.ID, g.Name)
			}
		}
	}

	// Pair each served call with a call of the assistant turn: by id, else
	// by position and name.
	pair := make([]int, len(want))
	used := make([]bool, len(got))
	for i, w := range want {
		pair[i] = -1
		for j, g := range got {
			if !used[j] && w.ID != "" && g.ID == w.ID {
				pair[i], used[j] = j, true
				break
			}
		}
	}
	// A call whose id was invented is paired with the client's call of
	// its name and arguments, at its position first, else anywhere: the
	// client may list the calls in another order.
	for i, w := range want {
		if pair[i] >= 0 || !invented[w.ID] {
			continue
		}
		match := func(j int) bool {
			return j < len(got) && !used[j] && got[j].Name == w.Name && jsonEqual(got[j].Arguments, w.Arguments)
		}
		if match(i) {
			pair[i], used[i] = i, true
			continue
		}
		for j := range got {
			if match(j) {
				pair[i], used[j] = j, true
				break
			}
		}
	}
	for i, w := range want {
		if pair[i] >= 0 || i >= len(got) || used[i] || got[i].Name != w.Name {
			continue
		}
		pair[i], used[i] = i, true
		translated := rules.TranslatedID != nil && rules.TranslatedID.MatchString(got[i].ID)
		if !invented[w.ID] && !generatedID(got[i].ID) && !translated {
			add("D02", "call %d (%s): id %q sent back as %q", i, w.Name, w.ID, got[i].ID)
		}
	}
	seen := map[string]int{}
	for i, w := range want {
		if j := pair[i]; j >= 0 && invented[w.ID] {
			if k, dup := seen[got[j].ID]; dup {
				add("D06", "calls %d and %d (%s) share the id %q; each call needs its own", k, i, w.Name, got[j].ID)
			}
			seen[got[j].ID] = i
		}
	}
	for i, w := range want {
		j := pair[i]
		if j < 0 {
			add("G02", "served call %s (%s) is missing from the assistant turn", w.ID, w.Name)
			continue
		}
		g := got[j]
		if g.Name != w.Name {
			add("E01", "call %s: name %q sent back as %q", w.ID, w.Name, g.Name)
		}
		if !jsonEqual(w.Arguments, g.Arguments) {
			add("G09", "call %s (%s): arguments %s sent back as %s", w.ID, w.Name, compact(w.Arguments), compact(g.Arguments))
		}
		if w.ItemID != "" && g.ItemID != "" && w.ItemID != g.ItemID {
			add("D08", "call %s (%s): item id %q sent back as %q", w.ID, w.Name, w.ItemID, g.ItemID)
		}
		if w.Signature != "" && g.Signature != w.Signature {
			add("G13", "call %s (%s): signature not echoed", w.ID, w.Name)
		}
	}
	for j, g := range got {
		if !used[j] {
			add("G09", "assistant turn carries call %s (%s), which was not served", g.ID, g.Name)
		}
	}
	if rules.SignedThinking && thinkingOn {
		gradeThinking(served, turn, add)
	}
	if rules.ReasoningReplayed && reasoningReplayed(served.Model, req.Model) {
		gradeReasoning(served, req.Messages[u+1:], u+1, add)
	}
	if rules.Plans {
		gradePlan(served, turn, add)
	}

	// Results: one per call of the turn, after it.
	pos := map[string]int{}   // call id -> index in want
	after := map[string]int{} // call id -> index of the message holding it
	for i := range want {
		if j := pair[i]; j >= 0 {
			pos[got[j].ID] = i
			after[got[j].ID] = callMsg[j]
		}
	}
	for k := start; k < ai; k++ {
		for _, r := range req.Messages[k].Results() {
			add("G02", "tool result for %q comes before the assistant turn with the calls", r.CallID)
		}
	}
	count := make([]int, len(want))
	var order []int
	for k := ai + 1; k < len(req.Messages); k++ {
		for _, r := range req.Messages[k].Results() {
			i, ok := pos[r.CallID]
			if !ok {
				if r.CallID == "" {
					add("G06", "tool result without a call id (name %q)", r.Name)
				} else {
					add("G02", "tool result for %q answers no call of the assistant turn", r.CallID)
				}
				continue
			}
			if rules.ResultsNextMessage && k != after[r.CallID]+1 {
				add("G01", "result for %s is in message %d, not in the message right after the tool use (%d)", r.CallID, k, after[r.CallID]+1)
			}
			count[i]++
			order = append(order, i)
		}
	}
	for i, w := range want {
		if pair[i] < 0 {
			continue
		}
		switch {
		case count[i] == 0:
			add(missingRule(protocol), "call %s (%s) has no tool result", got[pair[i]].ID, w.Name)
		case count[i] > 1:
			add(missingRule(protocol), "call %s (%s) has %d tool results; want one", got[pair[i]].ID, w.Name, count[i])
		}
	}
	if rules.ResultsInOrder && !sort.IntsAreSorted(order) {
		add("G05", "tool results are not in the order of the calls (result order by call position: %v)", order)
	}
	return Cite(out)
}

// EchoRule names the problems of GradeEcho: a rule of conform's client
// protocol, not a provider's failure mode.
const EchoRule = "echo"

// GradeEcho checks every tool result of a follow-up against the echo tool
// of the client protocol: its text is the arguments of the call it
// answers (the client's copy of the call, by id), as JSON, and it is not
// marked as an error. A client that answers every call with an error, or
// with anything else, has not run the calls as asked.
func GradeEcho(protocol string, req *core.Request) []scenarios.Problem {
	return gradeEcho(protocol, req, false)
}

// gradeEcho is GradeEcho, with results marked as errors allowed when
// errorsAllowed is set.
func gradeEcho(protocol string, req *core.Request, errorsAllowed bool) []scenarios.Problem {
	anyKey := descriptor(protocol).Grading.ResultAnyKey
	var out []scenarios.Problem
	args := map[string]json.RawMessage{}
	names := map[string]string{}
	for _, m := range req.Messages {
		for _, c := range m.Calls() {
			args[c.ID], names[c.ID] = c.Arguments, c.Name
		}
		for _, r := range m.Results() {
			want, ok := args[r.CallID]
			if !ok {
				continue // a result without its call is G02's
			}
			var text strings.Builder
			for _, p := range r.Content {
				text.WriteString(p.Text)
			}
			switch {
			case r.IsError && !errorsAllowed:
				out = append(out, scenarios.Problem{Rule: EchoRule, Message: fmt.Sprintf("result for call %s is marked as an error; the echo tool never fails", r.CallID)})
			case !echoes(text.String(), names[r.CallID], want, anyKey):
				got := text.String()
				if len(got) > 200 {
					got = got[:200] + "…"
				}
				out = append(out, scenarios.Problem{Rule: EchoRule, Message: fmt.Sprintf("result for call %s is %q; the echo tool answers with the call's arguments %s", r.CallID, got, compact(want))})
			}
		}
	}
	return out
}

// echoes reports whether a result's text is the echo of a call's
// arguments: the arguments themselves, or wrapped as unwrapResult reads.
func echoes(text, name string, args json.RawMessage, anyKey bool) bool {
	if jsonEqual(json.RawMessage(text), args) {
		return true
	}
	inner := unwrapResult(text, name, anyKey)
	return inner != nil && jsonEqual(inner, args)
}

// unwrapResult returns what a tool result's text wraps in an envelope
// that SDKs put around a result where the wire wants an object (Gemini's
// functionResponse.response): {"name": call name, "content": X}, as
// @ai-sdk/google sends, or {"output": X}, the key the Google Gen AI SDKs
// document, and, where the protocol lets the client choose the key
// (anyKey: Gemini, "any keys of their choice … e.g. "output", "result""),
// any one key but "error", which marks a failed call. X is returned as
// JSON, or as the JSON it holds when it is a string. Any other text gives
// nil.
func unwrapResult(text, name string, anyKey bool) json.RawMessage {
	var env map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &env) != nil {
		return nil
	}
	var inner json.RawMessage
	switch {
	case len(env) == 1 && env["output"] != nil:
		inner = env["output"]
	case len(env) == 1 && anyKey && env["error"] == nil:
		for _, v := range env {
			inner = v
		}
	case len(env) == 2 && env["content"] != nil:
		var got string
		if json.Unmarshal(env["name"], &got) != nil || got != name {
			return nil
		}
		inner = env["content"]
	default:
		return nil
	}
	var s string
	if json.Unmarshal(inner, &s) == nil {
		return json.RawMessage(s)
	}
	return inner
}

// gradeThinking checks that signed thinking served with the calls comes
// back, unchanged and before the first call (G12).
func gradeThinking(served *core.Response, turn core.Message, add func(rule, format string, args ...any)) {
	firstCall := len(turn.Parts)
	for i, p := range turn.Parts {
		if p.Kind == core.PartToolCall {
			firstCall = i
			break
		}
	}
	for _, p := range served.Message.Parts {
		if p.Kind != core.PartThinking || (p.Signature == "" && p.Data == "") {
			continue
		}
		found := false
		for _, q := range turn.Parts[:firstCall] {
			if q.Kind == core.PartThinking && q.Signature == p.Signature && q.Data == p.Data {
				found = true
			}
		}
		if !found {
			add("G12", "signed thinking block served with the calls is not sent back before the first tool use")
		}
	}
}

// reasoningModels name the Chat Completions models whose providers refuse
// an assistant tool-call message without its reasoning_content (G14):
// DeepSeek ("Missing reasoning_content field in the assistant message at
// message index N"). Moonshot's own API refuses the same for Kimi, but the
// corpus holds a Kimi follow-up without it that OpenRouter accepted, and
// the model name cannot tell the two servers apart, so Kimi is left out.
// Other providers that send reasoning (xAI, Z.ai) accept a history
// without it.
var reasoningModels = []string{"deepseek"}

// reasoningReplayed reports whether the served model, else the requested
// one, must get its reasoning back.
func reasoningReplayed(served, requested string) bool {
	m := served
	if m == "" {
		m = requested
	}
	m = strings.ToLower(m)
	for _, r := range reasoningModels {
		if strings.Contains(m, r) {
			return true
		}
	}
	return false
}

// gradeReasoning checks that reasoning served with the calls comes back as
// reasoning_content on every assistant message with calls of the round
// (G14). msgs are the messages of the round, base the index of the first
// in the request.
func gradeReasoning(served *core.Response, msgs []core.Message, base int, add func(rule, format string, args ...any)) {
	if !hasThinking(served.Message) || len(served.Calls()) == 0 {
		return
	}
	for i, m := range msgs {
		if m.Role == core.RoleAssistant && len(m.Calls()) > 0 && !hasThinking(m) {
			add("G14", "assistant message %d carries calls but no reasoning_content; reasoning was served with the calls and must be sent back", base+i)
		}
	}
}

// hasThinking reports whether a message holds reasoning text.
func hasThinking(m core.Message) bool {
	for _, p := range m.Parts {
		if p.Kind == core.PartThinking && strings.TrimSpace(p.Text) != "" {
			return true
		}
	}
	return false
}

// gradePlan checks that a Cohere tool_plan served with the calls is not
// sent back as the assistant's answer text (G16): the plan goes in
// tool_plan beside tool_calls. A plan left out is not graded, since the API
// is not known to refuse an assistant turn without one.
func gradePlan(served *core.Response, turn core.Message, add func(rule, format string, args ...any)) {
	var plan string
	for _, p := range served.Message.Parts {
		if p.Kind == core.PartPlan {
			plan += p.Text
		}
	}
	plan = strings.TrimSpace(plan)
	if plan == "" {
		return
	}
	for _, p := range turn.Parts {
		if p.Kind == core.PartPlan {
			return
		}
	}
	if text := turn.Text(); text != "" && strings.Contains(text, plan) {
		add("G16", "the tool_plan served with the calls is sent back as the assistant's content, not as tool_plan")
	}
}

// jsonEqual compares two argument texts as JSON (jsonvalue.EqualText);
// empty text and null count as {}, since every protocol reads a call
// without arguments so ("input": null, "arguments": "null" and an absent
// field are recorded for no-parameter tools, C06; a protocol whose wire
// refuses null says so in its body rules, as Converse's G15 does), and
// text that is not JSON equals only the same bytes.
func jsonEqual(a, b json.RawMessage) bool {
	if t := bytes.TrimSpace(a); len(t) == 0 || string(t) == "null" {
		a = json.RawMessage("{}")
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || string(t) == "null" {
		b = json.RawMessage("{}")
	}
	return jsonvalue.EqualText(a, b) || bytes.Equal(a, b)
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return fmt.Sprintf("%q", raw)
	}
	s := b.String()
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
