// The canary decision a release gate reads: each track's p99 time to first token and request
// error ratio per model, the canary's against the baseline's, graded promote, hold or
// roll back, and the page when it rolls back.
local e = import '../lib/expr.libsonnet';
local t = import '../lib/test.libsonnet';
{
  thresholds+: {
    // Canary against baseline: p99 time to first token ratio and error-ratio increase at which
    // a release holds, and at which it rolls back.
    canaryHoldP99Ratio: 1.1,
    canaryRollbackP99Ratio: 1.5,
    canaryHoldErrorDelta: 0.005,
    canaryRollbackErrorDelta: 0.02,
  },

  local l = $.labels,
  local th = $.thresholds,
  local inf = $.inference,
  local r = $.release,
  local model = [l.cluster, 'namespace', inf.modelLabel],
  local modelLabels = { [l.cluster]: 'prod', namespace: 'inference', [inf.modelLabel]: 'llama-3-8b' },
  local decision = 'model:inference_canary:decision',
  local ttftTrack = 'model_track:inference_time_to_first_token_seconds:p99_rate5m',
  local errorsTrack = 'model_track:inference_request_errors:ratio_rate5m',
  local p99Ratio = 'model:inference_time_to_first_token_seconds:canary_p99_ratio',
  local errorDelta = 'model:inference_request_errors:canary_ratio_delta',
  // The release gate compares the tracks' first tokens where an engine served has the
  // histogram, their errors where one counts its requests per model.
  local canaryLatency = inf.having('timeToFirstToken') != [],
  local canaryErrors = inf.countingPerModel != [],
  // A model's track on an engine's server (in `model`, on `cluster`): a thousand requests a
  // minute, errorsPerThousand of them failing, where the engine counts its requests per model;
  // a hundred first tokens a minute, slowFirstTokens of them over 0.5 s (within 1 s), where
  // it has the histogram.
  local canaryTrack(engine, name, errorsPerThousand, slowFirstTokens, model='llama-3-8b', cluster={}, pod='llm-' + name) =
    local p = inf.profiles[engine];
    local at = inf.scenarioServer(engine, serving=true) + cluster + { pod: pod, [r.label]: name };
    local named(labels) = at + labels + { [p.modelLabel]: model };
    (
      if std.objectHas(p, 'timeToFirstToken') then h.series(
        p.timeToFirstToken.name,
        named({}),
        [0.5, 1],
        [[60, [100 - slowFirstTokens, slowFirstTokens, 0], 50]],
        p.wholeBound,
      ) else []
    )
    + (if std.member(inf.countingPerModel, engine) then [
         t.series(x[0].name, '0+' + x[1] + 'x60', named(x[0].labels))
         for example in [inf.perModel(engine).example]
         for x in [[example.ok, 1000 - errorsPerThousand], [example.failed, errorsPerThousand]]
       ] else []),
  local h = $.histograms,
  // In record cases, each engine's server as it labels its series, serving a model of its own
  // (cases packed together must not read each other's series).
  local modelOf(engine) = 'model-' + engine,

  // The records of this file that read vLLM only before they read every engine.
  lint+: {
    renamed+: {
      'model_track:vllm_time_to_first_token_seconds:p99_rate5m': ttftTrack,
      'model_track:vllm_request_errors:ratio_rate5m': errorsTrack,
      'model:vllm_time_to_first_token_seconds:canary_p99_ratio': p99Ratio,
      'model:vllm_request_errors:canary_ratio_delta': errorDelta,
      'model:vllm_canary:decision': decision,
    },
  },

  records+: {
    // Canary versus baseline, per model: p99 time to first token of each track (every served
    // engine with the histogram) and its request error ratio (every engine counting its
    // requests per model), and the canary's ratio to the baseline.
    local tracks = e.fill(|||
      $(track)=~"$(canary)|$(baseline)"
    |||, { track: r.label, canary: r.canary, baseline: r.baseline }),
    local compare(rec, op) = e.fill(|||
      $(rec){$(track)="$(canary)"} $(op) ignoring ($(track)) $(rec){$(track)="$(baseline)"}
    |||, { rec: rec, op: op, track: r.label, canary: r.canary, baseline: r.baseline }),
    local perTrack = model + [r.label],
    // A case per engine: its baseline's first tokens 90 % within 0.5 s and 1 % of its requests
    // failing; its canary's 50 % and 4 %.
    local canaryCase(engine, record, expected) = t.recordCase(
      inf.profiles[engine].title + ': canary slower in the tail and failing more than the baseline',
      canaryTrack(engine, r.baseline, 10, 10, modelOf(engine), cluster) + canaryTrack(engine, r.canary, 40, 50, modelOf(engine), cluster),
      [t.sample(modelLabels { [inf.modelLabel]: modelOf(engine) }, expected)],
      e.fill('round($(record), 0.001)', { record: record }),
    ),
    local cluster = { [l.cluster]: 'prod' },
    [if canaryLatency then ttftTrack]: {
      section: 'release',
      family: 'release',
      expr: h.quantile(0.99, inf.read('timeToFirstToken'), perTrack, '5m', tracks),
    },
    [if canaryErrors then errorsTrack]: {
      section: 'release',
      family: 'release',
      expr: e.fill(|||
        $(failed) / $(served)
      |||, {
        failed: inf.requestRate(['failed'], inf.countingPerModel, perTrack, '5m', tracks, perModel=true),
        served: inf.requestRate(['served'], inf.countingPerModel, perTrack, '5m', tracks, perModel=true),
      }),
    },
    // Baseline p99 lies in (0.5, 1] s, interpolated at 0.99 of the way: 0.995 s; the canary's
    // p99 in the same bucket at 0.98: 0.99 s.
    [if canaryLatency then p99Ratio]: {
      section: 'release',
      family: 'release',
      expr: compare(ttftTrack, '/'),
      tests: [canaryCase(engine, p99Ratio, t.round3((0.5 + 0.5 * 49 / 50) / (0.5 + 0.5 * 9 / 10))) for engine in inf.having('timeToFirstToken')],
    },
    [if canaryErrors then errorDelta]: {
      section: 'release',
      family: 'release',
      expr: compare(errorsTrack, '-'),
      tests: [canaryCase(engine, errorDelta, 0.03) for engine in inf.countingPerModel],
    },
    // The release gate's decision per model: 0 PROMOTE, 1 HOLD, 2 ROLLBACK; the worse of the
    // p99 time-to-first-token ratio's and the error-ratio increase's, where the engine shows
    // both, else the one it shows.
    [if inf.gated then decision]: {
      section: 'release',
      family: 'release',
      local graded(expr, hold, rollback) = e.fill(|||
        (($(signal) > bool $(hold)) + ($(signal) > bool $(rollback)))
      |||, { signal: expr, hold: e.num(hold), rollback: e.num(rollback) }),
      local latency = graded(p99Ratio, th.canaryHoldP99Ratio, th.canaryRollbackP99Ratio),
      local errors = graded(errorDelta, th.canaryHoldErrorDelta, th.canaryRollbackErrorDelta),
      expr: if !canaryErrors then latency else if !canaryLatency then errors else e.fill(|||
        ($(latency) >= $(errors)) or $(errors) or $(latency)
      |||, { latency: latency, errors: errors }),
    },
  },

  alerts+: {
    // Every served engine the release gate compares.
    [if inf.gated then 'GPUInferenceCanaryRollback']: {
      section: 'release',
      team: $.teams.inference,
      family: 'release',
      severity: 'warning',
      engines:: inf.gating,
      expr: e.fill(|||
        $(decision) == 2
      |||, { decision: decision }),
      'for': '10m',
      identity: model,
      summary: 'A canary release regressed: the release gate says ROLLBACK.',
      description: 'The canary of model {{ $labels.' + inf.modelLabel + ' }} in {{ $labels.namespace }} (cluster {{ $labels.' + l.cluster + ' }}) is worse than its baseline beyond the rollback thresholds (p99 time to first token over ' + e.num(th.canaryRollbackP99Ratio) + '× the baseline, or ' + e.percent(th.canaryRollbackErrorDelta) + ' % more errors).',
      tests:
        local target = { namespace: 'inference', [inf.modelLabel]: 'llama-3-8b' };
        // Where the namespace's error SLO reads the tracks' own counters (an engine whose
        // requests name the model, without modelRequests of their own), the tracks' errors burn
        // its budget too: the SLO alerts that fire at their share of the namespace's requests
        // (each track a thousand a minute), under the catalog's objective and tiers.
        local burns(engine, errorsPerThousand) =
          if std.objectHas(inf.profiles[engine], 'modelRequests') || !std.objectHas($.slos, 'InferenceErrors') then []
          else
            local ratio = std.foldl(function(a, b) a + b, errorsPerThousand, 0) / (1000 * std.length(errorsPerThousand));
            $.sloAlertsFiring('InferenceErrors', ratio, { slo: 'InferenceErrors', namespace: 'inference' });
        [
          c
          for engine in self.engines
          for title in [inf.profiles[engine].title]
          for track in [function(name, errorsPerThousand, slowFirstTokens) canaryTrack(engine, name, errorsPerThousand, slowFirstTokens)]
          for c in (if std.member(inf.countingPerModel, engine) then [
                      t.case(title + ': canary fails 4 % of requests, baseline 0.1 %',
                             true,
                             [],
                             extra=track(r.baseline, 1, 10) + track(r.canary, 40, 10),
                             target=target,
                             value=2,
                             alsoFires=burns(engine, [1, 40])),
                      t.case(title + ': canary 0.6 % worse, HOLD', false, [], extra=track(r.baseline, 1, 10) + track(r.canary, 7, 10), alsoFires=burns(engine, [1, 7])),
                      // Two models in one namespace, each with a canary: the one failing
                      // rolls back, the other's requests do not dilute nor share its errors.
                      local other(name, errors) = canaryTrack(engine, name, errors, 10, 'mistral-7b', pod='llm-mistral-' + name);
                      t.case(title + ': of two models, only the canary failing 4 % rolls back',
                             true,
                             [],
                             extra=track(r.baseline, 1, 10) + track(r.canary, 40, 10) + other(r.baseline, 1) + other(r.canary, 1),
                             target=target,
                             value=2,
                             alsoFires=burns(engine, [1, 40, 1, 1])),
                      t.case(title + ': canary as good as the baseline', false, [], extra=track(r.baseline, 1, 10) + track(r.canary, 1, 10), alsoFires=burns(engine, [1, 1])),
                    ] else [
                      // The baseline's first tokens all within 0.5 s (p99 0.495 s), half the
                      // canary's over it (0.99 s): twice as slow in the tail.
                      t.case(title + ": canary's first tokens twice as slow in the tail", true, [], extra=track(r.baseline, 1, 0) + track(r.canary, 1, 50), target=target, value=2),
                      t.case(title + ': canary as good as the baseline', false, [], extra=track(r.baseline, 1, 10) + track(r.canary, 1, 10)),
                    ])
        ],
      runbook: {
        meaning: 'The canary of a model is worse than the baseline by more than the rollback thresholds: p99 time to first token over ' + e.num(th.canaryRollbackP99Ratio) + '× the baseline, or an error ratio ' + e.percent(th.canaryRollbackErrorDelta) + ' points above it. ' + decision + ' reads 2.',
        impact: 'The canary share of traffic is served worse; promoting it would spread the regression.',
        queries: [
          { title: 'Decision (0 promote, 1 hold, 2 rollback)', expr: e.fill(|||
            $(decision){namespace="$namespace", $(model)="$$(model)"}
          |||, { decision: decision, model: inf.modelLabel }) },
        ] + [
          { title: x[0], expr: e.fill('$(record){namespace="$namespace", $(model)="$$(model)"}', { record: x[1], model: inf.modelLabel }) }
          for x in [['p99 TTFT ratio', p99Ratio, canaryLatency], ['Error ratio increase', errorDelta, canaryErrors]]
          if x[2]
        ],
        diagnosis: [
          { check: 'Do the canary pods run on GPUs with alerts (throttling, XID)?', yes: 'The hardware, not the release: move the canary and compare again.', no: 'The release regressed: roll it back.' },
        ],
        mitigation: ['Roll the canary back (set its traffic share to 0).'],
        escalation: 'The model owners; ML platform team.',
        dashboards: ['L4'],
      },
    },
  },
}
