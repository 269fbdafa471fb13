// Latency histograms (vLLM's) in the form the Prometheus servers keep them:
// prometheus.nativeHistograms false reads the classic series (name_bucket with its le label,
// name_count, name_sum); true reads the native histogram under the bare name, as Prometheus
// keeps it when it scrapes native histograms (scrape_native_histograms) or converts classic
// ones (convert_classic_histograms_to_nhcb) without keeping the classic series.
//
// Every query on a catalog histogram goes through these builders, and so do the series the
// generated promtool tests feed: one catalog switch turns the SLOs, SLIs, records, panels and
// runbooks over together, and generation refuses a read of the form the servers do not keep.
local e = import 'lib/expr.libsonnet';
local t = import 'lib/test.libsonnet';
{
  histograms:: {
    local native = $.prometheus.nativeHistograms,
    local aggregate(by) = if by == [] then 'sum' else 'sum ' + e.by(by),
    // The rate over w of a histogram's series (the native histogram, or its classic series
    // with `suffix`) with the matchers given (a selector's inside, '' for none), summed by
    // `by`; `seconds`, where given, selects the bucket of that bound. `metric` is a name, or
    // names of the same histogram (its current name, then deprecated ones): each server's
    // series is read under the first name it exports. A name may be a read of an engine
    // profile (inference.read): { name, selector: its matchers, relabel: { from, to } where
    // the engine names the model with another label than the rules }.
    local summed(metric, suffix, matchers, by, w, seconds=null) =
      local one(m) =
        local read = if std.isString(m) then { name: m } else m;
        local inside = e.inside(matchers + [std.get(read, 'selector', '')] + (if seconds == null then [] else [bucket(seconds)]));
        local rate = 'rate(' + read.name + suffix + (if inside == '' then '' else '{' + inside + '}') + '[' + w + '])';
        local relabel = std.get(read, 'relabel');
        if relabel == null then rate else 'label_replace(' + rate + ', "' + relabel.to + '", "$1", "' + relabel.from + '", "(.*)")';
      aggregate(by) + ' (' + std.join(' or ', [one(m) for m in (if std.isArray(metric) then metric else [metric])]) + ')',
    local bucket(seconds) = 'le=~"' + e.le(seconds) + '"',

    // Observations per second over w.
    count(metric, by, w, selector=''):: if native then 'histogram_count(' + summed(metric, '', [selector], by, w) + ')'
    else summed(metric, '_count', [selector], by, w),

    // Observations per second over w that took longer than `seconds`. Native: the count
    // times the share above; where nothing was observed the share is NaN, so the count (0)
    // stands in, as the classic difference gives.
    above(metric, seconds, by, w, selector=''):: if native then
      local h = summed(metric, '', [selector], by, w);
      '(histogram_count(' + h + ') > 0) * (1 - histogram_fraction(0, ' + e.num(seconds) + ', ' + h + ')) or histogram_count(' + h + ')'
    else summed(metric, '_count', [selector], by, w) + ' - ' + summed(metric, '_bucket', [selector], by, w, seconds),

    // The share of observations within `seconds` over w.
    within(metric, seconds, by, w, selector=''):: if native then 'histogram_fraction(0, ' + e.num(seconds) + ', ' + summed(metric, '', [selector], by, w) + ')'
    else summed(metric, '_bucket', [selector], by, w, seconds) + ' / ' + summed(metric, '_count', [selector], by, w),

    // The mean observation over w.
    mean(metric, by, w, selector=''):: if native then 'histogram_avg(' + summed(metric, '', [selector], by, w) + ')'
    else summed(metric, '_sum', [selector], by, w) + ' / ' + summed(metric, '_count', [selector], by, w),

    // The q-quantile over w.
    quantile(q, metric, by, w, selector=''):: 'histogram_quantile(' + e.num(q) + ', '
                                              + (if native then summed(metric, '', [selector], by, w) else summed(metric, '_bucket', [selector], by + ['le'], w)) + ')',

    // The series of one histogram for a promtool scenario, sampled once a minute from 0:
    // `bounds` are its bucket bounds in seconds (ascending), and each phase [minutes, counts,
    // sum] adds, every minute for its minutes, counts[i] observations to bucket i (one more
    // count than bounds: the last is above the highest bound) and `sum` seconds. Classic: a
    // cumulative _bucket series per bound (a whole bound's le spelt with `whole` after it:
    // '.0' as Python's client writes 1.0, '' as Go's and Rust's write 1) and +Inf, _count and
    // _sum. Native: one series with custom buckets, as convert_classic_histograms_to_nhcb
    // makes of the classic one.
    series(metric, labels, bounds, phases, whole='.0')::
      // Counts and sums to a millionth, with the fewest decimals (100 × (1 - 0.216) reads
      // 78.4): the whole millionths' digits with the point put in, which is what e.num makes
      // of them at a tenth of its cost (a scenario formats hundreds).
      local n(x) =
        local millionths = std.round(x * 1e6);
        local whole = std.floor(millionths / 1e6);
        local fraction = std.rstripChars(std.substr(std.toString(millionths - whole * 1e6 + 1e6), 1, 6), '0');
        if millionths < 0 || millionths >= 1e15 then e.num(millionths / 1e6)
        else std.toString(whole) + (if fraction == '' then '' else '.' + fraction);
      local buckets = std.length(bounds) + 1;
      local add(a, b) = [a[i] + b[i] for i in std.range(0, buckets)];
      // The histogram's state as [observations in each bucket..., sum]: what each phase adds
      // a minute, and the state at the end of each phase (from empty).
      local perMinute = [p[1] + [p[2]] for p in phases];
      local ends = std.foldl(
        function(acc, i) acc + [add(acc[i], [phases[i][0] * x for x in perMinute[i]])],
        std.range(0, std.length(phases) - 1),
        [std.repeat([0], buckets + 1)],
      );
      // A state's quantities as the series carry them: the observations up to each bound
      // (the last is every observation), then the sum; summed once per state, in order.
      local cumulative(state) = std.foldl(function(acc, i) acc + [acc[i - 1] + state[i]], std.range(1, buckets - 1), [state[0]]) + [state[buckets]];
      // Each phase in promtool notation: its first sample and what each minute adds, per
      // quantity (formatted once, shared by the series), and how many minutes follow.
      local phase = [
        {
          first: [n(q) for q in cumulative(if i == 0 then ends[0] else add(ends[i], perMinute[i]))],
          step: [n(q) for q in cumulative(perMinute[i])],
          times: if i == 0 then phases[0][0] else phases[i][0] - 1,
        }
        for i in std.range(0, std.length(phases) - 1)
      ];
      local notation(q) = std.join(' ', [p.first[q] + '+' + p.step[q] + 'x' + p.times for p in phase]);
      if native then
        local histogram(state) = '{{schema:-53 sum:' + n(state[buckets]) + ' count:' + n(cumulative(state)[buckets - 1])
                                 + ' custom_values:[' + std.join(' ', [n(b) for b in bounds]) + '] buckets:[' + std.join(' ', [n(c) for c in state[0:buckets]]) + ']}}';
        local first = [if i == 0 then ends[0] else add(ends[i], perMinute[i]) for i in std.range(0, std.length(phases) - 1)];
        [
          t.series(
            metric,
            std.join(' ', [histogram(first[i]) + '+' + histogram(perMinute[i]) + 'x' + phase[i].times for i in std.range(0, std.length(phases) - 1)]),
            labels,
          ),
        ]
      else
        local le(b) = if b == std.floor(b) then n(b) + whole else n(b);
        [
          t.series(metric + '_bucket', notation(i), labels { le: le(bounds[i]) })
          for i in std.range(0, std.length(bounds) - 1)
        ] + [
          t.series(metric + '_bucket', notation(buckets - 1), labels { le: '+Inf' }),
          t.series(metric + '_count', notation(buckets - 1), labels),
          t.series(metric + '_sum', notation(buckets), labels),
        ],
  },
}
