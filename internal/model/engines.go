package model

import "slices"

// Engine is an LLM serving engine's profile (inference.profiles), as documents show it.
type Engine struct {
	// Title names the engine in documents.
	Title string `json:"title"`
	// Served is whether the fleet serves with it (inference.engines, the inference section on).
	Served bool `json:"served"`
	// ModelLabel is the label its series name the model by.
	ModelLabel string `json:"modelLabel"`
	// Endpoint is where it serves its metrics, and Enable what turns them on.
	Endpoint string `json:"endpoint"`
	Enable   string `json:"enable"`
	// Metrics are its metric names by the quantity they measure (timeToFirstToken,
	// interTokenLatency, requestLatency); a quantity it cannot show is absent.
	Metrics map[string]string `json:"metrics"`
	// Requests are the counters of the requests it answered; none where it counts none.
	Requests []string `json:"requests"`
	// Refusals are the selectors of the requests it refuses at admission on purpose; none
	// where it cannot tell them from failures.
	Refusals []string `json:"refusals"`
	// Feeds are the SLOs and alerts that read it, where it is served.
	Feeds []string `json:"feeds"`
	// Shows are the gauges and counters beyond its histograms that it shows (waiting, kvCache,
	// preemptions, generated, running).
	Shows []string `json:"shows"`
	// LeftOutOf are the alerts and SLOs that leave it out, where it is served, for lack of
	// what they read.
	LeftOutOf []string `json:"leftOutOf"`
}

// engineShows names what a served engine's profile may show, in the order a note lists it.
var engineShows = []struct{ quantity, words string }{
	{"timeToFirstToken", "time to first token"},
	{"interTokenLatency", "inter-token latency"},
	{"requestLatency", "end-to-end latency"},
}

// Lacks names what the engine cannot show of what the rules read (its latency histograms and
// its request counters), in words: the SLOs on those leave it out.
func (e Engine) Lacks() []string {
	var lacks []string
	for _, s := range engineShows {
		if e.Metrics[s.quantity] == "" {
			lacks = append(lacks, s.words)
		}
	}
	if len(e.Requests) == 0 {
		lacks = append(lacks, "request counter")
	}
	for _, f := range engineFields {
		if !slices.Contains(e.Shows, f.field) {
			lacks = append(lacks, f.words)
		}
	}
	return lacks
}

// engineFields names the gauges and counters a served engine's profile may show beyond its
// histograms, in the order a note lists them.
var engineFields = []struct{ field, words string }{
	{"waiting", "waiting requests"},
	{"kvCache", "KV-cache usage"},
	{"preemptions", "preemptions"},
	{"generated", "output tokens"},
	{"running", "running requests"},
}
