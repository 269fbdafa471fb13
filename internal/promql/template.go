package promql

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"text/template/parse"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/template"
)

// alertTemplateDefs are the variables Prometheus defines for every alert template.
const alertTemplateDefs = "{{$labels := .Labels}}{{$externalLabels := .ExternalLabels}}{{$externalURL := .ExternalURL}}{{$value := .Value}}"

// TemplateSteps is how many times one expansion of an alert template may enter a loop's body
// or a defined template: generate expands every annotation for the promtool tests, on text a
// pull request may bring ({{ range $i := 2000000000 }} would run for minutes). An alert's text
// ranges over its labels, a few dozen; the same count is refused on every machine.
const TemplateSteps = 100000

// TemplateBound is how long one expansion of an alert template may take, steps or not (a
// function on a long text).
const TemplateBound = 2 * time.Second

// stepFunc is the function gpuobs calls at the start of every loop body and defined template
// of an alert template it expands: a name no template of Prometheus' can call.
const stepFunc = "__gpuobs_step"

// errStopped is what the step function returns once an expansion is stopped: text/template
// ends the expansion with it.
var errStopped = errors.New("stopped")

// The errors of an expansion stopped at TemplateSteps, and at TemplateBound.
var (
	ErrTemplateLoops   = fmt.Errorf("loops more than %d times: loops this long have no place in an alert's text", TemplateSteps)
	ErrTemplateTooLong = fmt.Errorf("did not finish expanding within %s: work this long has no place in an alert's text", TemplateBound)
)

// ExpandAlertTemplate renders an alert's label value or annotation for the given series
// labels and value, as the Prometheus rule manager does, within TemplateSteps and
// TemplateBound. An expansion past either is stopped at its next step, with ErrTemplateLoops
// or ErrTemplateTooLong.
func ExpandAlertTemplate(name, text string, labels map[string]string, value float64) (string, error) {
	return expandWithin(name, text, labels, value, TemplateBound)
}

// expandWithin is ExpandAlertTemplate with a time bound of its own.
func expandWithin(name, text string, labels map[string]string, value float64, bound time.Duration) (string, error) {
	if !strings.Contains(text, "{{") {
		// No action: the rule manager's expansion (its definitions emit nothing) is the text.
		return text, nil
	}
	data := template.AlertTemplateData(labels, nil, "", promql.Sample{F: value})
	exp := template.NewTemplateExpander(context.Background(), withSteps(alertTemplateDefs+text), "__alert_"+name, data, model.Time(0), nil, &url.URL{}, nil)
	var steps atomic.Int64
	exp.Funcs(map[string]any{stepFunc: func() (string, error) {
		if steps.Add(1) > TemplateSteps {
			return "", errStopped
		}
		return "", nil
	}})
	type expansion struct {
		text string
		err  error
	}
	done := make(chan expansion, 1)
	go func() {
		text, err := exp.Expand()
		done <- expansion{text, err}
	}()
	timer := time.NewTimer(bound)
	defer timer.Stop()
	select {
	case e := <-done:
		if e.err != nil && steps.Load() > TemplateSteps {
			return "", fmt.Errorf("the template of %s %w", name, ErrTemplateLoops)
		}
		return e.text, e.err
	case <-timer.C:
		steps.Store(2 * TemplateSteps) // its next step stops it
		return "", fmt.Errorf("the template of %s %w", name, ErrTemplateTooLong)
	}
}

// withSteps returns text with a call of the step function at the start of the body of every
// range and defined template, written so that the text it expands to is the same: where the
// body's first action trims the space before it, or the range's own action the space after
// it, the call trims that space instead. Text without a range or a definition (an alert's
// text, mostly), and text that does not parse (for the expander to report), is returned as it
// is.
func withSteps(text string) string {
	if !strings.Contains(text, "range") && !strings.Contains(text, "define") && !strings.Contains(text, "block") {
		return text
	}
	trees, err := parseTemplate(text)
	if err != nil {
		return text
	}
	var at []int
	visit := func(n parse.Node) {
		if r, ok := n.(*parse.RangeNode); ok {
			at = append(at, int(r.List.Pos))
		}
	}
	for _, tree := range trees {
		if tree.Root == nil {
			continue
		}
		if tree.Name != mainTemplate {
			at = append(at, int(tree.Root.Pos))
		}
		walkTemplate(tree.Root, visit)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(at)))
	for _, pos := range at {
		call := "{{" + stepFunc + "}}"
		if pos > 0 && strings.ContainsRune(" \t\r\n", rune(text[pos-1])) {
			call = "{{- " + stepFunc + "}}"
		}
		text = text[:pos] + call + text[pos:]
	}
	return text
}

// mainTemplate names the tree of a parsed template's own text (parseTemplate), as lint's
// messages show it.
const mainTemplate = "template"

// parseTemplate parses a template with Go's template parser, its functions not resolved: the
// tree of its own text, named mainTemplate, and one for each template it defines.
func parseTemplate(text string) (map[string]*parse.Tree, error) {
	t := parse.New(mainTemplate)
	t.Mode = parse.SkipFuncCheck
	trees := map[string]*parse.Tree{}
	_, err := t.Parse(text, "{{", "}}", trees)
	return trees, err
}

// walkTemplate calls visit with n and every node below it, in the order they are written.
func walkTemplate(n parse.Node, visit func(parse.Node)) {
	if n == nil || reflect.ValueOf(n).IsNil() {
		return
	}
	visit(n)
	switch n := n.(type) {
	case *parse.ListNode:
		for _, c := range n.Nodes {
			walkTemplate(c, visit)
		}
	case *parse.ActionNode:
		walkTemplate(n.Pipe, visit)
	case *parse.PipeNode:
		for _, c := range n.Cmds {
			walkTemplate(c, visit)
		}
	case *parse.CommandNode:
		for _, a := range n.Args {
			walkTemplate(a, visit)
		}
	case *parse.IfNode:
		walkBranches(&n.BranchNode, visit)
	case *parse.RangeNode:
		walkBranches(&n.BranchNode, visit)
	case *parse.WithNode:
		walkBranches(&n.BranchNode, visit)
	case *parse.TemplateNode:
		walkTemplate(n.Pipe, visit)
	}
}

// walkBranches walks an if's, a range's or a with's pipe, body and else branch.
func walkBranches(b *parse.BranchNode, visit func(parse.Node)) {
	walkTemplate(b.Pipe, visit)
	walkTemplate(b.List, visit)
	walkTemplate(b.ElseList, visit)
}
