package promql

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestDeepNestingIsRefusedInLinearTime: Prometheus' parser is quadratic in nested parentheses;
// 100,000 of them are refused at once, at the offset where the limit is passed, while a
// nesting up to the limit parses.
func TestDeepNestingIsRefusedInLinearTime(t *testing.T) {
	start := time.Now()
	_, err := Parse(strings.Repeat("(", 100000) + "up" + strings.Repeat(")", 100000))
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Offset != MaxNesting || !strings.Contains(pe.Msg, "nests more than") {
		t.Fatalf("Parse = %v, want a nesting error at offset %d", err, MaxNesting)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("took %s", took)
	}
	if _, err := Parse(strings.Repeat("(", MaxNesting) + "up" + strings.Repeat(")", MaxNesting)); err != nil {
		t.Errorf("nesting at the limit: %v", err)
	}
	if _, err := Parse(`label_replace(up, "x", "` + strings.Repeat("(", 1000) + `", "instance", ".*")`); err != nil {
		t.Errorf("parentheses inside a string count: %v", err)
	}
}
