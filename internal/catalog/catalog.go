// Package catalog evaluates the Jsonnet catalog (embedded, or a user's gpuobs.jsonnet that
// imports it) and decodes it strictly into a validated model.
package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"

	jsonnet "github.com/google/go-jsonnet"

	"github.com/gpuobs/gpuobs/internal/jsontext"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/libsonnet"
)

// Problem is one thing wrong with a catalog: where (a catalog path such as
// alerts.GPUEccDoubleBit.for, or a jsonnet file:line:col) and what.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Path + ": " + p.Message
}

// Problems is every problem found in a catalog; it is the error Load returns.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// UpstreamRunbookBaseURL is the embedded catalog's runbooks.baseURL: gpuobs' own runbook
// pages, which a team's own catalog should replace with where it serves its runbooks/.
const UpstreamRunbookBaseURL = "https://github.com/gpuobs/gpuobs/blob/main/runbooks/"

// Options selects the catalog to load.
type Options struct {
	// ConfigPath is the user's gpuobs.jsonnet; empty means the embedded catalog.
	ConfigPath string
	// ImportRoot is the directory the catalog may import files from; empty means the
	// catalog's own directory.
	ImportRoot string
	// Isolated evaluates a catalog file in a child process of this program, bounded by
	// Limits (DefaultLimits when zero): for catalogs that may come from anyone.
	Isolated bool
	Limits   Limits
	// CacheDir keeps evaluations between runs (evalcache.go); empty keeps none.
	CacheDir string
}

// Load evaluates and validates a catalog. Its error is Problems, or a read error.
func Load(opts Options) (*model.Model, error) {
	out, err := Evaluate(opts)
	if err != nil {
		return nil, err
	}
	return Decode([]byte(out))
}

// Evaluate runs Jsonnet on the catalog (opts.ConfigPath, or the embedded one) and returns the
// JSON, compact: from opts.CacheDir when an evaluation kept there read exactly the files on disk now
// (evalcache.go), else evaluated (a catalog file in a child process when opts.Isolated) and
// kept there. The embedded catalog is evaluated at most once per process.
func Evaluate(opts Options) (string, error) {
	for _, pinned := range []bool{true, false} {
		if out, ok := lookup(opts, cacheKey(opts, pinned)); ok {
			return out, nil
		}
	}
	if opts.ConfigPath != "" && opts.Isolated {
		return evaluateIsolated(opts) // the child keeps what it evaluates
	}
	var out string
	var reads []fileRead
	var err error
	if opts.ConfigPath == "" {
		out, err = embeddedEvaluation()
	} else {
		out, reads, err = evaluateJsonnet(opts)
	}
	if err != nil {
		return "", err
	}
	// Kept and returned compact: half the bytes to read, and nothing left for Decode to do.
	out = jsontext.Compact(out)
	keep(opts, reads, out)
	return out, nil
}

// embeddedEvaluation is the embedded catalog evaluated, once per process.
var embeddedEvaluation = sync.OnceValues(func() (string, error) {
	out, _, err := evaluateJsonnet(Options{})
	return out, err
})

// evaluateJsonnet runs Jsonnet on the catalog and lists the files on disk it looked for.
func evaluateJsonnet(opts Options) (string, []fileRead, error) {
	filename, snippet := embeddedPrefix+"<default>", fmt.Sprintf("import %q", libsonnet.Entry)
	root := ""
	var reads []fileRead
	if opts.ConfigPath != "" {
		var err error
		if root, err = importRoot(opts.ConfigPath, opts.ImportRoot); err != nil {
			return "", nil, fmt.Errorf("import root: %w", err)
		}
		// The entry file is held to the rule of its imports: a link out of the tree (to a
		// token, to /proc/self/environ) is refused before it is read, and never quoted.
		if err := newImporter(libsonnet.FS, opts.ConfigPath, root).confined(opts.ConfigPath); err != nil {
			if errors.Is(err, errOutsideRoot) {
				return "", nil, fmt.Errorf("reading catalog %s: it %w %s once links are resolved; a catalog is read only from the directory it is given in (--import-root widens that)", opts.ConfigPath, err, root)
			}
			return "", nil, fmt.Errorf("reading catalog: %w", err)
		}
		data, err := os.ReadFile(opts.ConfigPath)
		if err != nil {
			return "", nil, fmt.Errorf("reading catalog: %w", err)
		}
		filename, snippet = opts.ConfigPath, string(data)
		reads = append(reads, readOf(opts.ConfigPath, data))
	}
	im := newImporter(libsonnet.FS, filename, root)
	vm := jsonnet.MakeVM()
	vm.Importer(im)
	vm.NativeFunction(fillNative)
	vm.NativeFunction(numNative)
	vm.NativeFunction(signalNative)
	vm.ErrorFormatter.SetColorFormatter(nil)
	out, err := vm.EvaluateAnonymousSnippet(filename, snippet)
	if err != nil {
		// A mistake in the inputs surfaces as a failure deep in the library: say what it is.
		if opts.ConfigPath != "" {
			if found := schemaProblems(vm, filename); len(found) > 0 {
				all := append(found.problems(), rest(vm, filename, found)...)
				// Located problems by path; the line without a path last.
				sort.SliceStable(all, func(i, j int) bool { return all[i].Path != "" && (all[j].Path == "" || all[i].Path < all[j].Path) })
				return "", nil, all
			}
		}
		if p, ok := missingInLibrary(err.Error()); ok {
			return "", nil, Problems{p}
		}
		if p, ok := refusedByLibrary(err.Error()); ok {
			return "", nil, Problems{p}
		}
		return "", nil, Problems{{Message: excerpt(strings.TrimSpace(err.Error()))}}
	}
	return out, append(reads, im.reads...), nil
}

