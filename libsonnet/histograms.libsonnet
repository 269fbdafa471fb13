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
        local rate = $.inference.without('rate(' + read.name + suffix + (if inside == '' then '' else '{' + inside + '}') + '[' + w + '])', std.get(read, 'unless'));
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
    // count than bounds: the last is above the highest bound) and `sum` seconds. `whole`
    // follows a whole bound in the le label ('.0' as Python's client writes 1.0, '' as Go's
    // and Rust's write 1). gpuobs writes the series out when it reads the catalog
    // (model.HistogramSeries), in the form the servers keep: classic (a cumulative _bucket
    // series per bound and +Inf, _count and _sum) or native (one series with custom buckets,
    // as convert_classic_histograms_to_nhcb makes of the classic one).
    series(metric, labels, bounds, phases, whole='.0'):: [{
      metric: metric,
      labels: labels,
      histogram: { bounds: bounds, phases: [{ minutes: p[0], counts: p[1], sum: p[2] } for p in phases], whole: whole },
    }],
  },
}
