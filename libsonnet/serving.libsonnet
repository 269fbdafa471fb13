// Serving beyond the SLOs: token throughput at steady demand, the latency breakdown (queue,
// prefill, decode), goodput, the time-per-output-token SLO, and the canary decision a release
// gate reads.
//
// vLLM metric names as of vLLM 0.11 (vllm/v1/metrics/loggers.py and docs/design/metrics.md):
// vllm:generation_tokens_total, vllm:inter_token_latency_seconds (called
// vllm:time_per_output_token_seconds before 0.10), vllm:request_queue_time_seconds,
// vllm:request_prefill_time_seconds, vllm:request_decode_time_seconds.
local e = import 'lib/expr.libsonnet';
local t = import 'lib/test.libsonnet';
{
  inference+:: {
    generationTokens: 'vllm:generation_tokens_total',
    interTokenLatency: 'vllm:inter_token_latency_seconds',
    queueTime: 'vllm:request_queue_time_seconds',
    prefillTime: 'vllm:request_prefill_time_seconds',
    decodeTime: 'vllm:request_decode_time_seconds',
  },

  thresholds+: {
    // A model's generated tokens per running request falling by more than this share against
    // the baseline window, at steady demand, is a throughput drop.
    throughputDropRatio: 0.2,
    // Demand is steady while running requests stay within this share of the baseline's.
    steadyDemandRatio: 0.2,
    // Canary against baseline: p99 time to first token ratio and error-ratio increase at which
    // a release holds, and at which it rolls back.
    canaryHoldP99Ratio: 1.1,
    canaryRollbackP99Ratio: 1.5,
    canaryHoldErrorDelta: 0.005,
    canaryRollbackErrorDelta: 0.02,
    // The latency objectives' thresholds: what a good request is for the SLOs, the goodput
    // record and the L4 panels alike.
    ttftSeconds: 1,
    tpotSeconds: 0.1,
    e2eLatencySeconds: 30,
    // The share of a namespace's inference requests its engines refuse at admission (load
    // shedding) that tickets: deliberate, yet users are turned away.
    inferenceShedRatio: 0.05,
  },

  windows+: {
    // Throughput now, against the baseline window just before it.
    throughputNow: '15m',
    throughputBaseline: '45m',
    // The window the share of refused requests is measured over.
    shed: '10m',
  },

  metrics+: {
    local server = [$.labels.cluster, 'job', 'instance', 'namespace', 'pod', $.inference.modelLabel, $.release.label],
    local vllm = { section: 'vllm' },
    [$.inference.generationTokens]: vllm { type: 'counter', labels: server },
  },

  slos+: {
    // The primer's serving SLIs beyond TTFT: output tokens arrive steadily (one observation per
    // token, so the objective is over tokens, not requests).
    [if $.inference.having('interTokenLatency') != [] then 'InferenceTPOT']: $.latencySLO('interTokenLatency', $.thresholds.tpotSeconds, 'output tokens follow the previous one'),
  },

  local l = $.labels,
  local th = $.thresholds,
  local w = $.windows,
  local inf = $.inference,
  local r = $.release,
  local model = [l.cluster, 'namespace', inf.modelLabel],
  local server = { job: 'vllm', instance: 'llm-0:8000', namespace: 'inference', pod: 'llm-0', [inf.modelLabel]: 'llama-3-8b' },
  local modelLabels = { [l.cluster]: 'prod', namespace: 'inference', [inf.modelLabel]: 'llama-3-8b' },
  // Record cases name their cluster; alert scenarios get theirs.
  local recordServer = server { [l.cluster]: 'prod' },
  local perModel(expr) = e.fill(|||
    sum $(by) ($(query))
  |||, { by: e.by(model), query: expr }),
  local tokens = 'model:inference_generation_tokens:rate5m',
  local running = 'model:inference_requests_running:sum',
  local perRequest = 'model:inference_generation_tokens_per_running_request:ratio_rate5m',
  // The engines served that count their output tokens and show their running requests: the
  // throughput records and alert read them.
  local decoding = inf.decoding,
  local goodput = 'model:inference_goodput_tokens:rate5m',
  local goodputEngines = inf.goodput,
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
  local canaryTrack(engine, name, errorsPerThousand, slowFirstTokens, model='llama-3-8b', cluster={}) =
    local p = inf.profiles[engine];
    local at = inf.scenarioServer(engine, serving=true) + cluster + { pod: 'llm-' + name, [r.label]: name };
    local named(labels) = at + labels + { [p.modelLabel]: model };
    (if std.objectHas(p, 'timeToFirstToken') then h.series(p.timeToFirstToken.name, named({}), [0.5, 1], [[60, [100 - slowFirstTokens, slowFirstTokens, 0], 50]], p.wholeBound) else [])
    + (if std.member(inf.countingPerModel, engine) then [
         t.series(p.requests.example.ok.name, '0+' + (1000 - errorsPerThousand) + 'x60', named(p.requests.example.ok.labels)),
         t.series(p.requests.example.failed.name, '0+' + errorsPerThousand + 'x60', named(p.requests.example.failed.labels)),
       ] else []),
  local h = $.histograms,
  // A share of a histogram's observations within `seconds` over 5m.
  local within(metric, seconds) = h.within(metric, seconds, model, '5m'),
  local mean(metric) = h.mean(metric, model, '5m'),
  // A histogram whose observations all fall between its last two bounds (at or below the
  // only one), 60 a minute, each `seconds`, on a server (whose bounds are spelt with whole).
  local histogram(metric, bounds, seconds, server, whole) =
    h.series(metric, server, bounds, [[60, std.map(function(_) 0, bounds[1:]) + [60, 0], 60 * seconds]], whole),
  // In record cases, each engine's server as it labels its series, serving a model of its own
  // (cases packed together must not read each other's series).
  local modelOf(engine) = 'model-' + engine,
  local serverOf(engine) = inf.scenarioServer(engine, serving=true) { [l.cluster]: 'prod', pod: 'llm-' + engine, [inf.profiles[engine].modelLabel]: modelOf(engine) },
  local breakdown(phase) = 'model:inference_request_' + phase + '_time_seconds:mean_rate5m',
  local queueP99 = 'model:inference_request_queue_time_seconds:p99_rate5m',
  // A record's case on an engine's histogram of a quantity: every observation `seconds`, in
  // the bucket below the last of `bounds`; the record reads `expected`.
  local timed(record, engine, quantity, bounds, seconds, expected) =
    local p = inf.profiles[engine];
    t.recordCase(p.title + ': every observation ' + e.num(seconds) + ' s', histogram(p[quantity].name, bounds, seconds, serverOf(engine), p.wholeBound), [t.sample(modelLabels { [inf.modelLabel]: modelOf(engine) }, expected)], e.fill('round($(record), 0.001)', { record: record })),

  // The records of this file that read vLLM only before they read every engine.
  lint+: {
    renamed+: {
      'model:vllm_generation_tokens:rate5m': tokens,
      'model:vllm_num_requests_running:sum': running,
      'model:vllm_generation_tokens_per_running_request:ratio_rate5m': perRequest,
      'model:vllm_goodput_tokens:rate5m': goodput,
      'model:vllm_request_queue_time_seconds:p99_rate5m': queueP99,
      'model_track:vllm_time_to_first_token_seconds:p99_rate5m': ttftTrack,
      'model_track:vllm_request_errors:ratio_rate5m': errorsTrack,
      'model:vllm_time_to_first_token_seconds:canary_p99_ratio': p99Ratio,
      'model:vllm_request_errors:canary_ratio_delta': errorDelta,
      'model:vllm_canary:decision': decision,
    } + {
      ['model:vllm_request_' + phase + '_time_seconds:mean_rate5m']: breakdown(phase)
      for phase in std.objectFields(inf.phases)
    },
  },

  records+: {
    [if inf.having('generated') != [] then tokens]: { section: 'inference', family: 'inference', expr: perModel(std.join(' or ', inf.gauges('generated', 'rate(%s[5m])'))) },
    // An engine's ranks (SGLang's tensor-parallel ranks: each reports the same batch) count
    // once. Engines asleep (vLLM's sleep mode) are left out: they accept requests without
    // serving them, which would read as requests in flight that decode nothing.
    [if inf.having('running') != [] then running]: { section: 'inference', family: 'inference', expr: perModel(std.join(' or ', inf.gauges('running', inf.onceAcrossRanks, awake=true))) },
    // Decode speed per request in flight: it follows neither the daily traffic curve nor a
    // drop in demand (fewer requests generate fewer tokens together). Tokens over 5m divide by
    // the requests in flight averaged over the same 5m, not by the count at the instant: as
    // demand falls, requests arrive in bursts, and the instants with requests in flight (the
    // only ones a "> 0" keeps) hold more of them than the average, which read as a slowdown.
    [if decoding != [] then perRequest]: { section: 'inference', family: 'inference', expr: e.fill(|||
      $(tokens) / (avg_over_time($(running)[5m]) > 0)
    |||, { tokens: tokens, running: running }) },

  } + {
    // The latency breakdown on L4: mean queue, prefill and decode time per request, of every
    // served engine that times the phase (the profile's queueTime, prefillTime, decodeTime).
    [breakdown(phase)]: {
      section: 'inference',
      family: 'inference',
      expr: mean(inf.read(inf.phases[phase])),
      local example = { queue: [0.5, 0.4], prefill: [0.3, 0.2], decode: [5, 3] }[phase],
      tests: [timed(breakdown(phase), engine, inf.phases[phase], [example[0]], example[1], example[1]) for engine in inf.having(inf.phases[phase])],
    }
    for phase in std.objectFields(inf.phases)
    if inf.having(inf.phases[phase]) != []
  } + {
    // The queue-time SLI: p99 seconds a request waits before it runs.
    [if inf.having('queueTime') != [] then queueP99]: {
      section: 'inference',
      family: 'inference',
      expr: h.quantile(0.99, inf.read('queueTime'), model, '5m'),
      // Every request waits between 0.3 and 0.5 s: p99 interpolates to 0.498 s.
      tests: [timed(queueP99, engine, 'queueTime', [0.3, 0.5], 0.4, 0.498) for engine in inf.having('queueTime')],
    },
  } + {
    // Goodput: generated tokens per second of requests that met their latency objectives, the
    // TTFT SLO's and the TPOT SLO's thresholds, taken as independent (no engine counts both per
    // request): tokens/s × the share of requests with a good first token × the share of
    // inter-token gaps within the TPOT objective (trtllm-serve's: of requests whose mean gap
    // is), for every served engine that counts its tokens and has both histograms.
    [if goodputEngines != [] then goodput]: {
      section: 'inference',
      family: 'inference',
      expr: e.fill(|||
        $(tokens) * on ($(model)) ($(goodFirstTokens)) * on ($(model)) ($(goodGaps))
      |||, { tokens: tokens, model: std.join(', ', model), goodFirstTokens: within(inf.read('timeToFirstToken'), th.ttftSeconds), goodGaps: within(inf.read('interTokenLatency'), th.tpotSeconds) }),
      // 100 tokens/s; 90 % of first tokens and 80 % of inter-token gaps on time: 72 tokens/s.
      // Each engine's server as it labels its series (its own model: a case packed beside
      // another's series must not read those).
      local good(metric, server, seconds, share, whole='.0') = h.series(metric, server, [seconds], [[60, [60 * share, 60 * (1 - share)], 60 * seconds]], whole),
      local case(title, server, model, tokenSeries, firstToken, gaps, whole) = t.recordCase(title, [
        t.series(tokenSeries, '0+6000x60', server),
      ] + good(firstToken, server, th.ttftSeconds, 0.9, whole) + good(gaps, server, th.tpotSeconds, 0.8, whole), [t.sample(modelLabels { [inf.modelLabel]: model }, 72)], e.fill('round($(goodput), 0.001)', { goodput: goodput })),
      tests: (if std.member(goodputEngines, 'vllm') then [
                case('90 % of first tokens and 80 % of gaps on time', recordServer, 'llama-3-8b', inf.generationTokens, inf.ttft, inf.interTokenLatency, '.0'),
                case('an older vLLM: inter-token gaps under the deprecated name', recordServer { pod: 'llm-old', [inf.modelLabel]: 'llama-2-7b' }, 'llama-2-7b', inf.generationTokens, inf.ttft, inf.interTokenLatencyDeprecated, '.0'),
              ] else []) + [
        case('90 % of first tokens and 80 % of gaps on time on ' + p.title, serverOf(engine), modelOf(engine), p.generated[0].name, p.timeToFirstToken.name, p.interTokenLatency.name, p.wholeBound)
        for engine in goodputEngines
        if engine != 'vllm'
        for p in [inf.profiles[engine]]
      ],
    },
  } + {
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
    local canaryCase(engine, record, expected) = t.recordCase(inf.profiles[engine].title + ': canary slower in the tail and failing more than the baseline', canaryTrack(engine, r.baseline, 10, 10, modelOf(engine), cluster) + canaryTrack(engine, r.canary, 40, 50, modelOf(engine), cluster), [t.sample(modelLabels { [inf.modelLabel]: modelOf(engine) }, expected)], e.fill('round($(record), 0.001)', { record: record })),
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
      |||, { failed: inf.requestRate(['failed'], inf.countingPerModel, perTrack, '5m', tracks), served: inf.requestRate(['served'], inf.countingPerModel, perTrack, '5m', tracks) }),
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
    local infId = std.join(', ', model),

    // Every served engine that counts its output tokens and shows its running requests.
    [if decoding != [] then 'GPUInferenceThroughputDrop']: {
      section: 'inference',
      team: $.teams['ml-platform'],
      family: 'inference',
      severity: 'warning',
      engines:: decoding,
      local now(rec) = e.fill(|||
        avg_over_time($(record)[$(window)])
      |||, { record: rec, window: w.throughputNow }),
      local before(rec) = e.fill(|||
        avg_over_time($(record)[$(window)] offset $(offset))
      |||, { record: rec, window: w.throughputBaseline, offset: w.throughputNow }),
      expr: e.fill(|||
        $(speedNow) < $(kept) * $(speedBefore) and on ($(model)) abs($(runningNow) / $(runningBefore) - 1) <= $(steady)
      |||, {
        speedNow: now(perRequest),
        kept: e.num(1 - th.throughputDropRatio),
        speedBefore: before(perRequest),
        model: infId,
        runningNow: now(running),
        runningBefore: before(running),
        steady: e.num(th.steadyDemandRatio),
      }),
      'for': '10m',
      identity: model,
      summary: 'A model generates tokens more slowly at the same demand.',
      description: 'Model {{ $labels.' + inf.modelLabel + ' }} in {{ $labels.namespace }} (cluster {{ $labels.' + l.cluster + ' }}) generates {{ $value | humanize }} tokens/s per running request over the last ' + w.throughputNow + ', more than ' + e.percent(th.throughputDropRatio) + ' % below the ' + w.throughputBaseline + ' before, while its running requests stayed within ' + e.percent(th.steadyDemandRatio) + ' %.',
      tests:
        // The vLLM server also reports the metrics GPUInferenceMetricMissing looks for.
        local series(tokensPerMinute, runningValues) = [
          t.series(inf.generationTokens, tokensPerMinute, server),
          t.series(inf.running, runningValues, server),
          t.series(inf.waiting, '0x60', server),
          t.series(inf.kvCacheUsage, '0.5x60', server),
          t.series(inf.preemptions, '0x60', server),
        ];
        // Tokens per minute: 500/s for 30 minutes, then the given rate.
        local after(rate) = '0+30000x30 ' + (900000 + rate * 60) + '+' + (rate * 60) + 'x29';
        local target = { namespace: 'inference', [inf.modelLabel]: 'llama-3-8b' };
        // Another engine's server, labelled as it writes its series: a read with rank labels
        // (SGLang's running batch) on two ranks.
        local engineSeries(engine, tokensPerMinute, runningValues) =
          local p = inf.profiles[engine];
          local labelled(r, values) = [
            t.series(r.name, values, inf.scenarioServer(engine, serving=true) + rank)
            for rank in [r.labels] + (if r.labels == {} then [] else [{ [k]: '1' for k in std.objectFields(r.labels) }])
          ];
          labelled(p.generated[0], tokensPerMinute) + labelled(p.running[0], runningValues);
        (if std.member(self.engines, 'vllm') then [
           t.case('decode slows at the same demand', true, [], extra=series(after(300), '10x60'), target=target, value=30),
           t.case('demand halves: half the tokens', false, [], extra=series(after(250), '10x30 5x30')),
           t.case('demand grows by half: each request 40 % slower (batching)', false, [], extra=series(after(450), '10x30 15x30')),
           t.case('steady', false, [], extra=series('0+30000x60', '10x60')),
           // The same demand (one request in flight on average) and speed (50 tokens/s each)
           // throughout; in the second half requests come in pairs every other minute.
           t.case('demand turns bursty at the same speed', false, [], extra=series('0+3000x60', '1x30 ' + std.join(' ', std.repeat(['2', '0'], 15)))),
           // Put to sleep (vLLM's sleep mode) after 30 minutes: requests stay in flight, no token
           // is generated, by design.
           local engine(values, state) = t.series(inf.sleepState, values, server { engine: '0', sleep_state: state });
           t.case('the engine is put to sleep', false, [], extra=[
             t.series(x.metric, x.values, x.labels { engine: '0' })
             for x in series('0+30000x30 900000x30', '10x60')
           ] + [engine('1x30 0x30', 'awake'), engine('0x30 1x30', 'weights_offloaded')]),
         ] else []) + [
          c
          for engine in self.engines
          if engine != 'vllm'
          for title in [inf.profiles[engine].title]
          for c in [
            t.case('decode slows at the same demand on ' + title, true, [], extra=engineSeries(engine, after(300), '10x60'), target=target, value=30),
            t.case('demand halves on ' + title, false, [], extra=engineSeries(engine, after(250), '10x30 5x30')),
          ]
        ],
      runbook: {
        meaning: 'The model generates fewer tokens per second per request in flight than in the window before, while the number of requests in flight is about the same: each request decodes more slowly (' + std.join('; ', [inf.profiles[x].title + ': ' + inf.profiles[x].generated[0].name + ' over ' + inf.profiles[x].running[0].name for x in decoding]) + ').',
        impact: 'Responses stream more slowly; the TPOT and latency SLOs burn next.',
        notes: [
          'The baseline is the ' + w.throughputBaseline + ' before the last ' + w.throughputNow + ': a lasting slowdown becomes the new baseline and the alert resolves within about an hour, so act on it while it fires.',
          'Per request means the tokens of the last 5m divided by the requests in flight averaged over the same 5m: falling or bursty demand (requests in pairs, then none) does not read as slower decoding, and the alert stays quiet while demand changes by more than ' + e.percent(th.steadyDemandRatio) + ' %.',
        ],
        queries: [
          { title: 'Tokens per running request', expr: e.fill(|||
            $(record){$(cluster)="$$(cluster)", namespace="$namespace", $(model)="$$(model)"}
          |||, { record: perRequest, cluster: l.cluster, model: inf.modelLabel }) },
          { title: 'Running requests', expr: e.fill(|||
            $(record){$(cluster)="$$(cluster)", namespace="$namespace", $(model)="$$(model)"}
          |||, { record: running, cluster: l.cluster, model: inf.modelLabel }) },
          { title: 'GPU alerts of the serving pods', expr: e.fill(|||
            ALERTS{alertstate="firing", $(cluster)="$$(cluster)", namespace="$namespace"}
          |||, { cluster: l.cluster }) },
        ],
        diagnosis: [
          { check: 'Did a new model version or engine config roll out (canary decision on L4)?', yes: 'Roll it back.', no: '' },
          { check: "Do the pods' GPUs throttle or report errors (GPU alerts, L4 SM activity)?", yes: 'Move the replicas off those GPUs.', no: '' },
          { check: 'Did the prompts get longer (prefill time on L4 up)?', yes: 'Longer prompts decode slower per token: expected; scale out if latency SLOs burn.', no: 'Escalate to the model owners with the L4 breakdown.' },
        ],
        mitigation: ['Roll back the latest model or engine change.', 'Move replicas off degraded GPUs.'],
        escalation: 'ML platform team; the model owners.',
        dashboards: ['L4'],
      },
    },

    // Engines that refuse requests at admission on purpose (inference.shedding): the share
    // refused, apart from the request-error SLO, which leaves them out.
    [if $.inference.shedding != [] then 'GPUInferenceRequestsShed']: {
      local by = [l.cluster, 'namespace'],
      local rate(outcomes, matchers='') = inf.requestRate(outcomes, self.engines, by, w.shed, matchers),
      engines:: inf.shedding,
      section: 'inference',
      team: $.teams['ml-platform'],
      family: 'inference',
      severity: 'warning',
      expr: e.fill(|||
        $(rejected) / $(all) > $(ratio)
      |||, { rejected: rate(['rejected']), all: rate(['rejected', 'served']), ratio: e.num(th.inferenceShedRatio) }),
      'for': '15m',
      identity: by,
      summary: 'Inference servers refuse a share of requests at admission (load shedding).',
      description: 'Inference servers in {{ $labels.namespace }} (cluster {{ $labels.' + l.cluster + ' }}) refused {{ $value | humanizePercentage }} of requests at admission over the last ' + w.shed + ' (threshold ' + e.percent(th.inferenceShedRatio) + ' %): by design, but users are turned away.',
      tests: [
        c
        for engine in inf.shedding
        for p in [inf.profiles[engine]]
        for server in [inf.scenarioServer(engine)]
        for traffic in [function(served, refused) [
          t.series(p.requests.example.ok.name, served, server + p.requests.example.ok.labels),
          t.series(p.requests.example.rejected.name, refused, server + p.requests.example.rejected.labels),
        ]]
        for c in [
          t.case(p.title + ' refuses a fifth of requests', true, [], extra=traffic('0+80x60', '0+20x60'), target={ namespace: 'inference' }, value=0.2),
          t.case(p.title + ' refuses a few requests', false, [], extra=traffic('0+100x60', '0+' + e.num(th.inferenceShedRatio * 50) + 'x60')),
          t.case(p.title + ' refused for the last 10 minutes only', false, [], extra=traffic('0+80x60', '0x50 0+20x10')),
        ]
      ],
      runbook: {
        meaning: 'The serving engines of a namespace refuse more than ' + e.percent(th.inferenceShedRatio) + ' % of requests at admission, on purpose: their queue is at the limit they were configured with (' + std.join('; ', [inf.profiles[x].title + ': ' + std.join(', ', [r.name + '{' + r.selector + '}' for r in inf.profiles[x].requests.rejected]) for x in inf.shedding]) + ').',
        impact: 'Refused requests fail fast for the users (clients retry or give up); they do not burn the request-error SLO, which counts admitted requests only.',
        local blind = [inf.profiles[x].title for x in inf.answering if !std.member(inf.shedding, x)],
        notes: if blind == [] then [] else ['Engines that cannot tell a refusal from a failure (' + std.join(', ', blind) + ') count theirs as failures in the request-error SLO instead.'],
        local here = e.fill(|||
          $(cluster)="$$(cluster)", namespace="$namespace"
        |||, { cluster: l.cluster }),
        queries: [
          { title: 'Share of requests refused', expr: e.fill(|||
            $(rejected) / $(all)
          |||, { rejected: rate(['rejected'], here), all: rate(['rejected', 'served'], here) }) },
          { title: 'Requests refused per second', expr: rate(['rejected'], here) },
        ],
        diagnosis: [
          { check: 'Did traffic rise (requests per second on L4)?', yes: 'Scale out the deployment; check the autoscaler reads queue depth.', no: '' },
          { check: 'Did a replica go down or slow (GPU alerts, throughput drop)?', yes: 'Fix or replace it: the others take its share and reach their limits.', no: 'The admission limit may be set too low for the model: raise it within the latency objectives.' },
        ],
        mitigation: ['Scale out the deployment.', 'Rate-limit low-priority clients upstream.'],
        escalation: 'ML platform team; the owners of the clients sending the traffic.',
        dashboards: ['L4'],
      },
    },

    // Every served engine the release gate compares.
    [if inf.gated then 'GPUInferenceCanaryRollback']: {
      section: 'release',
      team: $.teams.inference,
      family: 'release',
      severity: 'warning',
      engines:: std.set(inf.having('timeToFirstToken') + inf.countingPerModel),
      expr: e.fill(|||
        $(decision) == 2
      |||, { decision: decision }),
      'for': '10m',
      identity: model,
      summary: 'A canary release regressed: the release gate says ROLLBACK.',
      description: 'The canary of model {{ $labels.' + inf.modelLabel + ' }} in {{ $labels.namespace }} (cluster {{ $labels.' + l.cluster + ' }}) is worse than its baseline beyond the rollback thresholds (p99 time to first token over ' + e.num(th.canaryRollbackP99Ratio) + '× the baseline, or ' + e.percent(th.canaryRollbackErrorDelta) + ' % more errors).',
      tests:
        local target = { namespace: 'inference', [inf.modelLabel]: 'llama-3-8b' };
        [
          c
          for engine in self.engines
          for title in [inf.profiles[engine].title]
          for track in [function(name, errorsPerThousand, slowFirstTokens) canaryTrack(engine, name, errorsPerThousand, slowFirstTokens)]
          for c in (if std.member(inf.countingPerModel, engine) then [
                      // The canary's errors burn the model's error budget too (2.05 % of all
                      // requests).
                      t.case(title + ': canary fails 4 % of requests, baseline 0.1 %',
                             true,
                             [],
                             extra=track(r.baseline, 1, 10) + track(r.canary, 40, 10),
                             target=target,
                             value=2,
                             alsoFires=[t.also('SLOInferenceErrorsSlowBurn', 0.0205, target={ slo: 'InferenceErrors', namespace: 'inference' })]),
                      t.case(title + ': canary 0.6 % worse, HOLD', false, [], extra=track(r.baseline, 1, 10) + track(r.canary, 7, 10)),
                    ] else [
                      // The baseline's first tokens all within 0.5 s (p99 0.495 s), half the
                      // canary's over it (0.99 s): twice as slow in the tail.
                      t.case(title + ": canary's first tokens twice as slow in the tail", true, [], extra=track(r.baseline, 1, 0) + track(r.canary, 1, 50), target=target, value=2),
                    ]) + [
            t.case(title + ': canary as good as the baseline', false, [], extra=track(r.baseline, 1, 10) + track(r.canary, 1, 10)),
          ]
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
