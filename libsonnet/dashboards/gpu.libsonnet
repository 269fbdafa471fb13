// L5, one GPU: a panel per collected field, with the alert threshold that reads it.
local e = import '../lib/expr.libsonnet';
local names = import '../lib/names.libsonnet';
local panels = import '../lib/panels.libsonnet';
{
  local p = panels($),
  local fill = p.fill,
  local row = p.row,
  local v = p.v,
  local is = p.is,
  local gpu = p.gpu,
  local clusterVar = p.clusterVar,
  local nodeVar = p.nodeVar,
  local collected = p.collected,
  local fieldPanel = p.fieldPanel,
  local l = $.labels,

  dashboards+: {
    L5: {
      uid: $.deploy.grafana.uidPrefix + '-l5-gpu',
      title: 'Single GPU',
      description: 'One GPU: every field the exporter collects over time, error events as annotations.',
      vars: { cluster: l.cluster, node: l.host, gpu: l.uuid },
      variables: [clusterVar, nodeVar, v('gpu', 'GPU (UUID)', fill('label_values($(gpuInfo){$(node)}, $(uuid))', { gpuInfo: names.gpuInfo, uuid: l.uuid }))],
      links: ['L3'],
      annotations: [
        { name: 'XID events', expr: e.fill(|||
          $(events){$(gpu)}
        |||, { events: names.xidEvents($.windows.event), gpu: gpu }), color: 'red', title: 'New XID' },
        { name: 'Double-bit ECC errors', expr: e.fill(|||
          increase($(counter){$(gpu)}[$(window)]) > 0
        |||, { counter: names.gpuCounter('DCGM_FI_DEV_ECC_DBE_VOL_TOTAL'), gpu: gpu, window: $.recording.rateWindow }), color: 'purple', title: 'Double-bit ECC' },
        { name: 'Single-bit ECC errors', expr: e.fill(|||
          increase($(counter){$(gpu)}[$(window)]) > 0
        |||, { counter: names.gpuCounter('DCGM_FI_DEV_ECC_SBE_VOL_TOTAL'), gpu: gpu, window: $.recording.rateWindow }), color: 'yellow', title: 'Single-bit ECC' },
        { name: 'Alerts', expr: e.fill(|||
          ALERTS{alertstate="firing", $(gpu)}
        |||, { gpu: is(l.uuid, 'gpu') }), color: 'orange', title: '{{alertname}}' },
      ],
      // The collected fields, read once with their families, then a row per family of them.
      local shown = [{ name: n, family: $.fields[n].family, nvlink: $.fields[n].entity == 'nvlink' } for n in std.objectFields($.fields) if collected(n)],
      rows: [
        row(family, [fieldPanel(f.name) for f in shown if f.family == family && !f.nvlink])
        for family in std.set([f.family for f in shown])
      ],
    },
  },
}
