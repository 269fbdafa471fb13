package model

// Field is one DCGM field as dcgm-exporter exports it.
type Field struct {
	ID        int    `json:"id"`
	Type      string `json:"type"`
	Kind      Kind   `json:"kind"`
	Unit      string `json:"unit"`
	Family    string `json:"family"`
	Entity    Entity `json:"entity"`
	Help      string `json:"help"`
	Default   bool   `json:"default"`
	Profiling bool   `json:"profiling"`
	Rollup    Rollup `json:"rollup"`
	// ByNamespace also rolls the field up by namespace, over pod-attributed series.
	ByNamespace bool `json:"byNamespace"`
}

// Entity is the level a DCGM field is reported at.
type Entity string

// Entity levels of a DCGM field.
const (
	EntityGPU         Entity = "gpu"
	EntityMIGRepeated Entity = "mig-repeated"
	EntityMIGNative   Entity = "mig-native"
	EntityNVLink      Entity = "nvlink"
)

// Entities lists every entity level.
var Entities = []Entity{EntityGPU, EntityMIGRepeated, EntityMIGNative, EntityNVLink}

// Kind is the real semantics of a field's value.
type Kind string

// Field kinds.
const (
	KindCounter   Kind = "counter"
	KindGauge     Kind = "gauge"
	KindFlag      Kind = "flag"
	KindBitmask   Kind = "bitmask"
	KindLastEvent Kind = "last-event"
)

// Kinds lists every field kind.
var Kinds = []Kind{KindCounter, KindGauge, KindFlag, KindBitmask, KindLastEvent}

// Rollup is how per-GPU values combine upward.
type Rollup string

// Rollups.
const (
	RollupNone Rollup = "none"
	RollupAvg  Rollup = "avg"
	RollupSum  Rollup = "sum"
	RollupMax  Rollup = "max"
	RollupRate Rollup = "rate"
)

// Rollups lists every rollup.
var Rollups = []Rollup{RollupNone, RollupAvg, RollupSum, RollupMax, RollupRate}

// ThrottleReason is a set of bits of the clock-event bitmask that mean one kind of throttling.
type ThrottleReason struct {
	Bits []int  `json:"bits"`
	Help string `json:"help"`
}
