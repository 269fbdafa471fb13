package semdiff

import (
	"fmt"
	"slices"

	"github.com/gpuobs/gpuobs/internal/amconfig"
	"github.com/gpuobs/gpuobs/internal/output"
)

// InhibitRuleChanges compares the named inhibit rules of two Alertmanager configurations
// (alertmanager.yml, loaded by Alertmanager's own config package): added are the names only
// head has, in head's order; removed those only base has, sorted. Unnamed rules are not
// compared. A configuration that does not load is an error, named by its side.
func InhibitRuleChanges(base, head []byte) (added, removed []string, err error) {
	b, err := amconfig.Load(base)
	if err != nil {
		return nil, nil, fmt.Errorf("base %s: %w", output.AlertmanagerConfig, err)
	}
	h, err := amconfig.Load(head)
	if err != nil {
		return nil, nil, fmt.Errorf("head %s: %w", output.AlertmanagerConfig, err)
	}
	had, has := b.InhibitRuleNames(), h.InhibitRuleNames()
	added = setDiff(has, had)
	removed = setDiff(had, has)
	slices.Sort(removed)
	return added, slices.Compact(removed), nil
}
