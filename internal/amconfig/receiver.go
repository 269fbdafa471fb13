package amconfig

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	amcommon "github.com/prometheus/alertmanager/config/common"
	"go.yaml.in/yaml/v3"

	"github.com/prometheus/alertmanager/config"
	commoncfg "github.com/prometheus/common/config"
)

// Problem is one thing wrong with a receiver's integrations: where below the receiver
// (pagerduty_configs[0].routing_key; empty for the receiver as a whole) and what.
type Problem struct {
	Path    string
	Message string
}

// secretTypes are the types Alertmanager's configuration keeps secrets in.
var secretTypes = []reflect.Type{
	reflect.TypeFor[commoncfg.Secret](),
	reflect.TypeFor[amcommon.SecretURL](),
	reflect.TypeFor[amcommon.SecretTemplateURL](),
	reflect.TypeFor[config.SecretTemplateURL](),
}

// CheckReceiver loads the integrations of one receiver (Alertmanager's receiver schema:
// pagerduty_configs, slack_configs, webhook_configs, ...; name aside) in a configuration of
// its own with Alertmanager's config package, and reports what Alertmanager refuses and every
// secret given inline: a secret must come by reference (routing_key_file, api_url_file,
// url_file, password_file, ...), so that no token lands in a generated file. No message
// quotes a value the integrations hold.
func CheckReceiver(name string, integrations map[string]any) []Problem {
	if _, ok := integrations["name"]; ok {
		return []Problem{{Path: "name", Message: "is the receiver's key; leave it out"}}
	}
	receiver := map[string]any{"name": name}
	for k, v := range integrations {
		receiver[k] = v
	}
	doc, err := yaml.Marshal(map[string]any{"route": map[string]any{"receiver": name}, "receivers": []any{receiver}})
	if err != nil {
		return []Problem{{Message: redact(err.Error(), integrations)}}
	}
	c, err := config.Load(string(doc))
	if err != nil {
		return []Problem{{Message: redact(err.Error(), integrations)}}
	}
	var out []Problem
	inlineSecrets(reflect.ValueOf(c.Receivers[0]), "", func(path string) {
		out = append(out, Problem{Path: path, Message: "holds a secret inline; give it by reference (" + referenceFor(path) + ") so that it never lands in generated files"})
	})
	return out
}

// referenceFor names the field that takes a secret by reference in place of an inline one:
// its _file sibling (webhook_url_file for webhook_url, credentials_file, ...).
func referenceFor(path string) string {
	field := path[strings.LastIndex(path, ".")+1:]
	if i := strings.Index(field, "["); i >= 0 {
		field = field[:i]
	}
	return field + "_file"
}

// inlineSecrets calls found with the YAML path of every secret field that holds a value.
func inlineSecrets(v reflect.Value, path string, found func(path string)) {
	if slices.Contains(secretTypes, v.Type()) || (v.Kind() == reflect.Pointer && slices.Contains(secretTypes, v.Type().Elem())) {
		if !v.IsZero() {
			found(path)
		}
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			inlineSecrets(v.Elem(), path, found)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			inlineSecrets(v.Index(i), fmt.Sprintf("%s[%d]", path, i), found)
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return
		}
		for _, k := range v.MapKeys() {
			inlineSecrets(v.MapIndex(k), join(path, k.String()), found)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			if f.Anonymous || strings.Contains(f.Tag.Get("yaml"), ",inline") {
				inlineSecrets(v.Field(i), path, found)
				continue
			}
			inlineSecrets(v.Field(i), join(path, name), found)
		}
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// redact replaces every string the integrations hold in msg (Alertmanager's errors quote the
// URL they could not parse) with "<value>".
func redact(msg string, integrations any) string {
	var values []string
	var collect func(v any)
	collect = func(v any) {
		switch v := v.(type) {
		case string:
			if len(v) >= 3 {
				values = append(values, v)
			}
		case map[string]any:
			for _, c := range v {
				collect(c)
			}
		case []any:
			for _, c := range v {
				collect(c)
			}
		}
	}
	collect(integrations)
	// Longest first, so that a value holding another is replaced whole.
	slices.SortFunc(values, func(a, b string) int { return len(b) - len(a) })
	for _, s := range values {
		msg = strings.ReplaceAll(msg, s, "<value>")
	}
	return msg
}
