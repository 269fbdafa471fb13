// Maintenance: a node cordoned and drained of its GPU pods is being handled by a technician.
// A fault found there (diagnostics such as `dcgmi diag` producing a double-bit error or a fatal
// XID) needs a repair ticket, not a page: no workload is affected. While GPU pods still run on
// the cordoned node the fault stays a page. Each page of maintenance.pages is split by the rule
// itself: the page keeps its expression unless its node is in maintenance, and a twin ticket,
// <page>InMaintenance, fires on the same expression only there. Fail safe: without
// kube-state-metrics no node is in maintenance, and every page stays a page.
local t = import 'lib/test.libsonnet';
local e = import 'lib/expr.libsonnet';
local names = import 'lib/names.libsonnet';
{
  local l = $.labels,
  local node = l.cluster + ', ' + l.host,
  local inMaintenance = 'node:gpu_maintenance:flag',

  maintenance:: {
    // The pages a maintenance turns into tickets. To change one's expression everywhere,
    // override its pageExpr:: (its expr adds the maintenance condition to it).
    pages: ['GPUEccDoubleBit', 'GPURowRemapFailure', 'GPUFellOffBus', 'GPUXidFatal'],
  },

  records+: {
    // A GPU node in maintenance: cordoned (unschedulable), and no pod holds any of its GPUs.
    [inMaintenance]: {
      family: 'node',
      expr: 'max by (' + node + ') (' + e.asHost(l, 'kube_node_spec_unschedulable{job="' + $.kubeStateMetrics.job + '"} == 1') + ')'
            + ' unless on (' + node + ') group by (' + node + ') (' + names.gpuInfo + '{' + l.pod + '!=""})',
    },
  },

  local cordon = t.series('kube_node_spec_unschedulable', '1x60', e.ksm($.kubeStateMetrics.job, { node: t.scenarioHost })),
  local cordoned = t.also('GPUNodeCordoned', 1, target={ [l.host]: t.scenarioHost }),

  // The ticket twin of a page: the same alert where the page's node is in maintenance.
  local twin(page) =
    local p = $.alerts[page];
    local firing = [c for c in p.pageTests if c.fires][0];
    p {
      severity: 'warning',
      expr: '(' + p.pageExpr + ') and on (' + node + ') ' + inMaintenance,
      summary: std.rstripChars(p.summary, '.') + ', on a node in maintenance: a repair ticket, not a page.',
      description: p.description + ' The node is cordoned and no pod holds its GPUs (maintenance): no workload is affected, so this is the ticket for the repair instead of ' + page + '.',
      tests: [
        firing { name: firing.name + ', on a node in maintenance (cordoned, no GPU pods)', pod: false, extra+: [cordon], alsoFires: [cordoned] },
        firing { name: firing.name + ', on a cordoned node where GPU pods still run', fires: false, extra+: [cordon], alsoFires: [cordoned, { alert: page, value: firing.value, labels: std.get(firing, 'labels', {}) } + (if std.objectHas(firing, 'firing') then { firing: firing.firing } else {})] },
      ],
      runbook+: {
        notes+: ['This is the ticket form of ' + page + ': the node is cordoned and no pod holds its GPUs, so the fault was found during maintenance (often by diagnostics such as `dcgmi diag`) and affects no workload. Repair as ' + page + "'s runbook says; once pods run on the node again the same fault pages."],
      },
    },

  alerts+: std.foldl(function(acc, page) acc {
    [page]+: {
      pageExpr:: super.expr,
      pageTests:: super.tests,
      expr: '(' + self.pageExpr + ') unless on (' + node + ') ' + inMaintenance,
    },
    [page + 'InMaintenance']: twin(page),
  }, $.maintenance.pages, {}),
}
