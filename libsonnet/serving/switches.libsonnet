// Fields an engine sends only under a setting beyond the one that turns its metrics on (a
// profile's switches): a server that answers requests without them leaves the queue, KV-cache
// and throughput rules silent on it, and this self-check says so.
local e = import '../lib/expr.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
{
  local l = $.labels,
  local w = $.windows,
  local inf = $.inference,
  local server = [l.cluster, 'namespace', 'pod'],
  local byServer = std.join(', ', server),
  // The served engines' switches: [engine, switch name, { set, fields }].
  local switches = [
    [engine, name, inf.profiles[engine].switches[name]]
    for engine in inf.engines
    if std.objectHas(inf.profiles[engine], 'switches')
    for name in std.objectFields(inf.profiles[engine].switches)
  ],
  // The servers of an engine that generated output tokens over windows.shed (they answer
  // requests), and those that send none of a switch's fields.
  local answering(engine) = e.fill('sum by ($(server)) ($(rates)) > 0', {
    server: byServer,
    rates: std.join(' or ', [e.fill('rate($(series)[$(window)])', { series: inf.seriesOf(engine, r.name, r.selector), window: w.shed }) for r in inf.profiles[engine].generated]),
  }),
  local sending(engine, fields) = e.fill('group by ($(server)) ($(series))', {
    server: byServer,
    series: std.join(' or ', [inf.seriesOf(engine, r.name, r.selector) for f in fields for r in inf.profiles[engine][f]]),
  }),
  local missing(s) = e.fill(|||
    label_replace(label_replace(group by ($(server)) ($(answering)) unless on ($(server)) $(sending), "engine", "$(engine)", "", ""), "switch", "$(switch)", "", "")
  |||, { server: byServer, answering: answering(s[0]), sending: sending(s[0], s[2].fields), engine: s[0], switch: s[1] }),

  alerts+: {
    [if switches != [] then 'GPUInferenceMetricsSwitchedOff']: {
      section: 'inference',
      team: $.teams['ml-platform'],
      family: 'inference',
      severity: 'warning',
      engines:: std.set([s[0] for s in switches]),
      expr: std.join('\nor\n', [missing(s) for s in switches]),
      'for': '30m',
      identity: server + ['engine', 'switch'],
      summary: 'An inference server answers requests without the metrics a setting switches on: the rules on them are blind to it.',
      description: 'Server {{ $labels.pod }} in {{ $labels.namespace }} (cluster {{ $labels.' + l.cluster + ' }}, engine {{ $labels.engine }}) generated output tokens over the last ' + w.shed + ' and sends none of the series its setting {{ $labels.switch }} switches on: the queue, KV-cache and throughput rules cannot see it.',
      tests: [
        c
        for s in switches
        for p in [inf.profiles[s[0]]]
        for srv in [inf.scenarioServer(s[0])]
        for model in [srv { [p.modelLabel]: 'llama-3-8b' } + p.example]
        for answered in [function(values) [t.series(r.name, values, model + r.labels) for r in p.generated]]
        for fields in [[t.series(r.name, '0x60', model + r.labels) for f in s[2].fields for r in p[f]]]
        for c in [
          t.case(p.title + ' answers without ' + s[1], true, [], extra=answered('0+600x60'), target={ namespace: srv.namespace, pod: srv.pod, engine: s[0], switch: s[1] }, value=1),
          t.case(p.title + ' answers with ' + s[1], false, [], extra=answered('0+600x60') + fields),
          t.case(p.title + ' idle without ' + s[1], false, [], extra=answered('5x60')),
        ]
      ],
      runbook: {
        meaning: 'The server generated output tokens (it answers requests), and sends none of the series a setting of its engine switches on: ' + std.join('; ', [
          inf.profiles[s[0]].title + ': ' + s[2].set + ' (' + std.join(', ', [r.name for f in s[2].fields for r in inf.profiles[s[0]][f]]) + ')'
          for s in switches
        ]) + '.',
        impact: "The queue, KV-cache, preemption and throughput alerts and L4's panels on them see nothing of the server: a full KV cache or a growing queue there raises nothing.",
        local here = e.fill('$(cluster)="$$(cluster)", namespace="$namespace", pod="$pod"', { cluster: l.cluster }),
        queries: [
          rb.query('Output tokens the server generated per second', e.fill('sum by ($(server)) ($(rates))', {
            server: byServer,
            rates: std.join(' or ', [e.fill('rate($(name){$(here)}[$(window)])', { name: r.name, here: here, window: w.shed }) for s in switches for r in inf.profiles[s[0]].generated]),
          })),
          rb.query('The switched series it sends (none while the alert fires)', e.fill('{__name__=~"$(names)", $(here)}', {
            names: std.join('|', std.set([r.name for s in switches for f in s[2].fields for r in inf.profiles[s[0]][f]])),
            here: here,
          })),
        ],
        diagnosis: [
          rb.step("Does the server's configuration set the switch the alert names (its switch label)?", 'Its metrics endpoint may not be the one scraped: compare the target with the server.', 'Set it, and restart the server.'),
        ],
        mitigation: ['Set the switch in the deployment (the alert names it) and roll the servers out.'],
        escalation: 'ML platform team.',
        dashboards: ['L4'],
      },
    },
  },
}
