package semdiff

import (
	"crypto/sha256"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Receiver is one receiver's integrations, flattened: each leaf's path
// (pagerduty_configs[0].routing_key_file) with what it holds. A file path, a boolean or a
// number is kept as written; any other string may be a secret (a webhook URL, an inline key)
// and is kept as a digest that says whether it changed, never shown.
type Receiver map[string]string

// hiddenPrefix marks a kept digest.
const hiddenPrefix = "\x00sha256:"

// readReceivers reads the receivers of an alertmanager.yml Alertmanager has already loaded.
func readReceivers(data []byte) (map[string]Receiver, error) {
	var conf struct {
		Receivers []map[string]any `yaml:"receivers"`
	}
	if err := yaml.Unmarshal(data, &conf); err != nil {
		return nil, err
	}
	out := map[string]Receiver{}
	for _, r := range conf.Receivers {
		name, _ := r["name"].(string)
		leaves := Receiver{}
		for k, v := range r {
			if k != "name" {
				flatten(k, v, leaves)
			}
		}
		out[name] = leaves
	}
	return out, nil
}

// flatten notes every leaf under v, its path prefixed by path.
func flatten(path string, v any, leaves Receiver) {
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			flatten(path+"."+k, child, leaves)
		}
	case []any:
		for i, child := range v {
			flatten(fmt.Sprintf("%s[%d]", path, i), child, leaves)
		}
	case string:
		if strings.HasSuffix(path, "_file") {
			leaves[path] = v
			return
		}
		sum := sha256.Sum256([]byte(v))
		leaves[path] = hiddenPrefix + fmt.Sprintf("%x", sum)
	default:
		leaves[path] = fmt.Sprint(v)
	}
}

// shown is a leaf's value as a report shows it: a digest as a sentence, "another" when the
// other side's value is hidden too.
func shown(value, other string) string {
	switch {
	case !strings.HasPrefix(value, hiddenPrefix):
		return value
	case strings.HasPrefix(other, hiddenPrefix):
		return "(another value, not shown)"
	}
	return "(a value, not shown)"
}

// ReceiverChange is a receiver added, removed, or whose integrations changed: the type of an
// integration, its target, a secret's file.
type ReceiverChange struct {
	Name   string        `json:"name"`
	Change string        `json:"change"`
	Fields []FieldChange `json:"fields,omitempty"`
}

// compareReceivers reports the receivers whose integrations differ.
func compareReceivers(base, head map[string]Receiver) []ReceiverChange {
	var out []ReceiverChange
	for _, name := range unionKeys(base, head) {
		b, inBase := base[name]
		h, inHead := head[name]
		c := ReceiverChange{Name: name, Change: Changed}
		switch {
		case !inBase:
			c.Change = Added
		case !inHead:
			c.Change = Removed
		}
		for _, leaf := range unionKeys(b, h) {
			if bv, hv := b[leaf], h[leaf]; bv != hv {
				c.Fields = append(c.Fields, FieldChange{Field: leaf, Base: shown(bv, ""), Head: shown(hv, bv)})
			}
		}
		if c.Change != Changed || len(c.Fields) > 0 {
			out = append(out, c)
		}
	}
	return out
}
