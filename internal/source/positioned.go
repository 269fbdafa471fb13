package source

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/gpuobs/gpuobs/internal/promql"
)

// File is one input file: its lines (for positions and suppressions) and what it holds.
type File struct {
	Path  string
	Lines []string
	// Rules are the rules of a rule file, in file order.
	Rules []*Rule
	// Dashboard is set for a Grafana dashboard.
	Dashboard *Dashboard
	// Err is why the file was not read; nothing else in it was read.
	Err *ReadError
	// Generated marks gpuobs' own output (its header): gpuobs' conventions apply to it.
	Generated bool
	// Groups are the rule groups read, in file order.
	Groups []*Group
	// Embedded are the Grafana dashboards of ConfigMaps in a YAML file (the sidecar pattern),
	// each a File of its own at the same path, positions in the YAML file.
	Embedded []*File
}

// ReadError is why a file was not read: Skipped when it is not a file the readers take (a
// pipe, a link out of its tree), otherwise it could not be read or parsed.
type ReadError struct {
	Pos     Pos
	Message string
	Skipped bool
	// Template marks a file that does not parse because it is a template (Helm's or
	// another's), and Chart the directory of the Helm chart it belongs to (a Chart.yaml above
	// it), where there is one.
	Template bool
	Chart    string
}

// Pos is a 1-based line and column.
type Pos struct{ Line, Col int }

// Expr is a PromQL expression in a file, with what is needed to map offsets to positions.
type Expr struct {
	Text string
	Node *promql.Node
	// edits are the Grafana variables replaced before parsing, to map offsets in the parsed
	// text back to Text.
	edits []promql.Edit
	// Err is the parse error, if any.
	Err *promql.ParseError
	// pos of the first character of Text, and how the YAML value was written.
	pos   Pos
	block bool // literal or folded block: line i of Text is line pos.Line+i, at column indent
	col   int  // column of every continuation line in a block
	quote int  // 1 when the scalar is quoted: offsets shift by the quote
	// lines of the file, kept for a quoted scalar: its escapes and folded lines are walked to
	// place an offset; single when its quotes are single.
	lines  []string
	single bool
}

// PosAt maps a byte offset in the parsed expression to a file position.
func (e *Expr) PosAt(offset int) Pos {
	offset = promql.OriginalOffset(e.edits, offset)
	if offset < 0 || offset > len(e.Text) {
		offset = 0
	}
	before := e.Text[:offset]
	line := strings.Count(before, "\n")
	col := offset - (strings.LastIndex(before, "\n") + 1)
	if e.block {
		return Pos{Line: e.pos.Line + line, Col: e.col + col}
	}
	if e.lines != nil {
		return e.quotedPos(offset)
	}
	if line == 0 {
		return Pos{Line: e.pos.Line, Col: e.pos.Col + e.quote + col}
	}
	return Pos{Line: e.pos.Line + line, Col: 1 + col}
}

// quotedPos places an offset of a quoted scalar's value in the file by walking its source
// from the opening quote: an escape (\n, \", \u00e9) stands for the bytes it decodes to, a
// doubled single quote for one quote, and a line break inside the quotes for the one space YAML
// folds it into.
func (e *Expr) quotedPos(offset int) Pos {
	line, col := e.pos.Line-1, e.pos.Col // 0-based line; col indexes the byte after the quote
	for decoded := 0; decoded < offset && line < len(e.lines); {
		l := e.lines[line]
		if col >= len(l) {
			line++
			if line < len(e.lines) {
				col = len(e.lines[line]) - len(strings.TrimLeft(e.lines[line], " \t"))
			}
			decoded++
			continue
		}
		step, size := 1, 1
		switch {
		case e.single && l[col] == '\'' && col+1 < len(l) && l[col+1] == '\'':
			step = 2
		case !e.single && l[col] == '\\' && col+1 < len(l):
			step = 2
			switch l[col+1] {
			case 'x':
				step = 4
			case 'u':
				step, size = 6, runeBytes(l, col+2, 4)
			case 'U':
				step, size = 10, runeBytes(l, col+2, 8)
			}
		}
		col, decoded = min(col+step, len(l)), decoded+size
	}
	return Pos{Line: line + 1, Col: col + 1}
}

