package openairesponses

import "github.com/toolconform/conform/core"

// Features returns the features of the openai-responses protocol (core.Feature): the
// conformance cases that require one run only on protocols that have it.
func (a *Adapter) Features() []core.Feature {
	return []core.Feature{
		core.FeatureArgumentText,
		core.FeatureNamedToolChoice,
		core.FeatureResultIDs,
		core.FeatureToolNameLimit,
		core.FeatureResultsRequired,
		core.FeatureParallelSwitch,
	}
}
