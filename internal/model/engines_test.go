package model

import (
	"slices"
	"testing"
)

func TestEngineLacks(t *testing.T) {
	all := []string{"waiting", "kvCache", "preemptions", "generated", "running"}
	for _, c := range []struct {
		name   string
		engine Engine
		want   []string
	}{
		{"every quantity and requests", Engine{Metrics: map[string]string{"timeToFirstToken": "a", "interTokenLatency": "b", "requestLatency": "c"}, Requests: []string{"d"}, Shows: all}, nil},
		{"no latency histogram", Engine{Requests: []string{"d"}, Shows: all}, []string{"time to first token", "inter-token latency", "end-to-end latency"}},
		{"no inter-token histogram nor requests", Engine{Metrics: map[string]string{"timeToFirstToken": "a", "requestLatency": "c"}, Shows: all}, []string{"inter-token latency", "request counter"}},
		{"a queue only (Triton)", Engine{Requests: []string{"d"}, Shows: []string{"waiting"}}, []string{
			"time to first token", "inter-token latency", "end-to-end latency", "KV-cache usage", "preemptions", "output tokens", "running requests",
		}},
	} {
		if got := c.engine.Lacks(); !slices.Equal(got, c.want) {
			t.Errorf("%s: Lacks() = %q, want %q", c.name, got, c.want)
		}
	}
}