// runeBytes is how many UTF-8 bytes the code point written in n hex digits at l[i:] takes.
func runeBytes(l string, i, n int) int {
	if i+n > len(l) {
		return 1
	}
	r, err := strconv.ParseUint(l[i:i+n], 16, 32)
	if err != nil {
		return 1
	}
	return max(1, utf8.RuneLen(rune(r)))
}

// ParsedExpr is an expression parsed elsewhere (a rule of the catalog's plan), placed at 1:1.
func ParsedExpr(text string, node *promql.Node) *Expr {
	return &Expr{Text: text, Node: node, pos: Pos{1, 1}}
}

func newExpr(text string, n *yaml.Node, lines []string) *Expr {
	return newExprWith(text, text, nil, n, lines)
}

func newExprWith(text, parsed string, edits []promql.Edit, n *yaml.Node, lines []string) *Expr {
	e := scalarAt(text, n, lines)
	e.edits = edits
	node, err := promql.Parse(parsed)
	if err != nil {
		var pe *promql.ParseError
		if !errors.As(err, &pe) {
			pe = &promql.ParseError{Msg: err.Error()}
		}
		e.Err = pe
		return e
	}
	e.Node = node
	return e
}

// scalarAt places a YAML scalar's text in the file: where it starts and how its lines are
// indented.
func scalarAt(text string, n *yaml.Node, lines []string) *Expr {
	e := &Expr{Text: text, pos: Pos{n.Line, n.Column}}
	switch n.Style {
	case yaml.LiteralStyle, yaml.FoldedStyle:
		// The block's content starts on the next line, at the block's indentation: the least
		// indentation of its non-blank lines (an indentation indicator such as |2 can leave
		// the first line indented further).
		e.block = true
		e.pos.Line = n.Line + 1
		indent := -1
		for i := e.pos.Line - 1; i < len(lines) && i < e.pos.Line-1+strings.Count(strings.TrimRight(text, "\n"), "\n")+1; i++ {
			if l := lines[i]; strings.TrimSpace(l) != "" {
				if d := len(l) - len(strings.TrimLeft(l, " ")); indent < 0 || d < indent {
					indent = d
				}
			}
		}
		e.col = max(indent, 0) + 1
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		e.quote, e.lines, e.single = 1, lines, n.Style == yaml.SingleQuotedStyle
	}
	return e
}

// Group is one rule group: its name and evaluation interval as written, and where they are.
type Group struct {
	Name, Interval   string
	Pos, IntervalPos Pos
}

// Rule is one recording or alerting rule.
type Rule struct {
	File *File
	// Group is the group the rule is in.
	Group *Group
	// Operator marks a rule of a Prometheus Operator PrometheusRule manifest.
	Operator bool
	// Record or Alert is set.
	Record, Alert string
	Expr          *Expr
	For           string
	KeepFiringFor string
	// Labels and Annotations are nil where the rule has none.
	Labels      map[string]string
	Annotations map[string]string
	// Pos is where the rule starts; NamePos where its name is; End its last line.
	Pos, NamePos Pos
	End          int
	// values are where each label's and annotation's value is (a list: a rule has a few, and
	// a lint run holds tens of thousands of rules).
	values []valuePos
}

// valuePos is where a label's or an annotation's value is.
type valuePos struct {
	annotation bool
	name       string
	pos        Pos
}

// LabelAt is where the value of the rule's label is, if it has it.
func (r *Rule) LabelAt(name string) (Pos, bool) { return r.valueAt(false, name) }

// AnnotationAt is where the value of the rule's annotation is, if it has it.
func (r *Rule) AnnotationAt(name string) (Pos, bool) { return r.valueAt(true, name) }

