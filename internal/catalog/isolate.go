package catalog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"time"
	"unicode/utf8"
)

// EvaluatorCommand is the hidden first argument under which a gpuobs process evaluates one
// catalog for its parent (see Isolated). A program that loads catalogs with Isolated set must
// hand it to RunEvaluator before anything else (cmd/gpuobs does; so do the CLI's tests).
const EvaluatorCommand = "__gpuobs-evaluate-catalog"

// Limits bound the evaluation of a catalog that may come from anyone (a pull request).
type Limits struct {
	// Timeout is how long the evaluation may run.
	Timeout time.Duration
	// MaxMemoryMiB is how much heap the evaluation may use.
	MaxMemoryMiB int
}

// DefaultLimits leave a realistic catalog (about 150 MiB and well under a second for the
// embedded one) ample room.
var DefaultLimits = Limits{Timeout: time.Minute, MaxMemoryMiB: 2048}

// maxStackBytes bounds the Go stack of an evaluation: Jsonnet's own frame limit does not see
// tail calls (tailstrict), which recurse in Go.
const maxStackBytes = 256 << 20

// Exit codes of the evaluator process besides 0 (JSON on stdout) and 1 (Jsonnet error on
// stderr); the runtime's own crash (stack overflow) exits 2.
const exitMemory = 3

