package model

import (
	"slices"
	"testing"
)

func TestEngineLacks(t *testing.T) {
	for _, c := range []struct {
		name   string
		engine Engine
		want   []string
	}{
		{"every quantity and requests", Engine{Metrics: map[string]string{"timeToFirstToken": "a", "interTokenLatency": "b", "requestLatency": "c"}, Requests: []string{"d"}}, nil},
		{"no latency histogram", Engine{Requests: []string{"d"}}, []string{"time to first token", "inter-token latency", "end-to-end latency"}},
		{"no inter-token histogram nor requests", Engine{Metrics: map[string]string{"timeToFirstToken": "a", "requestLatency": "c"}}, []string{"inter-token latency", "request counter"}},
	} {
		if got := c.engine.Lacks(); !slices.Equal(got, c.want) {
			t.Errorf("%s: Lacks() = %q, want %q", c.name, got, c.want)
		}
	}
}