func (r *Rule) valueAt(annotation bool, name string) (Pos, bool) {
	for _, v := range r.values {
		if v.annotation == annotation && v.name == name {
			return v.pos, true
		}
	}
	return Pos{}, false
}

// Name is the rule's record or alert name.
func (r *Rule) Name() string {
	if r.Record != "" {
		return r.Record
	}
	return r.Alert
}

// ReadRules reads a rule file: plain rule groups or PrometheusRule manifests, in one or more
// YAML documents; other documents are skipped.
func ReadRules(path string, data []byte) *File {
	f := &File{Path: path, Lines: splitLines(data)}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			f.Err = readError(data, err)
			return f
		}
		root := &doc
		if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
			root = resolve(root.Content[0])
		}
		if root.Kind != yaml.MappingNode {
			continue
		}
		f.Embedded = append(f.Embedded, embeddedDashboards(f, root)...)
		if err := addConfigMapRules(f, root); err != nil {
			f.Err = err
			return f
		}
		groups := mapValue(root, "groups")
		operator := scalar(mapValue(root, "kind")) == "PrometheusRule"
		if operator {
			groups = mapValue(mapValue(root, "spec"), "groups")
		}
		if groups == nil || groups.Kind != yaml.SequenceNode {
			continue
		}
		if f.Err = duplicateKey(root); f.Err != nil {
			return f
		}
		for _, g := range groups.Content {
			// A rule group is a mapping: a list of names (an OpenShift SCC's groups) is not.
			if g = resolve(g); g == nil || g.Kind != yaml.MappingNode {
				continue
			}
			group := &Group{Pos: Pos{g.Line, g.Column}}
			if n := mapValue(g, "name"); n != nil {
				group.Name, group.Pos = n.Value, Pos{n.Line, n.Column}
			}
			if n := mapValue(g, "interval"); n != nil {
				group.Interval, group.IntervalPos = n.Value, Pos{n.Line, n.Column}
			}
			f.Groups = append(f.Groups, group)
			rules := mapValue(g, "rules")
			if rules == nil || rules.Kind != yaml.SequenceNode {
				continue
			}
			for i, item := range rules.Content {
				r := resolve(item)
				if r.Kind != yaml.MappingNode {
					continue
				}
				end := lastLine(r)
				if i+1 < len(rules.Content) && item.Kind != yaml.AliasNode {
					end = rules.Content[i+1].Line - 1
				}
				rule := readRule(f, r, end)
				rule.Group, rule.Operator = group, operator
				f.Rules = append(f.Rules, rule)
			}
		}
	}
	return f
}

// addConfigMapRules adds to f the rules of a ConfigMap's rule files: the literal blocks of its
// data keys ending in .yaml, .yml or .rules, as Prometheus reads them mounted from it. Each is
// read from the file's own lines (those before the block left blank, its indentation kept,
// which YAML takes), so every position is the ConfigMap's. A block that does not parse is the
// file's read error, at its line.
func addConfigMapRules(f *File, root *yaml.Node) *ReadError {
	if scalar(mapValue(root, "kind")) != "ConfigMap" {
		return nil
	}
	for _, kv := range pairs(mapValue(root, "data")) {
		v := kv[1]
		switch strings.ToLower(filepath.Ext(kv[0].Value)) {
		case ".yaml", ".yml", ".rules":
		default:
			continue
		}
		if v == nil || v.Kind != yaml.ScalarNode || v.Style != yaml.LiteralStyle {
			continue
		}
		first := v.Line + 1 // the block starts on the line after its indicator
		n := strings.Count(strings.TrimSuffix(v.Value, "\n"), "\n") + 1
		if first-1+n > len(f.Lines) {
			continue
		}
		text := strings.Repeat("\n", first-1) + strings.Join(f.Lines[first-1:first-1+n], "\n") + "\n"
		inner := ReadRules(f.Path, []byte(text))
		if inner.Err != nil {
			return inner.Err
		}
		for _, r := range inner.Rules {
			r.File = f
		}
		f.Groups = append(f.Groups, inner.Groups...)
		f.Rules = append(f.Rules, inner.Rules...)
	}
	return nil
}

