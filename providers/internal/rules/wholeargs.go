package rules

import (
	"encoding/json"

	"github.com/toolconform/conform/core"
)

// WholeArgs judges the argument text of a call that a whole response body
// carries by the rule core.Buffer applies to the same text streamed, so
// that both forms of the same bytes get one verdict: valid JSON is kept as
// it is; text core repairs (a trailing comma, a document sent twice) comes
// back complete, Repaired, with the text in Original; text it cannot repair,
// or a call without a name, comes back incomplete, with no Arguments and
// the text in Original, and err says why, as the stream's error does.
// Empty text is {} (C01).
func WholeArgs(c core.Call, text string) (call core.Call, complete bool, err error) {
	if c.Name == "" {
		c.Arguments, c.Original = nil, text
		return c, false, core.ErrIncomplete
	}
	if json.Valid([]byte(text)) {
		c.Arguments = json.RawMessage(text)
		return c, true, nil
	}
	b := core.NewBuffer()
	done, err := b.Add(core.Chunk{ID: "whole", Name: c.Name, Args: &text, Done: true})
	if err != nil || len(done) != 1 {
		c.Arguments, c.Original = nil, text
		return c, false, err
	}
	c.Arguments, c.Repaired, c.Original = done[0].Arguments, done[0].Repaired, done[0].Original
	return c, true, nil
}
