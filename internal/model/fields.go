package model

// Field is one DCGM field as dcgm-exporter exports it.
type Field struct {
	// ID is the DCGM field id.
	ID int `json:"id"`
	// Type is the Prometheus type the counter file declares: counter or gauge.
	Type string `json:"type"`
	// Kind is the real semantics of the value, which rules and lint follow.
	Kind Kind `json:"kind"`
	// Unit is the unit of measure, a key of Model.Units.
	Unit string `json:"unit"`
	// Family groups fields and their alerts (thermal, ecc, nvlink, ...).
	Family string `json:"family"`
	// Entity is the level the field is reported at.
	Entity Entity `json:"entity"`
	// Help is the counter file's help text.
	Help string `json:"help"`
	// Default says dcgm-exporter's default counter set collects the field.
	Default bool `json:"default"`
	// Profiling marks a DCP field (DCGM_FI_PROF_*), reported per MIG instance on MIG GPUs.
	Profiling bool `json:"profiling"`
	// Rollup is how per-GPU values combine upward.
	Rollup Rollup `json:"rollup"`
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
	// KindLifetime is a count the board keeps for its whole life in its InfoROM (retired pages,
	// remapped rows): declared a counter, it resets with neither the exporter nor the driver,
	// so its raw value means what it says and its increase counts new events alike.
	KindLifetime Kind = "lifetime"
)

// Kinds lists every field kind.
var Kinds = []Kind{KindCounter, KindGauge, KindFlag, KindBitmask, KindLastEvent, KindLifetime}

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
	// Bits are the bit positions of the bitmask; Help says what they mean.
	Bits []int  `json:"bits"`
	Help string `json:"help"`
}