// embeddedDashboards reads the Grafana dashboards a manifest holds in block scalars: the keys
// ending in .json of a ConfigMap, as Grafana's dashboard sidecar loads them, and the spec.json
// of a grafana-operator GrafanaDashboard.
func embeddedDashboards(f *File, root *yaml.Node) []*File {
	var blocks []*yaml.Node
	switch scalar(mapValue(root, "kind")) {
	case "ConfigMap":
		for _, kv := range pairs(mapValue(root, "data")) {
			if strings.HasSuffix(kv[0].Value, ".json") {
				blocks = append(blocks, kv[1])
			}
		}
	case "GrafanaDashboard":
		blocks = append(blocks, mapValue(mapValue(root, "spec"), "json"))
	}
	var out []*File
	left := panelBudget
	for _, v := range blocks {
		if v == nil || v.Kind != yaml.ScalarNode || (v.Style != yaml.LiteralStyle && v.Style != yaml.FoldedStyle) {
			continue
		}
		d := readDashboard(f.Path, []byte(v.Value), &left)
		// The block starts on the line after its key, indented: shift every position there.
		block := scalarAt(v.Value, v, f.Lines)
		if d.Err != nil {
			d.Err.Pos.Line += block.pos.Line - 1
			d.Err.Pos.Col += block.col - 1
			d.Lines = f.Lines
			out = append(out, d)
			continue
		}
		if d.Dashboard == nil {
			continue
		}
		for _, q := range d.Dashboard.Queries {
			q.Expr.pos.Line += block.pos.Line - 1
			q.Expr.pos.Col += block.col - 1
			q.Expr.col += block.col - 1
			if q.Expr.lines != nil {
				q.Expr.lines = f.Lines
			}
		}
		d.Lines = f.Lines
		out = append(out, d)
	}
	return out
}

func readRule(f *File, n *yaml.Node, end int) *Rule {
	r := &Rule{File: f, Pos: Pos{n.Line, n.Column}, End: end}
	r.NamePos = r.Pos
	for _, kv := range pairs(n) {
		k, v := kv[0], kv[1]
		switch k.Value {
		case "record":
			r.Record, r.NamePos = v.Value, Pos{v.Line, v.Column}
		case "alert":
			r.Alert, r.NamePos = v.Value, Pos{v.Line, v.Column}
		case "expr":
			r.Expr = newExpr(v.Value, v, f.Lines)
		case "for":
			r.For = v.Value
		case "keep_firing_for":
			r.KeepFiringFor = v.Value
		case "labels", "annotations":
			values := pairs(v)
			if len(values) == 0 {
				continue
			}
			m := make(map[string]string, len(values))
			for _, lv := range values {
				m[lv[0].Value] = lv[1].Value
				r.values = append(r.values, valuePos{k.Value == "annotations", lv[0].Value, Pos{lv[1].Line, lv[1].Column}})
			}
			if k.Value == "labels" {
				r.Labels = m
			} else {
				r.Annotations = m
			}
		}
	}
	if r.Expr == nil {
		r.Expr = &Expr{pos: r.Pos, Err: &promql.ParseError{Msg: "the rule has no expr"}}
	}
	return r
}

// mapValue is the value of a key in a mapping (aliases resolved, merge keys followed); of a
// key given twice, the last (as JSON readers keep it; a rule file with one is refused).
func mapValue(n *yaml.Node, key string) *yaml.Node {
	var value *yaml.Node
	for _, kv := range pairs(n) {
		if kv[0].Value == key {
			value = kv[1]
		}
	}
	return value
}

// resolve follows an alias (*name) to the node its anchor names.
func resolve(n *yaml.Node) *yaml.Node {
	for depth := 0; n != nil && n.Kind == yaml.AliasNode && depth < maxAliasDepth; depth++ {
		n = n.Alias
	}
	return n
}

