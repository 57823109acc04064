package scenarios

// SetVersion is the version of the built-in scenario set, carried in every
// result beside the set's hash. Its major number goes up when a case can
// fail an implementation that passed before: a new MUST case, or a case
// made MUST; its minor number when cases are added at SHOULD or INFO,
// removed, or made less strict; its patch number for changes that leave
// every verdict as it was (comments, evidence). docs/versioning.md gives the
// policy; TestSetVersion holds the MUST cases to it.
const SetVersion = "1.0.0"
