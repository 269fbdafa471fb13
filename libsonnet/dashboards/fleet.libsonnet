// L1, the fleet: every cluster at once, from recording rules only; and the node SM-activity
// histogram its heatmap reads.
local e = import '../lib/expr.libsonnet';
local panels = import '../lib/panels.libsonnet';
{
  local p = panels($),
  local thresholdOf = p.thresholdOf,
  local q = p.q,
  local panel = p.panel,
  local ratio = p.ratio,
  local row = p.row,
  local l = $.labels,

  dashboards+: {
    L1: {
      uid: $.deploy.grafana.uidPrefix + '-l1-fleet',
      title: 'GPU fleet',
      description: 'Every cluster at once, from recording rules only.',
      vars: {},
      variables: [],
      links: ['L2'],
      rows: [
        row('Capacity', [
          panel('GPUs allocatable', 'stat', [q('fleet:kube_gpu_allocatable:sum')], width=4),
          panel('GPUs requested by pods', 'stat', [q('fleet:kube_gpu_requested:sum')], width=4),
          panel('GPUs reporting', 'stat', [q('fleet:dcgm_gpus_reporting:count')], width=4),
          panel('GPUs healthy', 'stat', [q('sum(cluster:gpu_healthy:count)')], width=4),
          panel('Allocation', 'stat', [q('fleet:kube_gpu_allocation:ratio')], thresholds=thresholdOf('GPUClusterAllocationHigh', 'cluster:kube_gpu_allocation:ratio'), width=4) + ratio,
          panel('Open alerts by tier', 'stat', [q('count by (severity) (ALERTS{alertstate="firing", family!=""})', '{{severity}}')], width=4),
        ]),
        row('Utilization', [
          panel('SM activity by cluster', 'timeseries', [q('cluster:dcgm_sm_active:avg', '{{' + l.cluster + '}}'), q('fleet:dcgm_sm_active:avg', 'fleet')], description='Share of cycles with work on the SMs: the honest utilization.', drill='L2') + ratio,
          panel('Engine activity and GPU_UTIL', 'timeseries', [q('fleet:dcgm_gr_engine_active:avg', 'graphics engine active'), q(if $.fields.DCGM_FI_DEV_GPU_UTIL.unit == 'percent' then 'fleet:dcgm_gpu_util:avg / 100' else 'fleet:dcgm_gpu_util:avg', 'GPU_UTIL (any kernel running)')], description='GPU_UTIL counts time with any kernel running; a GPU can show 100 % while its SMs are mostly idle.') + ratio,
          panel('Nodes by SM activity', 'heatmap', [q('fleet:dcgm_sm_active_nodes:histogram', '{{le}}')], description='How many nodes run at each SM activity (cumulative buckets).'),
        ]),
        row('Cost', [
          panel('Top idle allocated GPU cost by ' + p.charged.word, 'table', [q(e.fill('topk(10, $(level):gpu_idle_cost_dollars_per_hour:sum)', p.charged))], unit='currencyUSD', description='Dollars per hour of allocated GPU time not used.', drill='L2'),
          panel('GPU cost and idle cost by cluster', 'timeseries', [q('cluster:gpu_cost_dollars_per_hour:sum', '{{' + l.cluster + '}} total'), q('cluster:gpu_idle_cost_dollars_per_hour:sum', '{{' + l.cluster + '}} idle')], unit='currencyUSD', stack=false),
          panel('SLO error budget left (worst series of each SLO)', 'bargauge', [q('min by (slo) (slo:error_budget:remaining)', '{{slo}}')], thresholds=[[null, 'red'], [0, 'orange'], [0.5, 'green']], description='1 is untouched, 0 spent, below 0 overspent.', min=-1, max=1, unit='percentunit'),
        ]),
      ],
    },
  },

  // Node SM activity as cumulative buckets, for the fleet heatmap (a dozen series at any size):
  // counted per cluster (a shard's record on a sharded fleet), added up for the fleet.
  local smBuckets = ['0.1', '0.2', '0.3', '0.4', '0.5', '0.6', '0.7', '0.8', '0.9', '1'],
  local smNodes(record, labels) =
    local t = import '../lib/test.libsonnet';
    local nodeAt(host, value) = t.series('DCGM_FI_PROF_SM_ACTIVE', value + 'x60', t.gpu(l, host, 0));
    t.recordCase('three nodes at 15 %, 45 % and 95 %', [nodeAt('a', 0.15), nodeAt('b', 0.45), nodeAt('c', 0.95)], [
      t.sample(labels { le: b }, if b == '0.1' then 0 else if std.parseJson(b) < 0.45 then 1 else if std.parseJson(b) < 0.95 then 2 else 3)
      for b in smBuckets
    ] + [t.sample(labels { le: '+Inf' }, 3)], record),
  records+: {
    'cluster:dcgm_sm_active_nodes:histogram': {
      local nodes = 'node:dcgm_sm_active:avg',
      // An empty bucket of a cluster reads 0 (its node count times 0), not nothing.
      local bucket(counted, le) = e.fill(|||
        label_replace(count $(by) ($(counted)) or 0 * count $(by) ($(nodes)), "le", "$(le)", "", "")
      |||, { by: e.by([l.cluster]), counted: counted, nodes: nodes, le: le }),
      local atMost(le) = e.fill(|||
        $(nodes) <= $(le)
      |||, { nodes: nodes, le: le }),
      family: 'utilization',
      expr: std.join(' or ', [bucket(atMost(b), b) for b in smBuckets] + [bucket(nodes, '+Inf')]),
      tests: [smNodes('cluster:dcgm_sm_active_nodes:histogram', { [l.cluster]: 'prod' })],
    },
    'fleet:dcgm_sm_active_nodes:histogram': {
      family: 'utilization',
      comments: [
        "The cluster histogram holds node counts, never NaN: pint follows node:dcgm_sm_active:avg's division through count().",
        'pint disable promql/nan',
      ],
      expr: 'sum by (le) (cluster:dcgm_sm_active_nodes:histogram)',
      tests: [smNodes('fleet:dcgm_sm_active_nodes:histogram', {})],
    },
  },
}
