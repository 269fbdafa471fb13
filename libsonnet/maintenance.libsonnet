// Maintenance: a node cordoned and drained of its GPU pods is being handled by a technician.
// A fault found there (diagnostics such as `dcgmi diag` producing a double-bit error or a fatal
// XID) needs a repair ticket, not a page: no workload is affected. While GPU pods still run on
// the cordoned node the fault stays a page. Each page of maintenance.pages is split by the rule
// itself: the page keeps its expression unless its node is in maintenance, and a twin ticket,
// <page>InMaintenance, fires on the same expression only there. Fail safe: without
// kube-state-metrics no node is in maintenance, and every page stays a page.
local e = import 'lib/expr.libsonnet';
local names = import 'lib/names.libsonnet';
local t = import 'lib/test.libsonnet';
{
  local l = $.labels,
  local node = std.join(', ', [l.cluster, l.host]),
  local inMaintenance = 'node:gpu_maintenance:flag',

  maintenance:: {
    // The pages a maintenance turns into tickets. Each twin is built from the page as the
    // library defines it: a catalog that overrides a page's expression overrides the twin's too.
    // (None where no source tells that a node is out of service: a Slurm fleet without a
    // node-state source.)
    pages: if $.nodes.outOfServiceAlert == '' then [] else ['GPUEccDoubleBit', 'GPURowRemapFailure', 'GPUFellOffBus', 'GPUXidFatal'] + $.recoveryActionPages + $.platformPages,
  },

  records+: {
    // A GPU node in maintenance: cordoned (unschedulable), and no pod holds any of its GPUs.
    // In the group of the GPU-to-pod map it reads (a record reading another group's record
    // sees it one evaluation late).
    [inMaintenance]: {
      family: 'allocation',
      expr: e.fill(|||
        max by ($(node)) ($(unschedulable)) unless on ($(node)) group by ($(node)) ($(gpuInfo){$(pod)!=""})
      |||, { node: node, unschedulable: $.nodes.outOfService, gpuInfo: names.gpuInfo, pod: $.identity.workload[std.length($.identity.workload) - 1] }),
    },
  },

  local held = $.nodes.held,
  local worker = $.nodes.worker,
  local cordon = $.nodes.outOfServiceSeries(t.scenarioHost),
  local cordoned = t.also($.nodes.outOfServiceAlert, 1, target={ [l.host]: t.scenarioHost }),

  // The ticket twin of a page, from the page as the library defines it (p), so that a
  // catalog removing the page does not break its twin: remove <page>InMaintenance with it.
  local twin(p, page) =
    local firing = [c for c in p.tests if c.fires][0];
    p {
      severity: 'warning',
      expr: e.fill(|||
        ($(page)) and on ($(node)) $(maintenance)
      |||, { page: p.expr, node: node, maintenance: inMaintenance }),
      summary: std.rstripChars(p.summary, '.') + ', on a node in maintenance: a repair ticket, not a page.',
      description: p.description + ' The node is ' + held + ' and no ' + worker + ' holds its GPUs (maintenance): no workload is affected, so this is the ticket for the repair instead of ' + page + '.',
      tests: [
        // A page that takes its pod labels from the GPU-to-pod map has none where no pod
        // holds the GPU (not even the exporter's own, with honorLabels: true).
        firing {
          name: firing.name + ', on a node in maintenance (' + held + ', no GPU ' + worker + 's)',
          pod: false,
          extra+: [cordon],
          alsoFires: [cordoned],
          [if std.length(std.split(p.expr, names.gpuInfo)) > 1 then 'without']: $.identity.workload,
        },
        firing {
          name: firing.name + ', on a ' + held + ' node where GPU ' + worker + 's still run',
          fires: false,
          extra+: [cordon],
          alsoFires: [
            cordoned,
            { alert: page, value: firing.value, labels: std.get(firing, 'labels', {}) } + (if std.objectHas(firing, 'firing') then { firing: firing.firing } else {}),
          ],
        },
      ],
      runbook+: {
        notes+: ['This is the ticket form of ' + page + ': the node is ' + held + ' and no ' + worker + ' holds its GPUs, so the fault was found during maintenance (often by diagnostics such as `dcgmi diag`) and affects no workload. Repair as ' + page + "'s runbook says; once " + worker + 's run on the node again the same fault pages.'],
      },
    },

  thresholds+: {
    // A GPU no pod holds, outside maintenance, with more than this share of its framebuffer
    // used holds leaked memory (a process stuck in the driver after its pod was deleted).
    leakedMemoryRatio: 0.5,
    // ...unless the GPU works (GPU_UTIL at least this share): a process that computes is a
    // workload the exporter does not attribute (a GPU claimed through DRA where the exporter
    // reads no claims, a process outside Kubernetes), not a leaked context.
    leakedMemoryBusyRatio: 0.1,
  },

  // What outlives a workload: memory still held on a GPU after its pod is gone. The next pod
  // scheduled there gets an out-of-memory error. Diagnostics on a node in maintenance use the
  // memory on purpose and are left out.
  alerts+: {
             GPUMemoryHeldWithoutPod: {
               local used = 'DCGM_FI_DEV_FB_USED',
               local free = 'DCGM_FI_DEV_FB_FREE',
               local util = 'DCGM_FI_DEV_GPU_UTIL',
               // A utilization share in the unit the exporter reports GPU_UTIL in.
               local utilization(ratio) = if $.fields[util].unit == 'percent' then 100 * ratio else ratio,
               local gpu = std.join(', ', $.identity.gpu + [l.pciBusId]),
               family: 'memory',
               team: $.teams.infra,
               severity: 'warning',
               expr: e.fill(|||
                 (
                     max by ($(gpu)) ($(used))
                   /
                     (max by ($(gpu)) ($(used)) + max by ($(gpu)) ($(free)))
                   > $(ratio)
                 )
                 unless on ($(node)) $(maintenance)
                 unless on ($(gpu)) (max by ($(gpu)) ($(util)) >= $(busy))
               |||, {
                 gpu: gpu,
                 used: $.exporter.unattributed(used),
                 free: $.exporter.unattributed(free),
                 ratio: std.toString($.thresholds.leakedMemoryRatio),
                 node: node,
                 maintenance: inMaintenance,
                 util: util,
                 busy: e.num(utilization($.thresholds.leakedMemoryBusyRatio)),
               }),
               'for': '15m',
               identity: $.identity.gpu + [l.pciBusId],
               summary: 'A GPU no pod holds keeps its memory in use: a leaked context.',
               description: 'GPU {{ $labels.' + l.gpu + ' }} ({{ $labels.' + l.uuid + ' }}) on {{ $labels.' + l.host + ' }} has had {{ $value | humanizePercentage }} of its memory in use for ' + self['for'] + ' while no pod holds it (threshold ' + e.num($.thresholds.leakedMemoryRatio) + '): a process outlived its pod; the next pod scheduled there runs out of memory.',
               tests:
                 local mem(usedMiB) = [t.series(used, usedMiB + 'x60'), t.series(free, (81920 - usedMiB) + 'x60')];
                 [
                   t.case('memory held after the pod was deleted', true, mem(77824), pod=false, value=0.95),
                   t.case('memory held, the GPU idle', true, mem(77824) + [t.series(util, '0x60')], pod=false, value=0.95),
                   t.case('a workload no pod label names computes (a DRA claim)', false, mem(77824) + [t.series(util, utilization(0.9) + 'x60')], pod=false),
                   t.case('memory of the pod that holds the GPU', false, mem(77824)),
                   t.case('a GPU no pod holds, memory free', false, mem(512), pod=false),
                   t.case('diagnostics on a node in maintenance', false, mem(77824), pod=false, extra=[cordon], alsoFires=[cordoned]),
                   t.case('memory freed 10 minutes after the pod went', false, [t.series(used, '77824x10 512x50'), t.series(free, '4096x10 81408x50')], pod=false),
                 ],
               runbook: {
                 meaning: 'No pod holds the GPU, and it does no work (GPU utilization under ' + e.percent($.thresholds.leakedMemoryBusyRatio) + ' %, or not reported), yet more than ' +
                          e.percent($.thresholds.leakedMemoryRatio) + ' % of its framebuffer has been in use for ' + $.alerts.GPUMemoryHeldWithoutPod['for'] + ': a process that outlived its pod (stuck in the driver, a zombie) holds a CUDA context.',
                 impact: 'The device plugin offers the GPU as free: the next pod scheduled there runs out of memory or fails to start.',
                 queries: [
                   { title: 'Memory use of the GPU', expr: e.fill(|||
                     $(used){$(host)="$$(host)", $(gpu)="$$(gpu)"}
                   |||, { used: used, host: l.host, gpu: l.gpu }) },
                 ],
                 diagnosis: [
                   { check: 'Does `nvidia-smi` on the node list a process on the GPU?', yes: 'Kill it (`kill -9 <pid>`); if it does not die it is stuck in the driver: drain the node and reset the GPU.', no: 'Memory is held without a process: reset the GPU (`nvidia-smi -r -i $' + l.gpu + '`) once the node is drained.' },
                 ],
                 mitigation: if $.scheduler == 'slurm' then [$.nodes.cordon(l.host, 'node', 'leaked gpu memory'), 'Free the memory (kill the process or reset the GPU), then ' + $.nodes.back(l.host) + '.'] else ['Cordon the node so that no pod lands on the GPU: `kubectl cordon $' + l.host + '`.', 'Free the memory (kill the process or reset the GPU), then uncordon.'],
                 escalation: 'Infrastructure on-call.',
                 dashboards: ['L5'],
               },
             },
           } + { [page + 'InMaintenance']: twin(super[page], page) for page in $.maintenance.pages }
           + std.foldl(function(acc, page) acc {
             [page]+: {
               local pageExpr = super.expr,
               expr: e.fill(|||
                 ($(page)) unless on ($(node)) $(maintenance)
               |||, { page: pageExpr, node: node, maintenance: inMaintenance }),
             },
           }, $.maintenance.pages, {}),
}
