package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpuobs/gpuobs/internal/backtest"
	"github.com/gpuobs/gpuobs/internal/source"
)

type backtestOptions struct {
	Options
	data, base, baseRef, from, to, format string
	interval                              time.Duration
	allowMissing                          bool
}

func newBacktestCommand(opts Options) *cobra.Command {
	o := &backtestOptions{Options: opts}
	cmd := &cobra.Command{
		Use:   "backtest --data TSDB_DIR [--base DIR | --base-ref REF] [DIR | RULE_FILE]",
		Short: "Replay rules over recorded data: how often each alert would have fired, base against head",
		Long: `Backtest replays rules over recorded data with Prometheus' own rule code and query
engine, and reports per alert how often it would have fired: firing episodes (an alert
instance starting to fire), time firing, the instances that fired longest, and pages
(severity critical) and tickets (warning) per day. With --base or --base-ref it replays two
rule sets side by side, the base and DIR (a pull request's output), biggest change first.

The data is a Prometheus TSDB directory of blocks: a snapshot (POST
/api/v1/admin/tsdb/snapshot) or blocks made with promtool tsdb create-blocks-from. It is read
in place; recorded series go to a scratch TSDB that is removed afterwards. DIR is an output
directory (its rules/, recording rules first, the global layer after the shard's) or one rule
file. Each group is evaluated at its interval (--interval for groups that set none), from
--from to --to (RFC 3339; default: the data's whole range); a group after the groups whose
records it reads. Only alerts and the records they read are evaluated. Rules that read metrics the data
has no samples of are refused, listed with the alerts that read them, unless
--allow-missing. Progress goes to stderr.`,
		Example: `  gpuobs backtest --data snapshot/ .
  gpuobs backtest --data snapshot/ --base-ref origin/main --from 2026-11-01T00:00:00Z --to 2026-11-08T00:00:00Z .
  gpuobs backtest --data snapshot/ --base old/ -f markdown new/`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(cmd.Context(), args) },
	}
	cmd.Flags().StringVar(&o.data, "data", "", "Prometheus TSDB directory (blocks) to replay over (required)")
	cmd.Flags().StringVar(&o.base, "base", "", "base output directory or rule file, replayed beside DIR")
	cmd.Flags().StringVar(&o.baseRef, "base-ref", "", "git ref: the base is DIR at this ref")
	cmd.Flags().StringVar(&o.from, "from", "", "start of the replay, RFC 3339 (default: the data's first sample)")
	cmd.Flags().StringVar(&o.to, "to", "", "end of the replay, RFC 3339 (default: the data's last sample)")
	cmd.Flags().DurationVar(&o.interval, "interval", time.Minute, "evaluation interval of groups that set none")
	cmd.Flags().BoolVar(&o.allowMissing, "allow-missing", false, "replay even when the rules read metrics the data lacks (listed as warnings)")
	formatFlag(cmd, &o.format, backtest.Reporters.Formats())
	if err := cmd.MarkFlagRequired("data"); err != nil {
		panic(err)
	}
	cmd.MarkFlagsMutuallyExclusive("base", "base-ref")
	return cmd
}

func (o *backtestOptions) run(ctx context.Context, args []string) error {
	if _, err := backtest.Reporters.Lookup(o.format); err != nil {
		return err
	}
	if o.interval <= 0 {
		return fmt.Errorf("--interval %s: must be positive", o.interval)
	}
	var opts backtest.Options
	for _, t := range []struct {
		flag, value string
		into        *time.Time
	}{{"from", o.from, &opts.From}, {"to", o.to, &opts.To}} {
		if t.value == "" {
			continue
		}
		v, err := time.Parse(time.RFC3339, t.value)
		if err != nil {
			return fmt.Errorf("--%s %q: not an RFC 3339 time (2026-11-01T00:00:00Z)", t.flag, t.value)
		}
		*t.into = v
	}
	opts.Interval, opts.AllowMissing, opts.Progress = o.interval, o.allowMissing, o.Stderr
	head := "."
	if len(args) == 1 {
		head = args[0]
	}
	var sides []backtest.Side
	base := o.base
	if o.baseRef != "" {
		tmp, remove, err := source.FromGit(head, o.baseRef)
		if err != nil {
			return failed(err)
		}
		defer remove()
		base = tmp
	}
	if base != "" {
		files, err := rulesOf(base)
		if err != nil {
			return failed(err)
		}
		name := base
		if o.baseRef != "" {
			name = o.baseRef
		}
		sides = append(sides, backtest.Side{Name: name, Files: files})
	}
	files, err := rulesOf(head)
	if err != nil {
		return failed(err)
	}
	sides = append(sides, backtest.Side{Name: head, Files: files})
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := backtest.Run(ctx, o.data, sides, opts)
	if err != nil {
		return failed(err)
	}
	if err := backtest.Reporters.Write(o.Stdout, o.format, res); err != nil {
		return failed(err)
	}
	return nil
}

// rulesOf is the rule files of an output directory, or a rule file itself.
func rulesOf(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		// A named rule file is held to the link rule before Prometheus' loader, whose YAML
		// errors quote the file, reads it.
		if _, err := source.ReadNamed(path); err != nil {
			return nil, err
		}
		return []string{path}, nil
	}
	rel, err := source.RuleFiles(path)
	if err != nil {
		return nil, err
	}
	if len(rel) == 0 {
		return nil, fmt.Errorf("%s: no rule files under rules/", path)
	}
	out := make([]string, len(rel))
	for i, r := range rel {
		out[i] = filepath.Join(path, filepath.FromSlash(r))
	}
	return out, nil
}
