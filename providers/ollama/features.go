package ollama

import "github.com/toolconform/conform/core"

// Features returns the features of the ollama protocol (core.Feature): none.
// /api/chat has no tool choice and no parallel switch, carries arguments as
// JSON objects without call ids, and accepts any tool name and a history
// with calls left unanswered.
func (a *Adapter) Features() []core.Feature { return []core.Feature{} }
