package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"go install of a tag", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, true, "v1.2.3"},
		{"go build in a git checkout", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260101000000-abcdef123456+dirty"}}, true, "v0.0.0-20260101000000-abcdef123456+dirty"},
		{"go build -buildvcs=false", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, Dev},
		{"no module version", &debug.BuildInfo{}, true, Dev},
		{"no build info", nil, false, Dev},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := fromBuildInfo(tc.bi, tc.ok); got != tc.want {
				t.Errorf("fromBuildInfo = %q, want %q", got, tc.want)
			}
		})
	}
}
