// Package report is what the reporters of every command (lint, diff, backtest) share: a
// reporter writes a command's result in one output format, and a registry holds a command's
// reporters, lists their formats for --format, and refuses an unknown format the same way
// everywhere. It imports no package of the module.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Reporter writes a result of type T in one output format.
type Reporter[T any] interface {
	// Format is the name --format selects the reporter by.
	Format() string
	// Write writes the result.
	Write(w io.Writer, result T) error
}

// Registry is a command's reporters, in the order its --format flag lists them.
type Registry[T any] []Reporter[T]

// Formats are the names of the registry's formats, in order.
func (r Registry[T]) Formats() []string {
	out := make([]string, len(r))
	for i, rep := range r {
		out[i] = rep.Format()
	}
	return out
}

// Lookup is the reporter of a format; an unknown format is an error that lists the known ones.
func (r Registry[T]) Lookup(format string) (Reporter[T], error) {
	for _, rep := range r {
		if rep.Format() == format {
			return rep, nil
		}
	}
	return nil, fmt.Errorf("unknown format %q: use one of %s", format, strings.Join(r.Formats(), ", "))
}

// Write writes a result in a format of the registry.
func (r Registry[T]) Write(w io.Writer, format string, result T) error {
	rep, err := r.Lookup(format)
	if err != nil {
		return err
	}
	return rep.Write(w, result)
}

// JSON is the json format of a command whose result is its own JSON document.
type JSON[T any] struct{}

// Format is "json".
func (JSON[T]) Format() string { return "json" }

// Write writes the result as indented JSON.
func (JSON[T]) Write(w io.Writer, result T) error { return WriteJSON(w, result) }

// WriteJSON writes v as JSON indented by two spaces, ending with a newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
