package amconfig

import (
	"fmt"
	"maps"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

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
	// Values Alertmanager would refuse without saying where (a URL that ends in the newline of
	// an importstr or a ||| block) are located here first.
	var raw []Problem
	walkStrings(integrations, "", func(path, v string) {
		if strings.Contains(v, "://") && strings.ContainsFunc(v, unicode.IsControl) {
			raw = append(raw, Problem{Path: path, Message: "is a URL with a control character in it (a newline that importstr or a ||| block leaves at the end?); strip it, for example with std.stripChars(value, '\\n')"})
		}
	})
	if len(raw) > 0 {
		return raw
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
	reported := map[string]bool{}
	inlineSecrets(reflect.ValueOf(c.Receivers[0]), "", func(path string) {
		reported[path] = true
		out = append(out, Problem{Path: path, Message: "holds a secret inline; give it by reference (" + referenceFor(path) + ") so that it never lands in generated files"})
	})
	passwordURLs(integrations, "", func(path string) {
		if !reported[path] {
			out = append(out, Problem{Path: path, Message: "is a URL with a password in its user-info, which would land in generated files; give the credentials by reference (basic_auth with password_file, or the field's _file form)"})
		}
	})
	return out
}

// passwordURLs calls found with the path of every string in the integrations, in any field
// (Alertmanager types some URLs, such as proxy_url or opsgenie's api_url, as plain), that
// parses as a URL carrying a password in its user-info.
func passwordURLs(v any, path string, found func(path string)) {
	walkStrings(v, path, func(path, s string) {
		if u, err := url.Parse(strings.TrimSpace(s)); err == nil && u.User != nil {
			if _, ok := u.User.Password(); ok {
				found(path)
			}
		}
	})
}

// walkStrings calls found with the path and value of every string in a decoded YAML value,
// keys in order.
func walkStrings(v any, path string, found func(path, s string)) {
	switch v := v.(type) {
	case string:
		found(path, v)
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			walkStrings(v[k], join(path, k), found)
		}
	case []any:
		for i, c := range v {
			walkStrings(c, fmt.Sprintf("%s[%d]", path, i), found)
		}
	}
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
	walkStrings(integrations, "", func(_, v string) {
		if len(v) >= 3 {
			values = append(values, v)
		}
	})
	// Each value also as Go quotes it (a URL error quotes the URL with %q: a newline as \n) and
	// as URLs escape it, so that no quoting lets it through.
	for _, v := range slices.Clone(values) {
		quoted, ascii := strconv.Quote(v), strconv.QuoteToASCII(v)
		values = append(values, quoted[1:len(quoted)-1], ascii[1:len(ascii)-1], url.QueryEscape(v), url.PathEscape(v))
		if t := strings.TrimSpace(v); len(t) >= 3 {
			values = append(values, t)
		}
	}
	// Longest first, so that a value holding another is replaced whole.
	slices.SortFunc(values, func(a, b string) int { return len(b) - len(a) })
	for _, s := range values {
		msg = strings.ReplaceAll(msg, s, "<value>")
	}
	// What Alertmanager quotes is a value or a part of one (a URL cut at a comment, a scheme):
	// every quoted segment goes too.
	return quotedSegment.ReplaceAllString(msg, "<value>")
}

// quotedSegment matches a Go-quoted or backquoted segment of a message, escapes included.
var quotedSegment = regexp.MustCompile("\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`")