// evaluateIsolated runs Evaluate in a child process of this program, so that a catalog that
// recurses without end, runs too long or uses too much memory ends with an error instead of
// taking gpuobs down.
func evaluateIsolated(opts Options) (string, error) {
	limits := opts.Limits
	if limits == (Limits{}) {
		limits = DefaultLimits
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("evaluating the catalog in its own process: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limits.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, EvaluatorCommand, opts.ConfigPath, opts.ImportRoot, fmt.Sprint(limits.MaxMemoryMiB), opts.CacheDir)
	stdout := &boundedOutput{limit: int64(limits.MaxMemoryMiB) << 20, stop: cancel}
	stderr := &boundedOutput{limit: maxTraceBytes, stop: cancel, tail: true}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case stdout.overflowed:
		return "", Problems{{Message: fmt.Sprintf("evaluating the catalog wrote more than %d MiB of JSON: it may build ever larger values (--eval-max-memory raises the limit)", limits.MaxMemoryMiB)}}
	case stderr.overflowed:
		return "", Problems{{Message: fmt.Sprintf("evaluating the catalog wrote more than %d MiB of trace output (std.trace): gpuobs stopped it", maxTraceBytes>>20)}}
	case err == nil:
		return stdout.String(), nil
	case ctx.Err() != nil:
		return "", Problems{{Message: fmt.Sprintf("evaluating the catalog took longer than %s: it may loop without end (--eval-timeout raises the limit)", limits.Timeout)}}
	case !errors.As(err, &exit):
		return "", fmt.Errorf("evaluating the catalog in its own process: %w", err)
	case exit.ExitCode() == 1:
		return "", Problems{{Message: strings.TrimSpace(stderr.String())}}
	case exit.ExitCode() == exitMemory:
		return "", Problems{{Message: fmt.Sprintf("evaluating the catalog used more than %d MiB of memory: it may build ever larger values (--eval-max-memory raises the limit)", limits.MaxMemoryMiB)}}
	case strings.Contains(stderr.String(), "stack overflow"):
		return "", Problems{{Message: "evaluating the catalog recursed too deeply: a function calls itself without end (tailstrict recursion is not bounded by Jsonnet's stack limit)"}}
	case refusedMemory(stderr.String()):
		return "", errors.New(outOfMemory(limits.MaxMemoryMiB)) // the machine's limit, not the catalog's fault
	}
	return "", fmt.Errorf("evaluating the catalog in its own process: %w: %s", err, excerpt(lastLine(stderr.String())))
}

// refusedMemory reports whether an evaluator's stderr holds the Go runtime's fatal error for
// memory the system refused it ("out of memory", "runtime: cannot allocate memory", "failed
// to reserve page summary memory"): a limit of the machine's, met before gpuobs' own.
func refusedMemory(stderr string) bool {
	for line := range strings.Lines(stderr) {
		if msg, ok := strings.CutPrefix(line, "fatal error: "); ok && strings.Contains(msg, "memory") {
			return true
		}
	}
	return false
}

// outOfMemory says why an evaluator that the system refused memory (the Go runtime's fatal
// "out of memory") stopped below its budget of maxMiB: on a limited address space, how much
// the limit leaves.
func outOfMemory(maxMiB int) string {
	msg := fmt.Sprintf("evaluating the catalog ran out of memory below its limit of %d MiB: the system gave the evaluator no more", maxMiB)
	if limit, ok := addressSpaceLimit(); ok {
		msg += fmt.Sprintf("; the address space is limited to %d MiB (ulimit -v), and a Go program reserves about 1.2 GB of it when it starts: allow gpuobs 2 GB (docs/ci.md)", limit>>20)
	}
	return msg
}

// maxTraceBytes is how much the evaluation may write to its stderr (std.trace's lines, then
// an error): the child is stopped past it.
const maxTraceBytes = 16 << 20

// maxKeptTrace is how much of the end of the evaluation's stderr is kept: its error.
const maxKeptTrace = 64 << 10

// boundedOutput takes a child's output up to limit bytes, then stops the child; with tail
// set, it keeps only the last maxKeptTrace bytes.
type boundedOutput struct {
	limit, written int64
	stop           func()
	tail           bool
	overflowed     bool
	kept           bytes.Buffer // not embedded: io.Copy would use its ReadFrom, past the limit
}

// String is what was kept.
func (b *boundedOutput) String() string { return b.kept.String() }

func (b *boundedOutput) Write(p []byte) (int, error) {
	if b.written += int64(len(p)); b.written > b.limit {
		if !b.overflowed {
			b.overflowed = true
			b.stop()
		}
		return len(p), nil
	}
	b.kept.Write(p)
	if b.tail && b.kept.Len() > 2*maxKeptTrace {
		b.kept.Next(b.kept.Len() - maxKeptTrace)
	}
	return len(p), nil
}

// RunEvaluator is the child side of an isolated evaluation: args are those after
// EvaluatorCommand (catalog path, import root, memory limit in MiB, cache directory). It
// writes the JSON to stdout (and keeps it in the cache directory, if one is given), or a
// Jsonnet error to stderr, and returns the exit code.
func RunEvaluator(args []string, stdout, stderr io.Writer) int {
	if len(args) != 4 {
		fmt.Fprintf(stderr, "%s takes the catalog path, the import root, a memory limit and a cache directory\n", EvaluatorCommand)
		return 1
	}
	var maxMiB int
	if _, err := fmt.Sscan(args[2], &maxMiB); err != nil || maxMiB <= 0 {
		fmt.Fprintf(stderr, "memory limit %q: want a positive number of MiB\n", args[2])
		return 1
	}
	debug.SetMaxStack(maxStackBytes)
	collectLate(maxMiB)
	go watchMemory(uint64(maxMiB) << 20)
	out, err := Evaluate(Options{ConfigPath: args[0], ImportRoot: args[1], CacheDir: args[3]})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if _, err := io.WriteString(stdout, out); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// collectLate has the evaluator's garbage collector wait until the process holds
// lateCollectionMiB, or half the evaluation's budget (maxMiB) if that is less. The process ends
// once the catalog is written out, so an earlier collection only makes room for more of the
// evaluation's own garbage: the embedded catalog's evaluation allocates 166 MB and keeps 29 MB
// (go-jsonnet's lexer alone leaves 32 MB). At gpuobs' GOGC the evaluator collected four times,
// for 7.8 % more CPU and 67 MB less memory (0.331 against 0.305 CPU-s, 128 against 195 MB
// resident: the starter catalog, 40 runs of each alternated). Its first collection hands
// collecting back to gpuobs' GOGC. GOGC or GOMEMLIMIT in the environment decides instead, and
// where the address space is limited (ulimit -v) it collects at gpuobs' GOGC: a heap grown
// before collecting needs more of that space.
func collectLate(maxMiB int) {
	limit, ok := lateCollectionLimit(maxMiB)
	if !ok {
		return
	}
	previousLimit := debug.SetMemoryLimit(limit)
	previousPercent := debug.SetGCPercent(-1) // returns once no collection runs
	go handBackAfterCollecting(previousPercent, previousLimit, gcCycles())
}

// handBackAfterCollecting restores the garbage collector's target percent and memory limit once
// the process has collected more than cycles times: at the limit alone, a catalog whose live
// heap is much of it would collect at every step past it (twice the time to stop a runaway
// value at 256 MiB).
func handBackAfterCollecting(percent int, limit int64, cycles uint64) {
	for range time.Tick(memoryCheckInterval) {
		if gcCycles() > cycles {
			debug.SetGCPercent(percent)
			debug.SetMemoryLimit(limit)
			return
		}
	}
}

// gcCycles is how many collections the process has completed.
func gcCycles() uint64 {
	sample := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

// lateCollectionLimit is the memory limit in bytes at which collectLate has an evaluator of a
// budget of maxMiB collect, and whether it does.
func lateCollectionLimit(maxMiB int) (int64, bool) {
	if _, limited := addressSpaceLimit(); limited || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return 0, false
	}
	return int64(min(maxMiB/2, lateCollectionMiB)) << 20, true
}

// lateCollectionMiB is how much memory the evaluator holds before it collects: three times what
// the embedded catalog's evaluation allocates in all.
const lateCollectionMiB = 512

// memoryCheckInterval is how often the evaluator reads its memory's figures.
const memoryCheckInterval = 20 * time.Millisecond

// watchMemory ends the process when its heap passes max bytes.
func watchMemory(max uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	for range time.Tick(memoryCheckInterval) {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64() > max {
			os.Exit(exitMemory)
		}
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// maxExcerpt is the most of one line of an error message gpuobs prints: a value a catalog
// puts into an error (the content of an imported file) shows only its start.
const maxExcerpt = 200

// excerpt cuts every line of text to maxExcerpt bytes.
func excerpt(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if len(l) > maxExcerpt {
			cut := maxExcerpt
			for cut > 0 && !utf8.RuneStart(l[cut]) {
				cut--
			}
			lines[i] = l[:cut] + fmt.Sprintf("… (%d more bytes)", len(l)-cut)
		}
	}
	return strings.Join(lines, "\n")
}
