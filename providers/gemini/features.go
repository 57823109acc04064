package gemini

import "github.com/toolconform/conform/core"

// Features returns the features of the gemini protocol (core.Feature): the
// conformance cases that require one run only on protocols that have it.
func (a *Adapter) Features() []core.Feature {
	return []core.Feature{
		core.FeatureNamedToolChoice,
		core.FeatureToolNameLimit,
		core.FeatureResultsRequired,
	}
}
