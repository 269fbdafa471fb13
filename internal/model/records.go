package model

// Record is a recording rule declared in the catalog. Its key is the metric it records, unless
// Record names it: several rules may record one metric with different static Labels.
type Record struct {
	// Section is the catalog section the record belongs to ("" for the core).
	Section string `json:"section"`
	// Record is the metric recorded: the record's key where the catalog leaves it empty.
	Record string `json:"record"`
	// Labels are the rule's static labels.
	Labels map[string]string `json:"labels"`
	// Family is the rule group the record belongs to.
	Family string `json:"family"`
	// Expr is the PromQL expression.
	Expr string `json:"expr"`
	// Tests are promtool cases for records that no alert reads.
	Tests []RecordCase `json:"tests"`
	// Comments are written above the rule in rule files, one per line: a peer linter's
	// suppression ("pint disable promql/impossible"), with the reason on the line before.
	Comments []string `json:"comments"`
}

// Recording configures recording rule evaluation.
type Recording struct {
	// Interval is the evaluation interval of the recording rule groups.
	Interval string `json:"interval"`
	// RateWindow is the range of the rates the records take of counters.
	RateWindow string `json:"rateWindow"`
	// Retention are the coarser copies of the long-lived records, for a long-term store.
	Retention Retention `json:"retention"`
	// SectionIntervals are the evaluation intervals, slower than Interval, of sections whose
	// records and alerts run in groups of their own: their input changes less often.
	SectionIntervals map[string]string `json:"sectionIntervals"`
}

// SectionGroup is the group family and interval of a rule of family and section: the family
// and "" (the default interval), or, for a section with an interval of its own, the family
// and section joined, with that interval.
func (r Recording) SectionGroup(family, section string) (string, string) {
	if interval, ok := r.SectionIntervals[section]; ok && section != "" {
		return family + "-" + section, interval
	}
	return family, ""
}

// Retention is the retention tiers: the records of Levels copied at each of Intervals (each
// tier averages the one before it), each tier in its own group evaluated at its interval.
type Retention struct {
	Intervals []string `json:"intervals"`
	Levels    []string `json:"levels"`
}
