// L2, a cluster: capacity, allocation, scheduling and health, from recording rules only.
local e = import '../lib/expr.libsonnet';
local names = import '../lib/names.libsonnet';
local panels = import '../lib/panels.libsonnet';
{
  local p = panels($),
  local thresholdOf = p.thresholdOf,
  local fill = p.fill,
  local q = p.q,
  local panel = p.panel,
  local count = p.count,
  local ratio = p.ratio,
  local row = p.row,
  local clusterVar = p.clusterVar,
  local l = $.labels,
  local th = $.thresholds,
  local inf = $.inference,

  dashboards+: {
    L2: {
      uid: $.deploy.grafana.uidPrefix + '-l2-cluster',
      title: 'GPU cluster',
      description: 'One cluster: allocation, fragmentation, health, SLOs; recording rules only.',
      vars: { cluster: l.cluster },
      variables: [clusterVar],
      links: ['L1', 'L3', 'L4'],
      local freePerNode = fill('node:kube_gpu_allocatable:sum{$(cluster)} - (node:kube_gpu_requested:sum{$(cluster)} or node:kube_gpu_allocatable:sum{$(cluster)} * 0)'),
      rows: [
        row('Allocation', [
          panel('Allocation', 'stat', [q(fill('cluster:kube_gpu_allocation:ratio{$(cluster)}'))], thresholds=thresholdOf('GPUClusterAllocationHigh', 'cluster:kube_gpu_allocation:ratio'), width=4) + ratio,
          panel('GPUs allocatable / requested / healthy', 'stat', [q(fill('cluster:kube_gpu_allocatable:sum{$(cluster)}'), 'allocatable'), q(fill('cluster:kube_gpu_requested:sum{$(cluster)}'), 'requested'), q(fill('cluster:gpu_healthy:count{$(cluster)}'), 'healthy')], width=8),
        ] + (if $.scheduler == 'slurm' then [
               // A Slurm fleet's jobs, users and accounts (slurm/jobs.libsonnet).
               panel('GPUs held by job', 'bargauge', [q(fill('topk(20, job:slurm_gpus:sum{$(cluster)})'), '{{' + l.job + '}}')], width=6, drill='L4', drillVars={ job: l.job }),
               panel('Engine activity of the least active jobs', 'bargauge', [q(fill('bottomk(20, job:dcgm_gr_engine_active:avg{$(cluster)})'), '{{' + l.job + '}}')], width=6, drill='L4', drillVars={ job: l.job }) + ratio,
               panel('GPUs held by user and account', 'table', [q(fill('sort_desc(user:slurm_gpus_alloc:sum{$(cluster)})')), q(fill('sort_desc(account:slurm_gpus_alloc:sum{$(cluster)})'))], width=8),
               panel('GPUs held by partition', 'bargauge', [q(fill('sort_desc(partition:slurm_gpus_alloc:sum{$(cluster)})'), '{{partition}}')], width=4),
               panel('GPU-hours by account and user (last ' + $.windows.chargeback + ')', 'table', [
                 q(fill('sort_desc(account:slurm_gpu_hours:sum1d{$(cluster)})')),
                 q(fill('sort_desc(user:slurm_gpu_hours:sum1d{$(cluster)})')),
               ], width=8),
             ] else [
               panel('GPUs requested by namespace', 'bargauge', [q(fill('sort_desc(namespace:kube_gpu_requested:sum{$(cluster)})'), '{{namespace}}')], width=6, drill='L4', drillVars={ namespace: 'namespace' }),
               panel('SM activity of allocated GPUs by namespace', 'bargauge', [q(fill('sort(namespace:dcgm_sm_active:avg{$(cluster)})'), '{{' + l.namespace + '}}')], width=6, drill='L4') + ratio,
             ]) + [
          panel('Idle cost by ' + p.charged.word, 'table', [q(fill('sort_desc($(level):gpu_idle_cost_dollars_per_hour:sum{$(cluster)})', { level: p.charged.level }))], unit='currencyUSD', width=8, drill='L4'),
          panel('Cost by ' + p.charged.above, 'table', [q(fill('sort_desc($(above):gpu_cost_dollars_per_hour:sum{$(cluster)})', { above: p.charged.above }))], unit='currencyUSD', width=8),
          // Each node against its own allocatable GPUs: a node of 4 free GPUs among nodes of 8 is
          // free, not fragmented.
          panel('Fragmentation: nodes with some but not all GPUs free', 'stat', [q(count(fill('(($(freePerNode)) > 0) < node:kube_gpu_allocatable:sum{$(cluster)}', { freePerNode: freePerNode })))], description='Free GPUs spread over nodes cannot take a job that needs a whole node.', width=4),
          // kube-state-metrics names the node `node`; the exporter's host label is the same name.
          panel('Free GPUs by node', 'table', [q(e.fill('($(freePerNode)) > 0', { freePerNode: freePerNode }))], width=4, drill='L3', drillVars={ node: l.node }),
        ]),
        row('Cohorts', [
          panel('SM activity by ' + c, 'bargauge', [q(fill('sort(cluster_$(c):dcgm_sm_active:avg{$(cluster)})', { c: c }), '{{' + $.cohorts[c] + '}}')], width=6) + ratio
          for c in std.objectFields($.cohorts)
        ] + [
          panel(
            'Hardware error events per GPU by ' + c + ' (last ' + $.windows.cohort + ')',
            'table',
            [q(fill('cluster_$(c):dcgm_$(s)_events:sum$(cohort){$(cluster)} / cluster_$(c):dcgm_gpus:count{$(cluster)}', { c: c, s: s, cohort: $.windows.cohort }), s) for s in $.cohortSignals],
            description='A cohort far above the others (GPUCohort alerts at ' + e.num(th.cohortErrorRatio) + '×) points at what it shares: a driver, an SKU.',
            width=6,
          )
          for c in std.objectFields($.cohorts)
        ]),
        row('Scheduling', [
          panel('GPU pods waiting for a node, by namespace', 'timeseries', [q(fill('namespace:kube_gpu_pods_unschedulable:count{$(cluster)}'), '{{namespace}}')], description='Pods that request GPUs and that the scheduler could not place; GPUPodUnschedulable tickets those waiting over ' + $.windows.unschedulable + '.', width=12, stack=true),
          panel('Longest scheduling wait, by namespace', 'bargauge', [q(fill('sort_desc(namespace:kube_gpu_pod_scheduling_wait_seconds:max{$(cluster)})'), '{{namespace}}')], unit='s', thresholds=thresholdOf('GPUPodUnschedulable', 'namespace:kube_gpu_pod_scheduling_wait_seconds:max'), width=12),
        ] + (if !$.kubernetes.dra then [] else [
               panel('DRA claims waiting for a device, by namespace', 'timeseries', [q(fill('namespace:kube_resourceclaims_unallocated:count{$(cluster)}'), '{{namespace}}')], description='ResourceClaims no device has been allocated to: on DRA nodes, the pods that wait for GPUs. GPUResourceClaimUnallocated tickets a claim waiting over ' + $.windows.unschedulable + '.', width=12, stack=true),
               panel('Nodes failing to prepare DRA devices', 'stat', [q(count(fill('ALERTS{alertname="GPUDRAPrepareFailing", alertstate="firing", $(cluster)}')))], description="Nodes whose kubelet failed to prepare a pod's claimed devices in the last " + $.windows.unschedulable + ' (GPUDRAPrepareFailing): their pods stay in ContainerCreating.', width=12),
             ])),
        row('Health', [
          panel('GPUs throttled by reason', 'timeseries', [q(fill('cluster:dcgm_clock_throttle_$(r):sum{$(cluster)}', { r: r }), r) for r in std.objectFields($.throttleReasons)], stack=true),
          panel('ECC error rate', 'timeseries', [q(fill('cluster:dcgm_ecc_sbe_vol_total:rate5m{$(cluster)} * 3600'), 'single-bit'), q(fill('cluster:dcgm_ecc_dbe_vol_total:rate5m{$(cluster)} * 3600'), 'double-bit')], unit='short', description='Errors per hour.'),
          panel(
            'XID events',
            'timeseries',
            [q(fill('count by (xid) (group by ($(piece)) ($(xidEvents){$(cluster)}))', { piece: std.join(', ', $.identity.gpuJoin + ['xid']), xidEvents: names.xidEvents($.windows.event) }), 'XID {{xid}}')],
            description='GPUs with a new XID in the last ' + $.windows.event + ', by code.',
          ),
          panel('Hottest GPU', 'timeseries', [q(fill('cluster:dcgm_gpu_temp:max{$(cluster)}'), 'max')], unit='celsius', thresholds=thresholdOf('GPUTemperatureHigh', 'DCGM_FI_DEV_GPU_TEMP')),
          panel('GPUs reporting against capacity', 'timeseries', [q(fill('cluster:dcgm_gpus_reporting:count{$(cluster)}'), 'reporting'), q(fill('cluster:kube_gpu_capacity:sum{$(cluster)}'), 'capacity')]),
          panel(if $.scheduler == 'slurm' then 'Drained nodes' else 'Cordoned nodes', 'stat', [q(count(p.fill('ALERTS{alertname="$(alert)", alertstate="firing", $(cluster)}', { alert: $.nodes.outOfServiceAlert })))], width=4),
        ]),
        row('SLOs', [
          panel(
            'Burn rate',
            'timeseries',
            [q(fill('slo:error_budget:burn_rate{$(cluster)}'), '{{slo}} {{namespace}} {{' + inf.modelLabel + '}}')],
            description='1 spends the budget exactly over the period; the fast-burn page starts at ' + $.sloDefaults.tiers[0].factor + '.',
            thresholds=[[null, 'green'], [1, 'orange'], [$.sloDefaults.tiers[0].factor, 'red']],
            width=12,
          ),
          panel(
            'Error budget left',
            'bargauge',
            [q(fill('slo:error_budget:remaining{$(cluster)}'), '{{slo}} {{namespace}} {{' + inf.modelLabel + '}}')],
            thresholds=[[null, 'red'], [0, 'orange'], [0.5, 'green']],
            min=-1,
            max=1,
            unit='percentunit',
            width=12,
          ),
        ]),
      ],
    },
  },
}
