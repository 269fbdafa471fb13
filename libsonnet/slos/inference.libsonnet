// The inference SLOs: first tokens and whole requests within their latency thresholds, and
// requests the servers admitted that did not fail on their side.
local e = import '../lib/expr.libsonnet';
local t = import '../lib/test.libsonnet';
{
  thresholds+: {
    // The latency objectives' thresholds: what a good request is for the SLOs, the goodput
    // record and the L4 panels alike.
    ttftSeconds: 1,
    tpotSeconds: 0.1,
    e2eLatencySeconds: 30,
  },

  // An inference SLO on a latency histogram of the engines served (inference.read of
  // `quantity`): good requests finish within `seconds`, which must be a bound of every
  // engine's ladder.
  latencySLO(quantity, seconds, what):: $.sloDefaults {
    section: 'inference',
    seconds:: seconds,
    team: $.teams.inference,
    requestBased:: true,
    objective: 0.99,
    description: e.percent(self.objective) + ' % of ' + what + ' within ' + e.num(seconds) + ' s',
    by: [l.cluster, 'namespace', $.inference.modelLabel],
    local read = $.inference.read(quantity),
    // The engines whose scenarios the SLO's alerts play, the first also its record cases.
    engines:: $.inference.having(quantity),
    local first = $.inference.profiles[self.engines[0]][quantity],
    // The first engine's histogram, and its name in older engine releases (read where a
    // server does not export the current one), for a record case of an older server.
    metric:: first.name,
    deprecated:: std.get(first, 'deprecated'),
    badEvents(w):: $.histograms.above(read, seconds, self.by, w),
    events(w):: $.histograms.count(read, self.by, w),
    scenario(bad, idleAfter=60, engine=self.engines[0]):: {
      local p = $.inference.profiles[engine],
      local metric = p[quantity].name,
      local server = $.inference.scenarioServer(engine, serving=true),
      target: { namespace: 'inference', [$.inference.modelLabel]: 'llama-3-8b' },
      gpus: 1,
      value: if bad == 'burst' then null else bad,
      // 100 requests a minute, each taking the threshold (good) or twice it (bad), in the
      // buckets of the engine's own ladder (its profile's buckets) where the threshold is one
      // of its bounds, as the engine exposes them, else of the threshold alone; the classic
      // bucket of a whole number is spelt as the engine's client does (1.0 in Python, 1 in
      // Rust), which the matcher must take both of.
      local known = p[quantity].buckets,
      local ladder = if std.member(known, seconds) then known else [seconds],
      local bucketOf(v) = std.length([b for b in ladder if b < v]),
      local goodBucket = bucketOf(seconds),
      local badBucket = bucketOf(2 * seconds),
      // (The buckets around the two are the same zeros in every phase: built once, shared.)
      local zeros(n) = std.makeArray(n, function(_) 0),
      local below = zeros(goodBucket),
      local between = zeros(badBucket - goodBucket - 1),
      local above = zeros(std.length(ladder) - badBucket),
      local request(good, bad) = [below + [good] + between + [bad] + above, seconds * (good + 2 * bad)],
      // Servers of a role that sees the same requests (a prefill server beside the decode
      // one) observe each of them as good: counted, they would halve the bad share.
      local roles = $.inference.scenarioRoles(engine, quantity),
      extra: $.histograms.series(metric, server, ladder, if bad == 'burst' then [[59] + request(100, 0), [1] + request(0, 100)]
      else [[std.min(idleAfter, 60)] + request(100 * (1 - bad), 100 * bad)] + (
        if idleAfter < 60 then [[60 - idleAfter] + request(0, 0)] else []
      ), p.wholeBound) + std.flattenArrays([
        [t.series(x.role.name, x.role.values, x.role.labels)] + $.histograms.series(metric, x.server, ladder, [[60] + request(100, 0)], p.wholeBound)
        for x in roles
      ]),
    },
  },

  local l = $.labels,
  local inf = $.inference,

  slos+: {
    // The primer's serving SLIs beyond TTFT: output tokens arrive steadily (one observation per
    // token, so the objective is over tokens, not requests).
    [if $.inference.showing($.inference.feeding.InferenceTPOT) != [] then 'InferenceTPOT']: $.latencySLO('interTokenLatency', $.thresholds.tpotSeconds, 'output tokens follow the previous one'),
    [if $.inference.showing($.inference.feeding.InferenceTTFT) != [] then 'InferenceTTFT']: $.latencySLO('timeToFirstToken', $.thresholds.ttftSeconds, 'requests get their first token'),
    [if $.inference.showing($.inference.feeding.InferenceLatency) != [] then 'InferenceLatency']: $.latencySLO('requestLatency', $.thresholds.e2eLatencySeconds, 'requests complete'),

    // The requests the servers admitted that failed on their side, across the engines served
    // that count their requests (inference.answering). Requests an engine refused at
    // admission on purpose are neither good nor bad here: GPUInferenceRequestsShed tickets
    // them.
    [if $.inference.showing($.inference.feeding.InferenceErrors) != [] then 'InferenceErrors']: $.sloDefaults {
      section: 'inference',
      team: $.teams.inference,
      requestBased:: true,
      objective: 0.995,
      description: e.percent(self.objective) + ' % of admitted inference requests succeed (no server error)',
      by: [l.cluster, 'namespace'],
      engines:: $.inference.answering,
      badEvents(w):: inf.requestRate(['failed'], self.engines, self.by, w),
      events(w):: inf.requestRate(['served'], self.engines, self.by, w),
      // 100 admitted requests a minute, a share `bad` of them failing, on the engine's own
      // counters; an engine that tells rejections apart also refuses 100 a minute throughout
      // (but in a burst).
      scenario(bad, idleAfter=60, engine=self.engines[0]):: {
        local p = $.inference.profiles[engine],
        local server = $.inference.scenarioServer(engine),
        local series(o, values) = t.series(o.name, values, server + o.labels),
        target: { namespace: 'inference' },
        gpus: 1,
        value: if bad == 'burst' then null else bad,
        // Servers of a role that sees the same requests answer all of them.
        local roles = $.inference.scenarioRoles(engine, 'requests'),
        extra: [
          series(p.requests.example.ok, if bad == 'burst' then '0+100x59 5900' else t.risingFor(100 * (1 - bad), idleAfter)),
          series(p.requests.example.failed, if bad == 'burst' then '0x59 100' else t.risingFor(100 * bad, idleAfter)),
        ] + (if shedding then [series(p.requests.example.rejected, t.risingFor(100, idleAfter))] else []) + std.flattenArrays([
          [
            t.series(x.role.name, x.role.values, x.role.labels),
            t.series(p.requests.example.ok.name, t.risingFor(100, idleAfter), x.target + p.requests.example.ok.labels),
          ]
          for x in roles
        ]),
        // Refusing as many requests as it admits, the engine's servers shed half of them (not
        // in a burst, whose last minute's rates are extrapolated apart).
        local shedding = p.requests.rejected != [] && bad != 'burst',
        alsoFires: if shedding then [t.also('GPUInferenceRequestsShed', 0.5, target=self.target)] else [],
      },
    },
  },
}
