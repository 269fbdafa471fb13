// The GPU nodes themselves as the monitoring sees them: GPUs the device plugin stopped
// offering, GPU nodes without an exporter, GPUs whose profiling fields vanished.
local e = import '../lib/expr.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
{
  local l = $.labels,
  local w = $.windows,
  local ksmJob = $.kubeStateMetrics.job,
  local gpuResources = $.kubeStateMetrics.gpuResources,
  local h = $.exporter.healthField,
  local q = rb.query,
  local step = rb.step,
  local is = rb.is,
  local asHost(expr) = e.asHost(l, expr),
  // DRA: on nodes that hand GPUs out through ResourceClaims, a pod waits for its claim's
  // devices, and kubelet prepares them before the pod starts.
  local k = $.kubernetes,
  local dra = k.dra,
  // The nodes that have GPUs, with how many: the device plugin's capacity, or the GPU
  // devices a DRA node's ResourceSlices publish.
  // (A Slurm fleet, where this family is off, has GPUSlurmNodeGPUsMissing.)
  local gpuNodes = if $.scheduler == 'slurm' then $.nodes.known else std.join(' or ', (if !k.devicePlugin then [] else [
                                                                                         e.fill(|||
                                                                                           kube_node_status_capacity{job="$(job)", resource=~"$(resources)"} > 0
                                                                                         |||, { job: ksmJob, resources: gpuResources }),
                                                                                       ]) + (if !dra then [] else [
                                                                                               e.fill(|||
                                                                                                 count by ($(cluster), $(node)) (label_replace(kube_resourceslice_device_info{job="$(job)", driver="$(driver)"}, "$(node)", "$1", "node_name", "(.+)"))
                                                                                               |||, { cluster: l.cluster, node: l.node, job: ksmJob, driver: k.draDriver }),
                                                                                             ])),

  alerts+: {
    GPUDevicePluginDegraded: {
      section: 'scheduling',
      team: $.teams.infra,
      family: 'capacity',
      severity: 'warning',
      local perNode(metric) = e.fill(|||
        sum by ($(cluster), node) ($(metric){job="$(job)", resource=~"$(resources)"})
      |||, { cluster: l.cluster, metric: metric, job: ksmJob, resources: gpuResources }),
      local withdrawn = e.fill(|||
        ($(capacity) - $(allocatable)) > 0
      |||, { capacity: perNode('kube_node_status_capacity'), allocatable: perNode('kube_node_status_allocatable') }),
      expr: e.fill(|||
        max by ($(cluster), $(host)) ($(withdrawn))
      |||, { cluster: l.cluster, host: l.host, withdrawn: asHost(withdrawn) }),
      'for': '15m',
      identity: [l.cluster, l.host],
      summary: 'The device plugin stopped offering some GPUs of a node.',
      description: 'Node {{ $labels.' + l.host + ' }} in cluster {{ $labels.' + l.cluster + ' }} has {{ $value }} GPUs in capacity that the NVIDIA device plugin no longer offers to pods (it marked them unhealthy, or lost them).',
      tests:
        local node(metric, values) = t.series(metric, values, e.ksm(ksmJob, { node: t.scenarioHost, resource: $.kubeStateMetrics.gpuResource, unit: 'integer' }));
        // The device plugin advertises its time-slicing replicas of each GPU.
        local r = $.sharing.replicas;
        [
          t.case('one of 8 GPUs withdrawn', true, [], gpus=8, extra=[node('kube_node_status_capacity', (8 * r) + 'x60'), node('kube_node_status_allocatable', (8 * r) + 'x20 ' + (7 * r) + 'x40')], target={ [l.host]: t.scenarioHost }, value=r),
          t.case('every GPU offered', false, [], gpus=8, extra=[node('kube_node_status_capacity', (8 * r) + 'x60'), node('kube_node_status_allocatable', (8 * r) + 'x60')]),
          t.case('withdrawn 10 minutes ago (a plugin restart takes minutes)', false, [], gpus=8, extra=[node('kube_node_status_capacity', (8 * r) + 'x60'), node('kube_node_status_allocatable', (8 * r) + 'x50 ' + (7 * r) + 'x10')]),
        ],
      runbook: {
        meaning: "Kubernetes lists more GPUs in the node's capacity than the device plugin offers as allocatable: the plugin marked some unhealthy (it does on XIDs that are not the application's, such as " + std.join(', ', [std.toString(x) for x in $.xid.fatal + $.xid.fellOffBus]) + ') or lost track of them.',
        impact: 'Fewer GPUs to schedule on; jobs sized for the whole node cannot land there.',
        queries: [
          q('Capacity and allocatable GPUs of the node', e.fill('kube_node_status_capacity{$(cluster), node="$$(host)", resource=~"$(gpuResources)"} or kube_node_status_allocatable{$(cluster), node="$$(host)", resource=~"$(gpuResources)"}', { cluster: is(l.cluster), host: l.host, gpuResources: gpuResources })),
          q('Hardware alerts on the node', e.fill('ALERTS{alertstate="firing", $(cluster), $(host), $(team)="$(infra)"}', { cluster: is(l.cluster), host: is(l.host), team: l.team, infra: $.teams.infra })),
        ],
        diagnosis: [
          step('Do hardware alerts (XID, ECC, fallen off the bus) fire on the node?', 'The plugin withdrew the failed GPUs on purpose: follow those runbooks.'),
          step("Do the device plugin's logs (`kubectl logs -n gpu-operator -l app=nvidia-device-plugin-daemonset`) show health-check failures?", 'Reset the GPUs it names, or drain the node for repair.', 'Restart the device plugin pod of the node.'),
        ],
        mitigation: ['Repair or reset the withdrawn GPUs.', 'Restart the device plugin on the node.'],
        escalation: 'Infrastructure on-call.',
        dashboards: ['L2', 'L3'],
      },
    },

    DCGMExporterMissingOnNode: {
      team: $.teams.infra,
      family: 'exporter',
      severity: 'warning',
      local exporterHost = 'instance:dcgm_exporter_host:group',
      expr: e.fill(|||
        max by ($(node)) ($(gpuNodes)) unless on ($(node)) group by ($(node)) (last_over_time($(exporterHost)[$(window)]))
      |||, {
        node: std.join(', ', [l.cluster, l.host]),
        gpuNodes: if $.scheduler == 'slurm' then gpuNodes else asHost(gpuNodes),
        exporterHost: exporterHost,
        window: w.missing,
      }),
      'for': '15m',
      identity: [l.cluster, l.host],
      summary: 'A GPU node has no dcgm-exporter: its GPUs are not monitored at all.',
      description: 'Node {{ $labels.' + l.host + ' }} in cluster {{ $labels.' + l.cluster + ' }} lists {{ $value }} GPUs (time-slicing replicas included) in its capacity' + (if dra then ', or publishes as many GPU devices through DRA,' else '') + ' but no dcgm-exporter has reported from it in the last ' + w.missing + ': no GPU alert can fire for it.',
      tests:
        local capacity(node, gpus) = k.capacitySeries(node, [[gpus, 60]]);
        // A node's GPUs that no exporter reports are unavailable capacity: the availability SLO
        // burns too (7 of the cluster's 8 GPUs; the scenario's one GPU reports from another host).
        local availability = [t.also('SLOGPUAvailability' + a, 7 / 8, target={ slo: 'GPUAvailability' }) for a in ['FastBurn', 'SlowBurn']];
        [
          t.case('a new GPU node without an exporter', true, [], extra=capacity('gpu-node-5', 8), target={ [l.host]: 'gpu-node-5' }, value=8 * $.sharing.replicas, alsoFires=availability),
          t.case('a node whose exporter reports', false, [], gpus=8, extra=capacity(t.scenarioHost, 8)),
        ],
      runbook: {
        meaning: "Kubernetes lists GPUs on the node, but no dcgm-exporter target has reported the node's GPUs for " + w.missing + ': the exporter DaemonSet does not run there (node selector, taint, failing pod) or Prometheus does not scrape it.',
        impact: 'Every GPU alert, cost and utilization number is blind to this node.',
        queries: [
          if $.scheduler == 'slurm' then q('GPU nodes Slurm counts', e.fill('slurm_node_gpus{$(cluster)} > 0', { cluster: is(l.cluster) }))
          else q('GPU nodes without an exporter', e.fill('kube_node_status_capacity{$(cluster), resource=~"$(gpuResources)"} > 0', { cluster: is(l.cluster), gpuResources: gpuResources })),
          q('Exporter targets of the cluster', e.fill('up{$(cluster), job="$(job)"}', { cluster: is(l.cluster), job: $.exporter.job })),
        ],
        diagnosis: [
          step($.nodes.exporter.onNode(l.host), $.nodes.exporter.onNodeYes, $.nodes.exporter.onNodeNo),
        ],
        mitigation: $.nodes.exporter.fix,
        escalation: 'Infrastructure on-call.',
        dashboards: ['L2'],
      },
    },

    DCGMProfilingMetricsMissing: {
      team: $.teams.infra,
      family: 'exporter',
      severity: 'warning',
      local prof = 'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
      // The node's GPUs report device fields, none of them profiling, while GPUs of the same
      // SKU elsewhere in the cluster do: the SKU supports profiling, this node lost it.
      expr: e.fill(|||
        count by ($(cluster), $(host), $(model)) (group by ($(gpu)) ($(health))) unless on ($(cluster), $(host)) group by ($(cluster), $(host)) ($(prof)) and on ($(cluster), $(model)) group by ($(cluster), $(model)) ($(prof))
      |||, { cluster: l.cluster, host: l.host, model: l.modelName, gpu: std.join(', ', $.identity.gpu), health: $.exporter.health(), prof: prof }),
      'for': '15m',
      identity: [l.cluster, l.host, l.modelName],
      summary: 'GPUs report their device fields but no profiling fields.',
      description: '{{ $value }} {{ $labels.' + l.modelName + ' }} GPUs on {{ $labels.' + l.host + ' }} in cluster {{ $labels.' + l.cluster + ' }} report device fields but no profiling (DCP) fields, which other GPUs of that SKU in the cluster report: idle, straggler and cost rules are blind to them.',
      tests:
        local other = { [l.host]: 'other-node', [l.gpu]: '0', [l.uuid]: 'GPU-other', [l.modelName]: 'NVIDIA H100 80GB HBM3', [l.driverVersion]: '550.90.07', job: $.exporter.job, instance: 'other-node:9400' };
        [
          t.case('profiling gone on one node of two', true, [], gpus=2, extra=[t.series(h, '65x60', other), t.series(prof, '0.5x60', other)], value=2),
          t.case('profiling reported', false, [t.series(prof, '0.5x60')], gpus=2, extra=[t.series(h, '65x60', other), t.series(prof, '0.5x60', other)]),
          t.case('no GPU of the SKU reports profiling (not supported, or not collected)', false, [], gpus=2),
        ],
      runbook: {
        meaning: 'The GPUs of the node report device fields (temperature, power) but no DCGM profiling fields, while other GPUs of the same SKU in the cluster do.',
        impact: 'SM, tensor and engine activity are missing for these GPUs: GPUAllocatedIdle, GPUTrainingStraggler, "used" GPU-hours and the SM panels are blind to them.',
        notes: ['DCGM profiling is exclusive on a host: a profiler (Nsight Systems or Compute, DCGM diagnostics, a second hostengine) that takes the profiling module makes the exporter lose its profiling fields until it stops.'],
        queries: [
          q('Profiling fields of the node', e.fill('DCGM_FI_PROF_GR_ENGINE_ACTIVE{$(cluster), $(host)}', { cluster: is(l.cluster), host: is(l.host) })),
          q('Nodes of the cluster without profiling', e.fill('group by ($(host)) ($(health)) unless on ($(host)) group by ($(host)) (DCGM_FI_PROF_GR_ENGINE_ACTIVE{$(cluster)})', { host: l.host, health: $.exporter.health(is(l.cluster)), cluster: is(l.cluster) })),
        ],
        diagnosis: [
          step('Is a profiler running on the node (`nvidia-smi` lists ncu or nsys, or a dcgmi diag is running)?', 'Wait for it to finish, or ask its owner; the fields come back when it releases the profiling module.'),
          step("Does the exporter's log show profiling errors (" + $.nodes.exporter.logs + ': "DCP metrics not enabled" or "Profiling module")?', $.nodes.exporter.restart, "Compare the node's exporter counter file with the others: it may not collect DCGM_FI_PROF_*."),
        ],
        mitigation: ['Stop the profiler or let it finish.', "Restart the node's exporter.", 'Deploy the same counter file on every node.'],
        escalation: 'Infrastructure on-call.',
        dashboards: ['L3'],
      },
    },
  },
}