// missingField is Jsonnet's error for a field that an object lacks, and field a frame of
// its stack trace naming the field being manifested.
var (
	missingField = regexp.MustCompile(`^RUNTIME ERROR: Field does not exist: (\S+)\n\t` + regexp.QuoteMeta(embeddedPrefix) + `(\S+?):\d+:`)
	fieldFrame   = regexp.MustCompile(`(?m)^\tField "([^"]+)"`)
)

// missingInLibrary explains an evaluation that failed inside the embedded library because the
// user's catalog removed (or renamed) an entry the library reads: which entry, where the
// library reads it, and for what, instead of the library's stack trace.
func missingInLibrary(msg string) (Problem, bool) {
	m := missingField.FindStringSubmatch(msg)
	if m == nil {
		return Problem{}, false
	}
	var path []string
	for _, f := range fieldFrame.FindAllStringSubmatch(msg, -1) {
		path = append([]string{f[1]}, path...)
	}
	return Problem{
		Path:    strings.Join(path, "."),
		Message: fmt.Sprintf("the embedded catalog's %s reads %s, which your catalog removed or renamed; keep it, override this entry too, or switch its section off (enabled)", m[2], m[1]),
	}, true
}

// refusal is an error the embedded library raises on purpose about a value of the catalog: its
// message starts with the value's catalog path, and the library's stack trace below it says
// nothing more to the user.
var refusal = regexp.MustCompile(`^RUNTIME ERROR: ([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+): ((?s:.*?))\n\t` + regexp.QuoteMeta(embeddedPrefix))

// refusedByLibrary is the problem a refusal names, by its catalog path.
func refusedByLibrary(msg string) (Problem, bool) {
	m := refusal.FindStringSubmatch(msg)
	if m == nil {
		return Problem{}, false
	}
	return Problem{Path: m[1], Message: excerpt(m[2])}, true
}

// schemaFile checks the inputs of a catalog before anything is derived from them.
const schemaFile = "gpuobs-schema.libsonnet"

// schemaProblem is a problem the schema checks found, with its catalog path as a list of keys
// and list indexes.
type schemaProblem struct {
	Problem
	Keys []any `json:"keys"`
}

type schemaFound []schemaProblem

func (found schemaFound) problems() Problems {
	out := make(Problems, len(found))
	for i, p := range found {
		out[i] = p.Problem
	}
	return out
}

// schemaProblems runs the schema checks on a user's catalog file whose evaluation failed: the
// wrong type or a missing field where the library needs one, each by catalog path, all at
// once. When the checks themselves fail (the file does not parse, an import is refused), or
// find nothing, the evaluation's own error stands.
func schemaProblems(vm *jsonnet.VM, filename string) schemaFound {
	snippet := fmt.Sprintf("(import %q).problems(import %q)", schemaFile, filepath.Base(filename))
	out, err := vm.EvaluateAnonymousSnippet(filename, snippet)
	if err != nil {
		return nil
	}
	var found schemaFound
	if err := json.Unmarshal([]byte(out), &found); err != nil {
		return schemaFound{{Problem: Problem{Message: fmt.Sprintf("the schema checks returned %.80s: %v", out, err)}}}
	}
	for i := range found {
		found[i].Message = excerpt(found[i].Message)
	}
	return found
}

