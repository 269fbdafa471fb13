// Inference servers as the rules read them (inference: vLLM's metric names, the model label,
// bucket ladders; release: the canary's track label), and their saturation: KV-cache pressure
// with preemptions, a growing queue, and a metric a vLLM release renamed.
local e = import '../lib/expr.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
{
  thresholds+: {
    // KV-cache usage (0-1) above which preemptions mean the cache is too small.
    kvCacheUsageRatio: 0.9,
    // Requests waiting in a vLLM queue that count as a backlog when they keep growing.
    inferenceQueueDepth: 10,
  },

  local l = $.labels,
  local th = $.thresholds,
  local inf = $.inference,

  metrics+: {
    local server = [$.labels.cluster, 'job', 'instance', 'namespace', 'pod', $.inference.modelLabel, $.release.label],
    local vllm = { section: 'vllm' },
    [$.inference.kvCacheUsage]: vllm { type: 'gauge', labels: server },
    [$.inference.kvCacheUsageDeprecated]: vllm { type: 'gauge', labels: server },
    [$.inference.waiting]: vllm { type: 'gauge', labels: server },
    [$.inference.waitingByReason]: vllm { type: 'gauge', labels: server + ['engine', 'reason'] },
    [$.inference.sleepState]: vllm { type: 'gauge', labels: server + ['engine', 'sleep_state'] },
    [$.inference.running]: vllm { type: 'gauge', labels: server },
    [$.inference.preemptions]: vllm { type: 'counter', labels: server },
    // The API server's HTTP counter names no model (engines/vllm.libsonnet).
    [$.inference.requests]: vllm { type: 'counter', labels: [$.labels.cluster, 'job', 'instance', 'namespace', 'pod', $.release.label, 'handler', 'method', 'status'] },
    [$.inference.requestsFinished]: vllm { type: 'counter', labels: server + ['engine', 'finished_reason'] },
  },

  alerts+: {
    local mlp = { team: $.teams['ml-platform'] },
    // Runbook parts; the steps alerts of several families share come from lib/runbook.libsonnet.
    local q = rb.query,
    local step = rb.step,
    local is = rb.is,

    local vllm(pod, extra={}) = { namespace: 'inference', pod: pod, [inf.modelLabel]: 'llama-3-8b', job: 'vllm', instance: pod + ':8000' } + extra,
    local infId = std.join(', ', inf.identity),
    local infText = 'vLLM {{ $labels.namespace }}/{{ $labels.pod }} serving {{ $labels.' + inf.modelLabel + ' }}',
    local target = { namespace: 'inference', pod: 'llm-0', [inf.modelLabel]: 'llama-3-8b' },

    local inferenceRunbook(meaning, impact, queries, diagnosis, mitigation) = {
      meaning: meaning,
      impact: impact,
      queries: queries,
      diagnosis: diagnosis,
      mitigation: mitigation,
      escalation: rb.escalation.mlPlatform,
      dashboards: ['L4'],
    },
    local serverMatchers = e.fill('$(cluster), namespace="$namespace", pod="$pod"', { cluster: is(l.cluster) }),
    local serverSel = e.fill('{$(serverMatchers)}', { serverMatchers: serverMatchers }),

    // Every served engine that shows both its KV cache's used share and its preemptions
    // (inference.gauges): a counter's increase, or a level's highest reading, over 10m.
    local preempted(r) = if r.type == 'counter' then 'increase(%s[10m])' else 'max_over_time(%s[10m])',
    [if inf.showing(inf.feeding.GPUInferenceKVCachePressure) != [] then 'GPUInferenceKVCachePressure']: mlp {
      panelThresholds:: { kvCache: th.kvCacheUsageRatio },
      section: 'inference',
      family: 'inference',
      severity: 'warning',
      engines:: inf.showing(inf.feeding.GPUInferenceKVCachePressure),
      local perServer(field, f, awake=false) = std.join(' or ', [
        e.fill('max by ($(server)) ($(series))', { server: infId, series: g })
        for g in inf.gauges(field, f, awake=awake)
      ]),
      expr: e.fill(|||
        ($(usage)) > $(threshold) and on ($(server)) ($(preempting)) > 0
      |||, { server: infId, usage: perServer('kvCache', 'avg_over_time(%s[10m])', awake=true), threshold: std.toString(th.kvCacheUsageRatio), preempting: perServer('preemptions', preempted) }),
      'for': '10m',
      identity: inf.identity,
      summary: 'An inference server runs out of KV cache and preempts requests.',
      description: 'Inference server {{ $labels.namespace }}/{{ $labels.pod }} serving {{ $labels.' + inf.modelLabel + ' }} uses {{ $value | humanizePercentage }} of its KV cache and is preempting requests, which recomputes them and raises latency.',
      tests:
        local full = (1 + th.kvCacheUsageRatio) / 2;
        (if std.member(self.engines, 'vllm') then [
           t.case('full cache, preempting', true, [], extra=[t.series(inf.kvCacheUsage, full + 'x60', vllm('llm-0')), t.series(inf.preemptions, '0+2x60', vllm('llm-0'))], target=target, value=full),
           t.case('full cache, no preemptions', false, [], extra=[t.series(inf.kvCacheUsage, full + 'x60', vllm('llm-0')), t.series(inf.preemptions, '3x60', vllm('llm-0'))]),
           t.case('preempting for the last 10 minutes', false, [], extra=[t.series(inf.kvCacheUsage, full + 'x60', vllm('llm-0')), t.series(inf.preemptions, '0x50 0+2x10', vllm('llm-0'))]),
           // Asleep for the last 20 minutes (weights offloaded): the gauge keeps its last reading.
           t.case('an engine put to sleep keeps its last reading', false, [], extra=[
             t.series(inf.kvCacheUsage, full + 'x60', vllm('llm-0', { engine: '0' })),
             t.series(inf.preemptions, '0+2x60', vllm('llm-0', { engine: '0' })),
             t.series(inf.sleepState, '1x40 0x20', vllm('llm-0', { engine: '0', sleep_state: 'awake' })),
             t.series(inf.sleepState, '0x40 1x20', vllm('llm-0', { engine: '0', sleep_state: 'weights_offloaded' })),
           ]),
           t.case('full cache, preempting, the engine awake', true, [], extra=[
             t.series(inf.kvCacheUsage, full + 'x60', vllm('llm-0', { engine: '0' })),
             t.series(inf.preemptions, '0+2x60', vllm('llm-0', { engine: '0' })),
             t.series(inf.sleepState, '1x60', vllm('llm-0', { engine: '0', sleep_state: 'awake' })),
           ], target=target, value=full),
           t.case(
             'a vLLM older than 0.10 (the deprecated gauge), full, preempting',
             true,
             [],
             extra=[t.series(inf.kvCacheUsageDeprecated, full + 'x60', vllm('llm-0')), t.series(inf.preemptions, '0+2x60', vllm('llm-0'))],
             target=target,
             value=full,
           ),
           t.case(
             'the deprecated gauge is read only where the current one is missing',
             false,
             [],
             extra=[
               t.series(inf.kvCacheUsage, '0.5x60', vllm('llm-0')),
               t.series(inf.kvCacheUsageDeprecated, full + 'x60', vllm('llm-0')),
               t.series(inf.preemptions, '0+2x60', vllm('llm-0')),
             ],
           ),
         ] else [])
        // A counter of preemptions rises by 2 a minute (or stays at 3), a level reads 2
        // requests paused (or none).
        + local preemptions(r, yes) = if r.type == 'counter' then (if yes then '0+2x60' else '3x60') else (if yes then '2x60' else '0x60');
        [
          // Every other engine, on its own series.
          c
          for engine in self.engines
          if engine != 'vllm'
          for p in [inf.profiles[engine]]
          for series in [function(r, values) t.series(r.name, values, inf.scenarioServer(engine, serving=true) + r.labels)]
          for preempting in [function(yes) series(p.preemptions[0], preemptions(p.preemptions[0], yes))]
          for c in [
            t.case('full cache, preempting on ' + p.title, true, [], extra=[series(p.kvCache[0], full + 'x60'), preempting(true)], target=target, value=full),
            t.case('full cache, no preemptions on ' + p.title, false, [], extra=[series(p.kvCache[0], full + 'x60'), preempting(false)]),
          ]
        ] + [
          // A server of a role read for the KV cache (a worker behind a frontend), alone.
          t.case('full cache, preempting on a ' + p.title + ' server of role ' + x.name, true, [], extra=[
            t.series(x.role.name, x.role.values, x.role.labels),
            series(p.kvCache[0], full + 'x60'),
            series(p.preemptions[0], preemptions(p.preemptions[0], true)),
          ], target=target { namespace: x.server.namespace, pod: x.server.pod }, value=full)
          for engine in self.engines
          for p in [inf.profiles[engine]]
          for x in inf.scenarioRoles(engine, 'kvCache', leaving=false)
          for series in [function(r, values) t.series(r.name, values, x.server + r.labels)]
        ],
      runbook: inferenceRunbook(
        'An inference server has kept its KV cache over ' + e.percent($.thresholds.kvCacheUsageRatio) + ' % full for ' + $.alerts.GPUInferenceKVCachePressure['for'] + ' and preempts requests (' + std.join(
          '; ',
          [inf.profiles[x].title + ': ' + std.join(' and ', [r.name for r in inf.profiles[x].kvCache[0:1] + inf.profiles[x].preemptions]) for x in self.engines],
        ) + ').',
        'Preempted requests are recomputed: time to first token and latency rise; throughput falls.',
        [
          q('KV-cache usage', std.join(' or ', inf.gauges('kvCache', matchers=serverMatchers))),
          q('Preemptions per minute (a counter), or requests paused (a level)', std.join(' or ', inf.gauges('preemptions', function(r) if r.type == 'counter' then '60 * rate(%s[5m])' else '%s', matchers=serverMatchers))),
          q('Waiting requests', std.join(' or ', inf.gauges('waiting', matchers=serverMatchers))),
        ],
        [
          step('Did traffic or prompt length rise?', 'Scale out replicas.'),
          step("Was the engine's batch size or memory share changed in a recent release (vLLM's max-num-seqs, gpu-memory-utilization; SGLang's max-running-requests, mem-fraction-static)?", 'Roll back the configuration.', 'Give the model more KV cache (larger GPU, tensor parallelism, quantised KV cache).'),
        ],
        ['Scale out the deployment.', 'Lower the batch size or raise the memory share of the KV cache, within memory limits.'],
      ),
    },

    // Every served engine's waiting queue (inference.gauges('waiting')), each server's read
    // under the first of its engine's reads it exports.
    [if inf.showing(inf.feeding.GPUInferenceQueueGrowing) != [] then 'GPUInferenceQueueGrowing']: mlp {
      panelThresholds:: { waiting: th.inferenceQueueDepth },
      section: 'inference',
      family: 'inference',
      severity: 'warning',
      engines:: inf.showing(inf.feeding.GPUInferenceQueueGrowing),
      local waiting(f) = std.join(' or ', [
        e.fill('max by ($(server)) ($(series))', { server: infId, series: g })
        for g in inf.gauges('waiting', f)
      ]),
      expr: e.fill(|||
        ($(now)) > $(depth)
        and on ($(server))
        ($(growing)) > 0
      |||, { server: infId, now: waiting('%s'), growing: waiting('deriv(%s[10m])'), depth: std.toString(th.inferenceQueueDepth) }),
      'for': '10m',
      identity: inf.identity,
      summary: 'Requests keep piling up in an inference server queue.',
      description: 'Inference server {{ $labels.namespace }}/{{ $labels.pod }} serving {{ $labels.' + inf.modelLabel + ' }} has {{ $value }} requests waiting and the queue keeps growing: add replicas or shed load.',
      tests:
        local depth = th.inferenceQueueDepth;
        // vLLM 0.20 and later: the whole count includes requests the scheduler parked.
        local byReason(capacity, deferred) = [
          t.series(inf.waiting, '0+' + (capacity + deferred) + 'x60', vllm('llm-0')),
          t.series(inf.waitingByReason, '0+' + capacity + 'x60', vllm('llm-0') { engine: '0', reason: 'capacity' }),
          t.series(inf.waitingByReason, '0+' + deferred + 'x60', vllm('llm-0') { engine: '0', reason: 'deferred' }),
        ];
        (if std.member(self.engines, 'vllm') then [
           t.case('queue growing', true, [], extra=[t.series(inf.waiting, '0+' + depth / 10 + 'x60', vllm('llm-0'))], target=target, value=6 * depth),
           t.case('deep but steady queue', false, [], extra=[t.series(inf.waiting, (3 * depth) + 'x60', vllm('llm-0'))]),
           t.case('short queue growing', false, [], extra=[t.series(inf.waiting, '0+' + depth / 100 + 'x60', vllm('llm-0'))]),
           t.case('queue growing for the last 5 minutes', false, [], extra=[t.series(inf.waiting, '0x55 0+' + (3 * depth) + 'x5', vllm('llm-0'))]),
           t.case('deferred requests pile up, the capacity queue stays short', false, [], extra=byReason(depth / 100, depth / 10)),
           t.case('the capacity queue grows, deferred requests beside it', true, [], extra=byReason(depth / 10, depth / 10), target=target, value=6 * depth),
         ] else []) + [
          // Every other engine, on its own gauge, labelled as it writes it.
          c
          for engine in self.engines
          if engine != 'vllm'
          for p in [inf.profiles[engine]]
          for queue in [function(values) t.series(p.waiting[0].name, values, inf.scenarioServer(engine, serving=true) + p.waiting[0].labels)]
          for c in [
            t.case('queue growing on ' + p.title, true, [], extra=[queue('0+' + depth / 10 + 'x60')], target=target, value=6 * depth),
            t.case('deep but steady queue on ' + p.title, false, [], extra=[queue((3 * depth) + 'x60')]),
          ]
        ],
      runbook: inferenceRunbook(
        "Requests keep piling up in an inference server's waiting queue: " + std.join(
          '; ',
          [
            inf.profiles[x].title + ': ' + std.join(
              ', then ',
              [r.name + (if r.selector == '' then '' else '{' + r.selector + '}') for r in inf.profiles[x].waiting],
            )
            for x in self.engines
          ],
        ) + '.'
        + (if std.member(self.engines, 'vllm') then " vLLM's capacity queue (vLLM 0.20 and later) holds the requests waiting for room in the running batch; on older versions the whole count is read, which also holds requests the scheduler parked on purpose (a grammar, remote KV, a LoRA slot)." else ''),
        'Queued requests wait before their first token: the TTFT SLO burns.',
        [
          q('Waiting requests', std.join(' or ', [e.fill('sum($(x))', { x: x }) for x in inf.gauges('waiting', matchers=serverMatchers)])),
        ] + (if std.member(self.engines, 'vllm') then [
               q('Waiting requests, by reason where vLLM splits them', e.fill('sum by (reason) ($(waitingByReason)$(serverSel)) or sum($(waiting)$(serverSel))', { waitingByReason: $.inference.waitingByReason, serverSel: serverSel, waiting: $.inference.waiting })),
               q('Queue time p99', $.histograms.quantile(0.99, $.inference.queueTime, [], '5m', serverMatchers)),
             ] else []) + [
          q('TTFT SLO burn', 'slo:error_budget:burn_rate{slo="InferenceTTFT", namespace="$namespace"}'),
        ],
        [
          step('Did incoming traffic grow?', 'Scale out; check the autoscaler.', 'A slow replica: check its GPU (throttling, errors) on the L4 dashboard.'),
        ],
        ['Scale out the deployment.', 'Shed or rate-limit low-priority traffic.'],
      ),
    },

    // A vLLM server that serves (reports its running requests) but not a metric the rules read
    // under its configured name (nor, for the KV cache, its deprecated one): a vLLM release
    // renamed it, and every rule on it went silent. Histograms are left out: they appear only
    // with the first request. Each is named by its configured name.
    local vllmSeries(name) = inf.seriesOf('vllm', name),
    local guarded = { [inf.kvCacheUsage]: inf.kvCache(vllmSeries), [inf.waiting]: vllmSeries(inf.waiting), [inf.preemptions]: vllmSeries(inf.preemptions) },
    GPUInferenceMetricMissing: mlp {
      section: 'vllm',
      family: 'inference',
      severity: 'warning',
      expr: std.join(' or ', [
        e.fill(|||
          label_replace(group by ($(server)) ($(running)) unless on ($(server)) group by ($(server)) ($(read)), "metric", "$(metric)", "", "")
        |||, { server: infId, running: vllmSeries(inf.running), metric: m, read: guarded[m] })
        for m in std.objectFields(guarded)
      ]),
      'for': '30m',
      identity: inf.identity + ['metric'],
      summary: 'An inference server does not export a metric the rules read: they are silent for it.',
      description: infText + ' reports ' + inf.running + ' but not {{ $labels.metric }}: its vLLM version may have renamed it; set inference.' + '{kvCacheUsage, waiting, preemptions} in the catalog to the name it exports.',
      tests: [
        t.case('vLLM renamed the KV cache gauge', true, [], extra=[
          t.series(inf.running, '2x60', vllm('llm-0')),
          t.series(inf.waiting, '0x60', vllm('llm-0')),
          t.series(inf.preemptions, '0x60', vllm('llm-0')),
          t.series('vllm:kv_cache_usage_ratio', '0.5x60', vllm('llm-0')),
        ], target=target, labels={ metric: inf.kvCacheUsage }, value=1),
        t.case('every metric under its configured name', false, [], extra=[t.series(m, '1x60', vllm('llm-0')) for m in [inf.running] + std.objectFields(guarded)]),
        t.case('an older vLLM exports the KV cache gauge under its deprecated name', false, [], extra=[t.series(m, '1x60', vllm('llm-0')) for m in [inf.running, inf.waiting, inf.preemptions, inf.kvCacheUsageDeprecated]]),
      ],
      runbook: inferenceRunbook(
        'A vLLM server reports ' + $.inference.running + ' but not a metric the generated rules read under its configured name (the alert names it).',
        'Every rule, SLO and alert on that metric is silent for the server: a KV cache full, a queue growing or preemptions go unnoticed.',
        [
          q('What the server exports', e.fill('count by (__name__) ({__name__=~"vllm:.*", $(cluster), namespace="$namespace", pod="$pod"})', { cluster: is(l.cluster) })),
        ],
        [
          step('Does the server export the metric under another name (vLLM renames them between releases)?', 'Set the new name in the catalog (inference: kvCacheUsage, waiting, preemptions) and regenerate.', 'The metrics endpoint may be filtered (relabeling drops it): check the scrape config.'),
        ],
        ['Point the catalog at the names your vLLM version exports, regenerate and deploy the rules.'],
      ),
    },

  },
}
