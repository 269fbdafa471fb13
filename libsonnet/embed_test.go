package libsonnet

import "testing"

// TestCachedOnlyForItsSources: the kept evaluation is returned while its digest is the
// embedded sources' and never once they differ (a source edited since it was made).
func TestCachedOnlyForItsSources(t *testing.T) {
	saved := evaluatedFrom
	defer func() { evaluatedFrom = saved }()
	evaluatedFrom = SourcesDigest() + "\n"
	if got, ok := Cached(); !ok || got != evaluated {
		t.Error("the kept evaluation is not used for the sources it was made from")
	}
	evaluatedFrom = "0000\n"
	if _, ok := Cached(); ok {
		t.Error("a kept evaluation made from other sources is used")
	}
}
