// Serving throughput: token throughput at steady demand, the latency breakdown (queue, prefill,
// decode) and goodput, on every served engine that exports them.
//
// vLLM metric names as of vLLM 0.11 (vllm/v1/metrics/loggers.py and docs/design/metrics.md):
// vllm:generation_tokens_total, vllm:inter_token_latency_seconds (called
// vllm:time_per_output_token_seconds before 0.10), vllm:request_queue_time_seconds,
// vllm:request_prefill_time_seconds, vllm:request_decode_time_seconds.
local e = import '../lib/expr.libsonnet';
local t = import '../lib/test.libsonnet';
{

  thresholds+: {
    // A model's generated tokens per running request falling by more than this share against
    // the baseline window, at steady demand, is a throughput drop.
    throughputDropRatio: 0.2,
    // Demand is steady while running requests stay within this share of the baseline's.
    steadyDemandRatio: 0.2,
  },

  windows+: {
    // Throughput now, against the baseline window just before it.
    throughputNow: '15m',
    throughputBaseline: '45m',
  },

  metrics+: {
    local server = [$.labels.cluster, 'job', 'instance', 'namespace', 'pod', $.inference.modelLabel, $.release.label],
    local vllm = { section: 'vllm' },
    [$.inference.generationTokens]: vllm { type: 'counter', labels: server },
  },

  local l = $.labels,
  local th = $.thresholds,
  local w = $.windows,
  local inf = $.inference,
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
    t.recordCase(
      p.title + ': every observation ' + e.num(seconds) + ' s',
      histogram(p[quantity].name, bounds, seconds, serverOf(engine), p.wholeBound),
      [t.sample(modelLabels { [inf.modelLabel]: modelOf(engine) }, expected)],
      e.fill('round($(record), 0.001)', { record: record }),
    ),

  // The records of this file that read vLLM only before they read every engine.
  lint+: {
    renamed+: {
      'model:vllm_generation_tokens:rate5m': tokens,
      'model:vllm_num_requests_running:sum': running,
      'model:vllm_generation_tokens_per_running_request:ratio_rate5m': perRequest,
      'model:vllm_goodput_tokens:rate5m': goodput,
      'model:vllm_request_queue_time_seconds:p99_rate5m': queueP99,
    } + {
      ['model:vllm_request_' + phase + '_time_seconds:mean_rate5m']: breakdown(phase)
      for phase in std.objectFields(inf.phases)
    },
  },

  records+: {
    [if inf.having('generated') != [] then tokens]: {
      section: 'inference',
      family: 'inference',
      expr: perModel(std.join(' or ', inf.gauges('generated', 'rate(%s[5m])'))),
      // A worker behind a frontend streams its tokens through it: the frontend's count holds
      // them, the worker's is not read.
      tests: [
        t.recordCase('100 tokens/s on ' + p.title + ', as many on its server of role ' + x.name, [
          t.series(p.generated[0].name, '0+6000x60', serverOf(engine)),
          t.series(x.role.name, x.role.values, x.role.labels { [l.cluster]: 'prod' }),
          t.series(p.generated[0].name, '0+6000x60', x.server { [l.cluster]: 'prod' }),
        ], [t.sample(modelLabels { [inf.modelLabel]: modelOf(engine) }, 100)], tokens)
        for engine in inf.having('generated')
        for p in [inf.profiles[engine]]
        for x in inf.scenarioRoles(engine, 'generated')
      ],
    },
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
      ] + good(firstToken, server, th.ttftSeconds, 0.9, whole) + good(gaps, server, th.tpotSeconds, 0.8, whole), [
        t.sample(modelLabels { [inf.modelLabel]: model }, 72),
      ], e.fill('round($(goodput), 0.001)', { goodput: goodput })),
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
      description: 'Model {{ $labels.' + inf.modelLabel + ' }} in {{ $labels.namespace }} (cluster {{ $labels.' + l.cluster + ' }}) generates {{ $value | humanize }} tokens/s per running request over the last ' +
                   w.throughputNow + ', more than ' + e.percent(th.throughputDropRatio) + ' % below the ' + w.throughputBaseline + ' before, while its running requests stayed within ' + e.percent(th.steadyDemandRatio) + ' %.',
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
        meaning: 'The model generates fewer tokens per second per request in flight than in the window before, while the number of requests in flight is about the same: each request decodes more slowly (' + std.join(
          '; ',
          [inf.profiles[x].title + ': ' + inf.profiles[x].generated[0].name + ' over ' + inf.profiles[x].running[0].name for x in decoding],
        ) + ').',
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

  },
}
