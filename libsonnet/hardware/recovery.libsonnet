// The driver's and DCGM's own verdicts on a GPU: the recovery action the driver asks for
// (DCGM_FI_DEV_GPU_RECOVERY_ACTION, exporter.recoveryActionField) and the exporter's DCGM health
// check (DCGM_EXP_GPU_HEALTH_STATUS, exporter.healthStatusField). Each alert exists where its
// field is collected (dcgm-exporter 4.8.3 and later by default).
local e = import '../lib/expr.libsonnet';
local gpu = import '../lib/gpu.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
{
  // The recovery actions of nvmlDeviceGpuRecoveryAction_t, by value: the name the alert
  // carries (label recovery_action), what it means, what to do, and its tier: critical pages
  // (GPURecoveryRequired), warning tickets (GPURecoveryPending). A value listed nowhere here
  // (drivers add actions) tickets as GPURecoveryActionUnknown.
  recoveryActions:: {
    '1': {
      name: 'GPU reset',
      severity: 'warning',
      meaning: 'a fault left the GPU needing a reset to clear; until then it is not usable',
      todo: 'drain the pods of the GPU and reset it',
    },
    '2': {
      name: 'node reboot',
      severity: 'critical',
      meaning: 'the fault may have left the operating system inconsistent; a GPU reset is not enough',
      todo: 'drain the node and reboot it',
    },
    '3': {
      name: 'drain P2P',
      severity: 'warning',
      meaning: 'peer-to-peer (NVLink) traffic must stop before the driver can tell what the GPU needs',
      todo: 'stop the jobs that use peer-to-peer transfers on the GPU; the driver then gives its verdict',
    },
    '4': {
      name: 'drain and reset',
      severity: 'critical',
      meaning: 'the GPU runs at reduced capacity (memory or MIG instances offlined); running work is safe, new work lands on a degraded GPU',
      todo: 'cordon the node, let running work reach a checkpoint, then drain and reset the GPU',
    },
  },

  windows+: {
    // How long the driver must ask for a recovery action, or DCGM fail a health check, before
    // it alerts (a drain-P2P request resolves itself once the traffic stops).
    verdict: '5m',
  },

  // DCGM's health results (DCGM_EXP_GPU_HEALTH_STATUS): a watched system at fail tickets.
  healthResults:: { pass: 0, warn: 10, fail: 20 },

  local l = $.labels,
  local w = $.windows,
  local field = $.exporter.recoveryActionField,
  local health = $.exporter.healthStatusField,
  local actions = $.recoveryActions,
  local codes = std.objectFields(actions),
  local bySeverity = {
    critical: 'GPURecoveryRequired',
    warning: 'GPURecoveryPending',
  },
  local tiers = std.set([actions[c].severity for c in codes]),
  local g = gpu($),
  local fill = g.fill,
  local gpuText = g.gpuText,
  local id = std.join(', ', $.identity.gpu),
  local attributed = g.attributed,
  // The GPUs that ask for an action, recorded once: the alerts read this handful of series,
  // not every GPU's.
  local asked = 'gpu:dcgm_gpu_recovery_action:max',
  // The GPUs asking for one of the actions, each labelled with its action's name.
  local asking(list) = attributed(std.join(' or ', [
    e.fill(|||
      label_replace($(asked) == $(code), "recovery_action", "$(action)", "", "")
    |||, { asked: asked, code: c, action: actions[c].name })
    for c in list
  ]), 'recovery_action'),
  local recovery(code, minutes) = [t.series(field, '0x' + (60 - minutes) + ' ' + code + 'x' + minutes)],
  local named(code) = { recovery_action: actions[code].name },
  local q = rb.query,
  local step = rb.step,
  local gpuSel = g.gpuSel,
  local listed = std.join(', ', [c + ' ' + actions[c].name for c in codes]),

  // The page of a maintenance node is a repair ticket (maintenance.libsonnet).
  recoveryActionPages:: if field != null && std.member(tiers, 'critical') then [bySeverity.critical] else [],

  assert std.all([std.member(std.objectFields(bySeverity), actions[c].severity) for c in codes]) : 'recoveryActions: each severity must be one of ' + std.join(', ', std.objectFields(bySeverity)),

  records+: if field == null then {} else {
    // The recovery action of each GPU that asks for one.
    [asked]: {
      family: 'recovery',
      expr: e.fill(|||
        max by ($(id)) ($(field)) > 0
      |||, { id: id, field: field }),
    },
  },

  alerts+: (if field == null then {} else {
              [bySeverity[tier]]: {
                local mine = [c for c in codes if actions[c].severity == tier],
                local other = [c for c in codes if actions[c].severity != tier],
                family: 'recovery',
                team: $.teams.infra,
                severity: tier,
                expr: asking(mine),
                'for': w.verdict,
                identity: $.identity.alert + ['recovery_action'],
                summary: 'The driver asks for a ' + std.join(' or a ', [actions[c].name for c in mine]) + ' of a GPU.',
                description: gpuText + ' has asked for a {{ $labels.recovery_action }} (recovery action {{ $value }}) for ' + w.verdict + ': the driver says what the fault needs. Follow the runbook for that action.',
                tests: [
                  t.case('the driver asks for a ' + actions[c].name, true, recovery(c, 10), value=std.parseInt(c), labels=named(c))
                  for c in mine
                ] + [
                  t.case('a request shorter than ' + w.verdict, false, recovery(mine[0], 2)),
                  t.case('the GPU was reset: no action asked', false, [t.series(field, mine[0] + 'x30 0x30')]),
                  t.case('no action asked', false, [t.series(field, '0x60')]),
                ] + [
                  t.case(
                    'an action of another tier',
                    false,
                    recovery(other[0], 10),
                    alsoFires=[{ alert: bySeverity[actions[other[0]].severity], value: std.parseInt(other[0]), labels: named(other[0]) }],
                  )
                  for _ in std.range(1, std.min(1, std.length(other)))
                ],
                runbook: {
                  meaning: 'The driver reports, through DCGM field ' + $.fields[field].id + ' (' + field + '), what this GPU needs to recover from a fault. This alert covers ' + std.join('; ', [c + ', ' + actions[c].name + ': ' + actions[c].meaning for c in mine]) + '.',
                  impact: if tier == 'critical' then 'Work on the GPU is at risk or new work lands on a degraded GPU until the action is done.' else 'The GPU cannot be trusted with new work until the action is done; running work may already have failed.',
                  notes: [
                    'What to do, by the recovery_action label: ' + std.join('; ', [actions[c].name + ': ' + actions[c].todo for c in mine]) + '.',
                    'XID 154 (GPU recovery action changed) announces each change of the value; the XID alerts report it too.',
                  ],
                  queries: [
                    q('The recovery action of this GPU', field + gpuSel),
                    q('The XIDs of this GPU (the fault that led here)', fill('DCGM_FI_DEV_XID_ERRORS$(gpuSel)')),
                  ],
                  diagnosis: [
                    step('Do ' + $.nodes.worker + 's still run on the GPUs of the node?', if $.scheduler == 'slurm' then $.nodes.cordon(l.host, 'hardware', 'gpu recovery') + ' Tell the owners of its jobs before they end.' else 'Cordon the node (`kubectl cordon $' + l.host + '`) and tell the owners of their jobs before draining.'),
                    step('Has the action been done (' + std.join('; ', [actions[c].todo for c in mine]) + ')?', '', 'Do it now: the mitigation below.'),
                    step('Did the value go back to 0 after the action?', 'Recovered: uncordon the node.', 'The action did not clear the fault: keep the node cordoned and open an RMA with the XID history.'),
                  ],
                  mitigation: [
                    $.nodes.cordon(l.host),
                    $.nodes.drain(l.host),
                    'Do what the recovery_action label asks (the notes above), then check that ' + field + ' reads 0 before uncordoning.',
                  ],
                  escalation: 'Infrastructure on-call; hardware vendor support for RMAs.',
                  dashboards: ['L3', 'L5'],
                },
              }
              for tier in tiers
            } + {
              GPURecoveryActionUnknown: {
                local unknown = std.foldl(std.max, [std.parseInt(c) for c in codes], 0) + 100,
                family: 'recovery',
                team: $.teams.infra,
                severity: 'warning',
                local isKnown(c) = e.fill(|||
                  $(asked) == $(code)
                |||, { asked: asked, code: c }),
                expr: attributed(e.fill(|||
                  $(asked) > 0 unless ($(known))
                |||, { asked: asked, known: std.join(' or ', [isKnown(c) for c in codes]) }), ''),
                'for': w.verdict,
                summary: 'The driver asks for a recovery action that the catalog does not know.',
                description: gpuText + ' has asked for recovery action {{ $value }} for ' + w.verdict + '; the catalog (recoveryActions) knows ' + listed + ': look the value up in nvmlDeviceGpuRecoveryAction_t and add it.',
                tests: [
                  t.case('a value newer drivers send', true, recovery(std.toString(unknown), 10), value=unknown),
                  t.case(
                    'a known action',
                    false,
                    recovery(codes[0], 10),
                    alsoFires=[{ alert: bySeverity[actions[codes[0]].severity], value: std.parseInt(codes[0]), labels: named(codes[0]) }],
                  ),
                  t.case('no action asked', false, [t.series(field, '0x60')]),
                ],
                runbook: {
                  meaning: 'The driver reports a recovery action (DCGM field ' + $.fields[field].id + ') that recoveryActions does not list (it lists ' + listed + '): a newer driver added one.',
                  impact: 'Unknown until the value is looked up; every listed action means the GPU needs work before it can be trusted.',
                  queries: [q('The recovery action of this GPU', field + gpuSel)],
                  diagnosis: [
                    step('Does `nvidia-smi -q -i $' + l.gpu + '` name the action?', 'Follow it, and add the value to recoveryActions with its tier.', 'Treat it as a GPU reset: drain the GPU and reset it.'),
                  ],
                  mitigation: [$.nodes.cordon(l.host), 'Add the value to recoveryActions in your gpuobs.jsonnet so that it alerts at its tier.'],
                  escalation: 'Infrastructure on-call.',
                  dashboards: ['L5'],
                },
              },
            })
           + (if health == null then {} else {
                local fail = $.healthResults.fail,
                local watch(system, code, values) = t.series(health, values, { health_watch: system, health_error_code: code }),
                GPUHealthCheckFailed: {
                  family: 'recovery',
                  team: $.teams.infra,
                  severity: 'warning',
                  expr: e.fill(|||
                    max by ($(alert), health_watch, health_error_code) ($(health)) >= $(fail)
                  |||, { alert: std.join(', ', $.identity.alert), health: $.exporter.workload(health), fail: std.toString(fail) }),
                  'for': w.verdict,
                  identity: $.identity.alert + ['health_watch', 'health_error_code'],
                  summary: "DCGM's health check fails a system of a GPU.",
                  description: gpuText + ': DCGM fails its {{ $labels.health_watch }} health check ({{ $labels.health_error_code }}) for ' + w.verdict + '.',
                  tests: [
                    t.case('memory fails', true, [watch('MEM', 'DCGM_FR_VOLATILE_DBE_DETECTED', '0x50 ' + fail + 'x10'), watch('PCIE', 'DCGM_FR_OK', '0x60')], value=fail, labels={ health_watch: 'MEM', health_error_code: 'DCGM_FR_VOLATILE_DBE_DETECTED' }),
                    t.case('a warning only', false, [watch('PCIE', 'DCGM_FR_PCI_REPLAY_RATE', '0x30 ' + $.healthResults.warn + 'x30')]),
                    t.case('every system passes', false, [watch('MEM', 'DCGM_FR_OK', '0x60'), watch('PCIE', 'DCGM_FR_OK', '0x60')]),
                    t.case('a failure shorter than ' + w.verdict, false, [watch('THERMAL', 'DCGM_FR_CLOCK_THROTTLE_THERMAL', '0x58 ' + fail + 'x2')]),
                  ],
                  runbook: {
                    meaning: 'dcgm-exporter runs DCGM health checks on every GPU, one per system (PCIe, NVLink, memory, SM, thermal, power, driver, ...): this one has failed for ' + w.verdict + '. health_error_code names the failure (a DCGM_FR_* code).',
                    impact: 'The failed system may already have cost jobs; other alerts of the GPU (ECC, XID, NVLink, recovery action) usually say more.',
                    notes: ['DCGM results: ' + std.join(', ', [k + ' ' + $.healthResults[k] for k in std.objectFields($.healthResults)]) + '. Warnings show on L5 and do not alert.'],
                    queries: [q('Health of every system of this GPU', health + gpuSel)],
                    diagnosis: [
                      step('Does another alert fire on this GPU (ECC, XID, NVLink, recovery action)?', 'Follow that alert: it names the fault.', ''),
                      step('Does `dcgmi health -c -g <group>` on the node show the same failure?', 'Drain the node and run `dcgmi diag -r 2` on the GPU.', 'A transient failure: watch the GPU on L5.'),
                    ],
                    mitigation: [$.nodes.cordon(l.host), 'Run `dcgmi diag -r 2` once it is drained; open an RMA if it fails.'],
                    escalation: 'Infrastructure on-call; hardware vendor support for RMAs.',
                    dashboards: ['L5'],
                  },
                },
              }),
}