// rest checks the rest of a catalog the schema checks found problems in, so that one run
// reports every mistake: each value they reported is replaced by the embedded catalog's value
// at its path (a list by the embedded list), the catalog is evaluated and decoded again, and
// what that finds elsewhere is returned. When a reported value has no embedded counterpart (a
// new SLO lacking fields), the rest cannot be evaluated, and a line says so.
func rest(vm *jsonnet.VM, filename string, found schemaFound) Problems {
	cannot := Problems{{Message: "(the rest of the catalog is checked once these are fixed: they stop its evaluation)"}}
	patch := fmt.Sprintf("local embedded = import %q;\n(import %q)", libsonnet.Entry, filepath.Base(filename))
	repaired := map[string]bool{}
	for _, p := range found {
		var keys []string
		for _, k := range p.Keys {
			s, ok := k.(string)
			if !ok {
				break
			}
			keys = append(keys, s)
		}
		if len(keys) == 0 {
			return cannot
		}
		patch += " + " + override(keys)
		repaired[p.Path] = true
	}
	out, err := vm.EvaluateAnonymousSnippet(filename, patch)
	if err != nil {
		if p, ok := refusedByLibrary(err.Error()); ok {
			return Problems{p}
		}
		return cannot
	}
	_, err = Decode([]byte(out))
	var more Problems
	if !errors.As(err, &more) {
		return nil
	}
	var others Problems
	for _, p := range more {
		if !repaired[p.Path] {
			others = append(others, p)
		}
	}
	return others
}

// override is a Jsonnet object that sets the value at keys to the embedded catalog's value
// there, keeping every other key: { "slos"+: { "X"+: { "objective": embedded["slos"]["X"]["objective"] } } }.
func override(keys []string) string {
	quoted := make([]string, len(keys))
	for i, k := range keys {
		b, _ := json.Marshal(k)
		quoted[i] = string(b)
	}
	value := "embedded[" + strings.Join(quoted, "][") + "]"
	for i := len(quoted) - 1; i >= 0; i-- {
		sep := "+:"
		if i == len(quoted)-1 {
			sep = ":"
		}
		value = "{ " + quoted[i] + sep + " " + value + " }"
	}
	return value
}

// Decode decodes catalog JSON strictly and validates it.
func Decode(data []byte) (*model.Model, error) {
	d := decoder{}
	// Jsonnet writes indented JSON: compact, every pass below reads half the bytes. Compact
	// JSON has no line breaks (Evaluate's is compact already).
	var compact bytes.Buffer
	if bytes.IndexByte(data, '\n') >= 0 && json.Compact(&compact, data) == nil {
		data = compact.Bytes()
	}
	m := d.decode(data)
	if m != nil {
		expandHistograms(m)
		// Entries that failed to decode are left out, so the rest is still validated and
		// every problem is reported at once; a value that did not decode is not reported
		// again for the zero it was left at.
		undecoded := map[string]bool{}
		for _, p := range d.problems {
			undecoded[p.Path] = true
		}
		for _, p := range validate(m) {
			if !undecoded[p.Path] {
				d.problems = append(d.problems, p)
			}
		}
	}
	if len(d.problems) > 0 {
		sort.SliceStable(d.problems, func(i, j int) bool { return d.problems[i].Path < d.problems[j].Path })
		return nil, d.problems
	}
	return m, nil
}

type decoder struct{ problems Problems }

func (d *decoder) add(path, format string, args ...any) {
	d.problems = append(d.problems, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

// strict decodes one JSON value, rejecting unknown fields, and reports under path.
func (d *decoder) strict(path string, raw json.RawMessage, v any) bool {
	raw, ok := d.withoutRetired(path, raw)
	if err := decodeStrict(raw, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			at := path
			if typeErr.Field != "" {
				at = strings.TrimPrefix(path+"."+typeErr.Field, ".")
			}
			d.add(at, "is %s; want %s", article(typeErr.Value), jsonKind(typeErr.Type))
			return false
		}
		msg := strings.TrimPrefix(err.Error(), "json: ")
		if field, ok := strings.CutPrefix(msg, `unknown field "`); ok {
			field = strings.TrimSuffix(field, `"`)
			if reader, ok := jsonnetOnly[field]; ok {
				msg += fmt.Sprintf("; write it hidden, %s:: (%s)", field, reader)
			}

		}
		d.add(path, "%s", msg)
		return false
	}
	return ok
}

// withoutRetired reports each setting of an object that gpuobs no longer has (retired), and
// returns the object without them, so that the rest of it is still checked.
func (d *decoder) withoutRetired(path string, raw json.RawMessage) (json.RawMessage, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return raw, true
	}
	found := false
	for _, name := range model.SortedKeys(fields) {
		at := strings.TrimPrefix(path+"."+name, ".")
		if why, ok := retired[at]; ok {
			d.add(at, "is gone: %s; delete it", why)
			delete(fields, name)
			found = true
		}
	}
	if !found {
		return raw, true
	}
	out, err := json.Marshal(fields)
	if err != nil {
		return raw, true
	}
	return out, false
}

