package main

import (
	"runtime/debug"
	"testing"
)

func TestBuildVersion(t *testing.T) {
	vcs := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "(devel)"},
		{"go install @v1.2.0", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "v1.2.0"},
		{"go install @latest, untagged", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261126151400-1e8ad71e3b2c"}}, "v0.0.0-20261126151400-1e8ad71e3b2c"},
		{"checkout with vcs", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("vcs.revision", "1e8ad71e3b2c4d5e6f", "vcs.time", "2026-11-26T15:14:00Z", "vcs.modified", "true")}, "(devel) 1e8ad71e3b2c 2026-11-26T15:14:00Z+dirty"},
		{"checkout, -buildvcs=false", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "(devel)"},
	} {
		if got := buildVersion(tc.info); got != tc.want {
			t.Errorf("%s: buildVersion = %q, want %q", tc.name, got, tc.want)
		}
	}
}
