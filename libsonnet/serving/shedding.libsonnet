// Load shedding: the share of a namespace's inference requests its engines refuse at admission
// on purpose, apart from the request-error SLO, which leaves them out.
local e = import '../lib/expr.libsonnet';
local t = import '../lib/test.libsonnet';
{
  thresholds+: {
    // The share of a namespace's inference requests its engines refuse at admission (load
    // shedding) that tickets: deliberate, yet users are turned away.
    inferenceShedRatio: 0.05,
  },

  windows+: {
    // The window the share of refused requests is measured over.
    shed: '10m',
  },

  local l = $.labels,
  local th = $.thresholds,
  local w = $.windows,
  local inf = $.inference,

  alerts+: {
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
      ] + [
        // Triton's LLM layout: each request counted by the ensemble and each model it composes;
        // tensorrt_llm's queue policy refuses a fifth, which the ensemble counts as OTHER, twice.
        // The refusals are shed, counted once, and burn no error budget.
        t.case(p.title + ': an ensemble whose composing model refuses a fifth of requests', true, [], extra=[
          t.series(x[0], x[2], server { model: x[1], version: '1' } + (if std.length(x) > 3 then { reason: x[3] } else {}))
          for x in [
            ['nv_inference_request_success', p.ensembles[0], '0+80x60'],
            ['nv_inference_request_failure', p.ensembles[0], '0+40x60', 'OTHER'],
            ['nv_inference_request_success', 'preprocessing', '0+100x60'],
            ['nv_inference_request_success', 'tensorrt_llm', '0+80x60'],
            ['nv_inference_request_failure', 'tensorrt_llm', '0+20x60', 'REJECTED'],
            ['nv_inference_request_success', 'postprocessing', '0+80x60'],
          ]
        ], target={ namespace: 'inference' }, value=0.2)
        for engine in inf.shedding
        if engine == 'triton' && inf.profiles.triton.ensembles != []
        for p in [inf.profiles[engine]]
        for server in [inf.scenarioServer(engine)]
      ],
      runbook: {
        meaning: 'The serving engines of a namespace refuse more than ' + e.percent(th.inferenceShedRatio) + ' % of requests at admission, on purpose: their queue is at the limit they were configured with (' + std.join(
          '; ',
          [inf.profiles[x].title + ': ' + std.join(', ', [r.name + '{' + r.selector + '}' for r in inf.profiles[x].requests.rejected]) for x in inf.shedding],
        ) + ').',
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

  },
}