// jsonnetOnly names the fields of a catalog entry that only the catalog's Jsonnet reads, with
// what reads each: the library writes them hidden (::), and written visible they reach the
// decoder, which then says how to write them.
var jsonnetOnly = map[string]string{
	"panelThresholds": "only the panels read it (dashboards/, lib/panels.libsonnet)",
}

// retired are the settings gpuobs no longer has, by catalog path, with what replaced them: a
// catalog that still sets one is told why, and what to do.
var retired = map[string]string{
	"exporter.honorLabels": "the rules read a workload's pod where the scrape puts it, pod or exported_pod (honorLabels true or false)",
	"exporter.vgpuGuests":  "the rules read each GPU by the first of exporter.healthFields it sends, and a vGPU guest sends its free framebuffer",
	"exporter.healthField": "exporter.healthFields lists the fields that tell a GPU is there, read in turn",
}

// decodeStrict decodes one JSON value into v, rejecting unknown fields.
func decodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// article names a JSON value kind as the decoder reports it: a string, a number, an object.
func article(kind string) string {
	if kind == "" {
		return "a value"
	}
	if strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}

// jsonKind names what a catalog value of Go type t is written as.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return t.String()
}

// entries decodes a map section. A section that decodes whole takes one pass; one with a bad
// entry is decoded entry by entry, so that every bad entry is reported by name.
func entries[V any](d *decoder, path string, raw json.RawMessage) map[string]V {
	var whole map[string]V
	if decodeStrict(raw, &whole) == nil {
		if whole == nil {
			whole = map[string]V{}
		}
		return whole
	}
	var rawMap map[string]json.RawMessage
	if !d.strict(path, raw, &rawMap) {
		return nil
	}
	out := make(map[string]V, len(rawMap))
	for _, name := range model.SortedKeys(rawMap) {
		var v V
		if d.strict(path+"."+name, rawMap[name], &v) {
			out[name] = v
		}
	}
	return out
}

