package model

// SLO is a service level objective. The catalog expands it into the recording rules of its
// windows and its burn-rate alerts; the model keeps what validation and documents need.
type SLO struct {
	// Section is the catalog section the SLO belongs to ("" for the core).
	Section string `json:"section"`
	// Team is the name of the team that owns the SLO's alerts.
	Team string `json:"team"`
	// Objective is the share of good events promised, above 0 and below 1 (0.99).
	Objective float64 `json:"objective"`
	// Period is the duration the objective and its error budget are counted over.
	Period string `json:"period"`
	// Description says what the SLO promises, in documents and runbooks.
	Description string `json:"description"`
	// By are the labels one SLO series is kept per (cluster, namespace, model_name).
	By []string `json:"by"`
	// Alerts are the SLO's burn-rate alerts by name suffix (FastBurn, SlowBurn): the alert
	// SLO<name><suffix> fires when any of its tiers does.
	Alerts map[string]SLOAlert `json:"alerts"`
	// Tiers are the burn-rate tiers: each fires when both windows burn faster than Factor.
	Tiers []BurnTier `json:"tiers"`
}

// SLOAlert is one burn-rate alert of an SLO.
type SLOAlert struct {
	// Severity and For are the alert's severity label and for duration.
	Severity Severity `json:"severity"`
	For      string   `json:"for"`
}

// BurnTier is one multi-window burn-rate condition.
type BurnTier struct {
	// Alert is the suffix of the alert this tier belongs to.
	Alert string `json:"alert"`
	// Factor is the burn rate, in multiples of the rate that spends the budget in the period.
	Factor float64 `json:"factor"`
	// Long and Short are the two windows the burn rate is measured over.
	Long  string `json:"long"`
	Short string `json:"short"`
}
