// The driver compatibility gate: GPUs on a driver branch not validated for their SKU ticket,
// and a branch newer than every branch the gate lists informs.
local e = import '../lib/expr.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
{
  // The driver compatibility gate: the driver branches (major versions) validated for each
  // SKU, by modelName. NVIDIA's data-center branches that support each GPU (production and
  // long-term branches to R580, R590 and R595) as a starting point; put your own validated
  // matrix here. GPUs of an SKU the table lacks are not gated. A branch newer than every branch
  // listed for its SKU is not a misconfiguration but news: it raises an info alert
  // (GPUDriverNewerThanGate), not the gate's ticket.
  compatibility:: {
    driverBranches: {
      'NVIDIA A100-SXM4-40GB': ['470', '535', '550', '570', '580', '590', '595'],
      'NVIDIA A100-SXM4-80GB': ['470', '535', '550', '570', '580', '590', '595'],
      'NVIDIA H100 80GB HBM3': ['535', '550', '570', '580', '590', '595'],
      'NVIDIA H200': ['550', '570', '580', '590', '595'],
      'NVIDIA L4': ['535', '550', '570', '580', '590', '595'],
      'NVIDIA L40S': ['535', '550', '570', '580', '590', '595'],
    },
  },

  local l = $.labels,
  local q = rb.query,
  local step = rb.step,
  local is = rb.is,
  local gate = 'gpu:dcgm_driver_outside_gate:group',
  local newer = 'gpu:dcgm_driver_newer_than_gate:group',
  // The branches of an SKU's gate, and the branches newer than all of them.
  local branches(sku) = std.join('|', $.compatibility.driverBranches[sku]),
  // (Worked out once per SKU: both records read it.)
  local newerBySKU = {
    [sku]: e.above(std.foldl(std.max, [std.parseInt(b) for b in $.compatibility.driverBranches[sku]], 0))
    for sku in std.objectFields($.compatibility.driverBranches)
  },
  local newerBranches(sku) = newerBySKU[sku],

  records+: {
    // GPUs whose driver is outside the branches validated for their SKU, and not newer than
    // all of them: one rule per SKU, told apart by modelName, as the price table. A series
    // without the driver label is the label self-check's (DCGMExporterLabelMismatch), not the
    // gate's.
    [gate + ':' + sku]: {
      record: gate,
      labels: { [l.modelName]: sku },
      family: 'hygiene',
      expr: e.fill(|||
        group by ($(gpu), $(driver)) ($(health))
      |||, { gpu: std.join(', ', $.identity.gpu), driver: l.driverVersion, health: $.exporter.health(e.fill(|||
        $(model)="$(sku)", $(driver)!="", $(driver)!~"($(branches))[.].+", $(driver)!~"($(newer))[.].+"
      |||, { driver: l.driverVersion, model: l.modelName, sku: sku, branches: branches(sku), newer: newerBranches(sku) })) }),
    }
    for sku in std.objectFields($.compatibility.driverBranches)
  } + {
    // GPUs on a branch newer than every branch the gate lists for their SKU: a release the
    // gate's table has not caught up with.
    [newer + ':' + sku]: {
      record: newer,
      labels: { [l.modelName]: sku },
      family: 'hygiene',
      expr: e.fill(|||
        group by ($(gpu), $(driver)) ($(health))
      |||, { gpu: std.join(', ', $.identity.gpu), driver: l.driverVersion, health: $.exporter.health(e.fill(|||
        $(model)="$(sku)", $(driver)=~"($(newer))[.].+"
      |||, { driver: l.driverVersion, model: l.modelName, sku: sku, newer: newerBranches(sku) })) }),
    }
    for sku in std.objectFields($.compatibility.driverBranches)
  },

  alerts+: {
    GPUDriverNotValidated: {
      team: $.teams.infra,
      family: 'hygiene',
      severity: 'warning',
      expr: e.fill(|||
        count by ($(cluster), $(model), $(driver)) ($(gate)) > 0
      |||, { cluster: l.cluster, model: l.modelName, driver: l.driverVersion, gate: gate }),
      'for': '30m',
      identity: [l.cluster, l.modelName, l.driverVersion],
      summary: 'GPUs run a driver outside the branches validated for their SKU.',
      description: '{{ $value }} {{ $labels.' + l.modelName + ' }} GPUs in cluster {{ $labels.' + l.cluster + ' }} run driver {{ $labels.' + l.driverVersion + ' }}, outside the branches the compatibility gate (compatibility.driverBranches) validates for that SKU.',
      tests: [
        t.case('an H100 node on driver 470', true, [], gpus=2, drivers=['470.256.02', '470.256.02'], target={ [l.modelName]: 'NVIDIA H100 80GB HBM3', [l.driverVersion]: '470.256.02' }, value=2),
        t.case('a validated branch', false, [], gpus=2, drivers=['570.124.06', '570.124.06']),
        t.case('a validated newer branch (595)', false, [], gpus=2, drivers=['595.58.03', '595.58.03']),
        t.case('a branch newer than the gate knows (info, not this ticket)', false, [], gpus=2, drivers=['610.12.01', '610.12.01'], alsoFires=[t.also('GPUDriverNewerThanGate', 2)]),
      ],
      runbook: {
        meaning: "GPUs run an NVIDIA driver whose branch the catalog's compatibility gate does not list for their SKU.",
        impact: 'CUDA and framework versions validated on the fleet may fail or misbehave on them; a driver regression would hit exactly these nodes.',
        queries: [
          q('GPUs outside the gate', e.fill('$(gate){$(cluster)}', { gate: gate, cluster: is(l.cluster) })),
          q('Nodes outside the gate', e.fill('group by ($(host), $(driverVersion)) ($(gate){$(cluster)})', { host: l.host, driverVersion: l.driverVersion, gate: gate, cluster: is(l.cluster) })),
        ],
        diagnosis: [
          step('Is a driver rollout in progress?', 'Is the new branch validated? Add it to compatibility.driverBranches, or stop the rollout.', 'Reimage the nodes with the fleet image.'),
        ],
        mitigation: ['Roll the nodes back to a validated driver.', 'Validate the branch, then add it to the gate.'],
        escalation: 'Infrastructure on-call.',
        dashboards: ['L2'],
      },
    },
    GPUDriverNewerThanGate: {
      team: $.teams.infra,
      family: 'hygiene',
      severity: 'info',
      expr: e.fill(|||
        count by ($(cluster), $(model), $(driver)) ($(newer)) > 0
      |||, { cluster: l.cluster, model: l.modelName, driver: l.driverVersion, newer: newer }),
      'for': '30m',
      identity: [l.cluster, l.modelName, l.driverVersion],
      summary: 'GPUs run a driver branch newer than every branch the gate lists for their SKU.',
      description: '{{ $value }} {{ $labels.' + l.modelName + ' }} GPUs in cluster {{ $labels.' + l.cluster + ' }} run driver {{ $labels.' + l.driverVersion + ' }}, a branch newer than every one the compatibility gate (compatibility.driverBranches) lists for that SKU.',
      tests: [
        t.case('an H100 node on a branch after the newest listed', true, [], gpus=2, drivers=['610.12.01', '610.12.01'], target={ [l.modelName]: 'NVIDIA H100 80GB HBM3', [l.driverVersion]: '610.12.01' }, value=2),
        t.case('a four-digit branch', true, [], gpus=1, drivers=['1010.1.1'], target={ [l.modelName]: 'NVIDIA H100 80GB HBM3', [l.driverVersion]: '1010.1.1' }, value=1),
        t.case('the newest listed branch', false, [], gpus=2, drivers=['595.58.03', '595.58.03']),
        t.case('an old branch (the ticket, not this)', false, [], gpus=1, drivers=['470.256.02'], alsoFires=[t.also('GPUDriverNotValidated', 1)]),
      ],
      runbook: {
        meaning: "GPUs run an NVIDIA driver from a branch newer than every branch the catalog's compatibility gate lists for their SKU: NVIDIA released a branch the gate has not caught up with, and a node runs it.",
        impact: 'None by itself: the gate has not validated the branch, so the fleet runs a driver nobody signed off. It is news for whoever keeps the gate, not a fault.',
        queries: [
          q('GPUs on a newer branch', e.fill('$(newer){$(cluster)}', { newer: newer, cluster: is(l.cluster) })),
          q('Nodes on a newer branch', e.fill('group by ($(host), $(driverVersion)) ($(newer){$(cluster)})', { host: l.host, driverVersion: l.driverVersion, newer: newer, cluster: is(l.cluster) })),
        ],
        diagnosis: [
          step('Was the branch rolled out on purpose (a validation pool)?', 'Validate it, then add it to compatibility.driverBranches for the SKU.', 'Find which image brought it, and pin the fleet image.'),
        ],
        mitigation: ['Add the branch to compatibility.driverBranches once validated.', 'Reimage the nodes with the fleet image if the rollout was not meant.'],
        escalation: 'Infrastructure team, in working hours.',
        dashboards: ['L2'],
      },
    },
  },
}