func (d *decoder) decode(data []byte) *model.Model {
	if m, ok := decodeWhole(data); ok {
		return m
	}
	var top map[string]json.RawMessage
	if !d.strict("", data, &top) {
		return nil
	}
	names := exporterNames(top["exporter"])
	fieldNames := names.FieldNames
	if len(fieldNames) > 0 {
		top = nil
		if !d.strict("", renameFields(data, fieldNames), &top) {
			return nil
		}
	}
	m := &model.Model{}
	sections := map[string]func(json.RawMessage){
		"apiVersion":       func(r json.RawMessage) { d.strict("apiVersion", r, &m.APIVersion) },
		"exporter":         func(r json.RawMessage) { d.strict("exporter", r, &m.Exporter) },
		"kubeStateMetrics": func(r json.RawMessage) { d.strict("kubeStateMetrics", r, &m.KubeStateMetrics) },
		"kubernetes":       func(r json.RawMessage) { d.strict("kubernetes", r, &m.Kubernetes) },
		"labels":           func(r json.RawMessage) { d.strict("labels", r, &m.Labels) },
		"identity":         func(r json.RawMessage) { d.strict("identity", r, &m.Identity) },
		"teams":            func(r json.RawMessage) { d.strict("teams", r, &m.Teams) },
		"enabled":          func(r json.RawMessage) { d.strict("enabled", r, &m.Enabled) },
		"units":            func(r json.RawMessage) { m.Units = entries[model.Unit](d, "units", r) },
		"fields":           func(r json.RawMessage) { m.Fields = entries[model.Field](d, "fields", r) },
		"thresholds":       func(r json.RawMessage) { m.Thresholds = entries[float64](d, "thresholds", r) },
		"windows":          func(r json.RawMessage) { d.strict("windows", r, &m.Windows) },
		"throttleReasons":  func(r json.RawMessage) { m.ThrottleReasons = entries[model.ThrottleReason](d, "throttleReasons", r) },
		"xid":              func(r json.RawMessage) { d.strict("xid", r, &m.XID) },
		"alerts":           func(r json.RawMessage) { m.Alerts = entries[model.Alert](d, "alerts", r) },
		"records":          func(r json.RawMessage) { m.Records = entries[model.Record](d, "records", r) },
		"fleet":            func(r json.RawMessage) { d.strict("fleet", r, &m.Fleet) },
		"lint":             func(r json.RawMessage) { d.strict("lint", r, &m.Lint) },
		"prometheus":       func(r json.RawMessage) { d.strict("prometheus", r, &m.Prometheus) },
		"metrics":          func(r json.RawMessage) { m.Metrics = entries[model.Metric](d, "metrics", r) },
		"engines":          func(r json.RawMessage) { m.Engines = entries[model.Engine](d, "engines", r) },
		"runbooks":         func(r json.RawMessage) { d.strict("runbooks", r, &m.Runbooks) },
		"recording":        func(r json.RawMessage) { d.strict("recording", r, &m.Recording) },
		"tests":            func(r json.RawMessage) { d.strict("tests", r, &m.Tests) },
		"slos":             func(r json.RawMessage) { m.SLOs = entries[model.SLO](d, "slos", r) },
		"cost":             func(r json.RawMessage) { d.strict("cost", r, &m.Cost) },
		"sharing":          func(r json.RawMessage) { d.strict("sharing", r, &m.Sharing) },
		"release":          func(r json.RawMessage) { d.strict("release", r, &m.Release) },
		"dashboards":       func(r json.RawMessage) { m.Dashboards = entries[model.Dashboard](d, "dashboards", r) },
		"alertmanager":     func(r json.RawMessage) { d.strict("alertmanager", r, &m.Alertmanager) },
		"deploy":           func(r json.RawMessage) { d.strict("deploy", r, &m.Deploy) },
		"topology":         func(r json.RawMessage) { d.strict("topology", r, &m.Topology) },
		"scheduler":        func(r json.RawMessage) { d.strict("scheduler", r, &m.Scheduler) },
		"slurm":            func(r json.RawMessage) { d.strict("slurm", r, &m.Slurm) },
	}
	for _, key := range model.SortedKeys(top) {
		decodeSection, ok := sections[key]
		if !ok {
			d.add(key, "unknown field; known top-level fields are %s", strings.Join(model.SortedKeys(sections), ", "))
			continue
		}
		decodeSection(top[key])
	}
	if len(fieldNames) > 0 {
		// The renaming rewrote the maps' own names too: keep the catalog's.
		m.Exporter.FieldNames = fieldNames
		m.Exporter.FieldRenames = names.FieldRenames
	}
	return m
}

// decodeWhole decodes, in one pass, a catalog that decodes as it stands and renames no field;
// false otherwise: decode then goes section by section and entry by entry, to locate every
// problem, and renames fields first. A section written null is left nil (decode's entries
// make it empty): nothing reads the two apart.
func decodeWhole(data []byte) (*model.Model, bool) {
	m := &model.Model{}
	if decodeStrict(data, m) != nil || len(m.Exporter.FieldNames) > 0 {
		return nil, false
	}
	return m, true
}

// fieldNaming is what the exporter section says of field names: the catalog's renames, and
// dcgm-exporter's between versions.
type fieldNaming struct {
	FieldNames   map[string]string            `json:"fieldNames"`
	FieldRenames map[string]map[string]string `json:"fieldRenames"`
}

// exporterNames reads exporter.fieldNames and exporter.fieldRenames from the exporter
// section, before the renaming rewrites them, if it decodes.
func exporterNames(exporter json.RawMessage) fieldNaming {
	var n fieldNaming
	if json.Unmarshal(exporter, &n) != nil {
		return fieldNaming{}
	}
	return n
}

// renameFields applies exporter.fieldNames (catalog name -> the name the exporter exports) to
// the whole evaluated catalog before it is decoded: field keys, every expression, dashboards,
// scenarios and runbooks then use the exporter's names. DCGM field names are distinct tokens,
// so whole-token replacement is exact.
func renameFields(data []byte, fieldNames map[string]string) []byte {
	out := string(data)
	for _, old := range model.SortedKeys(fieldNames) {
		token := regexp.MustCompile(`(^|[^A-Za-z0-9_:])` + regexp.QuoteMeta(old) + `([^A-Za-z0-9_:]|$)`)
		// Two passes: adjacent occurrences share a boundary character.
		for range 2 {
			out = token.ReplaceAllString(out, "${1}"+fieldNames[old]+"${2}")
		}
	}
	return []byte(out)
}