// maxAliasDepth bounds how far aliases and merge keys are followed, and maxMergedPairs how many
// pairs the merge keys of one mapping may bring: a document can make them refer to themselves,
// or multiply (a billion laughs).
const (
	maxAliasDepth  = 32
	maxMergedPairs = 10000
)

// pairs lists a mapping's key/value pairs, keys and values resolved, with merge keys (<<: *base or
// <<: [*a, *b]) expanded in place of the key: an explicit key wins over a merged one, and an
// earlier merged mapping over a later one, as YAML's merge key type says.
func pairs(n *yaml.Node) [][2]*yaml.Node {
	budget := maxMergedPairs
	return pairsAt(n, 0, &budget)
}

func pairsAt(n *yaml.Node, depth int, budget *int) [][2]*yaml.Node {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode || depth > maxAliasDepth || *budget <= 0 {
		return nil
	}
	*budget -= len(n.Content) / 2
	var own, merged [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if k.Tag == "!!merge" && v != nil {
			sources := []*yaml.Node{v}
			if v.Kind == yaml.SequenceNode {
				sources = v.Content
			}
			for _, src := range sources {
				merged = append(merged, pairsAt(src, depth+1, budget)...)
			}
			continue
		}
		// A key may be an alias (*k : ...), which names its anchor's value as Prometheus'
		// reader takes it.
		own = append(own, [2]*yaml.Node{resolve(k), v})
	}
	seen := map[string]bool{}
	for _, kv := range own {
		seen[kv[0].Value] = true
	}
	for _, kv := range merged {
		if !seen[kv[0].Value] {
			seen[kv[0].Value] = true
			own = append(own, kv)
		}
	}
	return own
}

// duplicateKey is the first mapping key given twice in a rule document, in file order
// (aliases are not followed: each node is seen once), as Prometheus' reader refuses it; nil
// when there is none. Merge keys may repeat.
func duplicateKey(n *yaml.Node) *ReadError {
	if n.Kind == yaml.MappingNode {
		first := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
				continue
			}
			if line, ok := first[k.Value]; ok {
				return &ReadError{Pos: Pos{k.Line, k.Column}, Message: fmt.Sprintf("key %q is given twice in one object (first on line %d): Prometheus refuses the file; give it once", k.Value, line)}
			}
			first[k.Value] = k.Line
		}
	}
	for _, c := range n.Content {
		if err := duplicateKey(c); err != nil {
			return err
		}
	}
	return nil
}

func lastLine(n *yaml.Node) int {
	last := n.Line
	for _, c := range n.Content {
		if l := lastLine(c); l > last {
			last = l
		}
	}
	return last
}

// splitLines splits a file into lines as YAML counts them: \n, \r\n and a lone \r end a line.
func splitLines(data []byte) []string {
	text := strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n")
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// readError turns a YAML error ("yaml: line 3: ...") into an error at that line; an error
// without a line about bytes that are not UTF-8 points at the first such byte.
func readError(data []byte, err error) *ReadError {
	msg := err.Error()
	pos := Pos{1, 1}
	var line int
	if _, scanErr := fmt.Sscanf(strings.TrimPrefix(msg, "yaml: "), "line %d:", &line); scanErr == nil && line > 0 {
		pos.Line = line
	} else if !utf8.Valid(data) {
		pos = firstInvalidUTF8(data)
	}
	return &ReadError{Pos: pos, Message: "cannot read the file: " + msg}
}

// firstInvalidUTF8 is the position of the first byte that is not valid UTF-8.
func firstInvalidUTF8(data []byte) Pos {
	pos := Pos{1, 1}
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size == 1 {
			return pos
		}
		if r == '\n' {
			pos = Pos{pos.Line + 1, 1}
		} else {
			pos.Col += size
		}
		data = data[size:]
	}
	return pos
}
