// Grace Blackwell NVL72 racks (exporter.platform gb200): the GPU's registration and health in
// its rack's NVLink fabric, its NVLink-C2C link to its Grace CPU and the NVLink 5 error
// counters (platformFields in fields.libsonnet). Each alert exists where the catalog has the
// fields it reads. A GPU whose fabric registration failed or whose fabric is unhealthy cannot
// take part in its NVLink domain, and a GPU whose C2C link is down has lost its Grace CPU: both
// page. A degraded fabric, a registration that does not complete, NVLink 5 errors and C2C
// errors ticket, as NVLink errors do.
local e = import '../lib/expr.libsonnet';
local gpu = import '../lib/gpu.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
{
  thresholds+: {
    // NVLink 5 errors that forward error correction could not correct, and NVLink-C2C CRC
    // errors or replays.
    nvlinkEffectiveErrorsPerMinute: 1,
    c2cErrorsPerMinute: 1,
  },

  windows+: {
    // How long a GPU may wait for its NVLink fabric registration (a node booting into an NVL72
    // rack waits for the fabric to be trained) before it tickets.
    fabricRegistration: '15m',
  },

  // The values of the fabric fields: the GPU's fabric registration
  // (DCGM_FI_DEV_FABRIC_MANAGER_STATUS, dcgmFabricManagerStatus_t) and its fabric health
  // (DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY, NVML's fabric health summary).
  fabricStates:: {
    registration: { 'not supported': 0, 'not started': 1, 'in progress': 2, success: 3, failure: 4 },
    health: { 'not supported': 0, healthy: 1, unhealthy: 2, 'limited capacity': 3 },
  },

  local has(field) = std.objectHas($.fields, field),
  local registration = 'DCGM_FI_DEV_FABRIC_MANAGER_STATUS',
  local fabricHealth = 'DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY',
  local c2cStatus = 'DCGM_FI_DEV_C2C_LINK_STATUS',
  local c2cLinks = 'DCGM_FI_DEV_C2C_LINK_COUNT',
  local c2cErrors = ['DCGM_FI_DEV_C2C_LINK_ERROR_INTR', 'DCGM_FI_DEV_C2C_LINK_ERROR_REPLAY'],
  local effective = 'DCGM_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS',
  local linkDown = 'DCGM_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS',

  // The pages of the platform (maintenance turns them into tickets).
  platformPages:: (if has(fabricHealth) && has(registration) then ['GPUFabricUnhealthy'] else [])
                  + (if has(c2cStatus) && has(c2cLinks) then ['GPUC2CLinkDown'] else []),

  local l = $.labels,
  // Per GPU: a device-level value repeats on the series of every MIG instance and pod, which
  // attributed() then attaches.
  local id = std.join(', ', $.identity.gpu),
  local th = $.thresholds,
  local w = $.windows,
  local fabric = $.fabricStates,
  local a = gpu($),
  local fill = a.fill,
  local gpuText = a.gpuText,
  local hw = a.owner,
  local gaugeIs(field, values) = std.join(' or ', [
    e.fill(|||
      max by ($(id)) ($(field)) == $(value)
    |||, { id: id, field: field, value: std.toString(v) })
    for v in values
  ]),

  // Scenarios of a fabric state field (what: a key of fabricStates): each firing state for
  // longer than the alert's window, each quiet state throughout, and the first firing state
  // for less than the window.
  local stateCases(what, firing, quiet, window) =
    local field = { registration: registration, health: fabricHealth }[what];
    local v(state) = fabric[what][state];
    [
      t.case(what + ' ' + s + ' for ' + window, true, [t.series(field, t.steps([[v(quiet[0]), 40], [v(s), 20]]))], value=v(s))
      for s in firing
    ] + [
      t.case(what + ' ' + s + ' throughout', false, [t.series(field, v(s) + 'x60')])
      for s in quiet
    ] + [
      local minutes = e.seconds(window) / 60;
      t.case(what + ' ' + firing[0] + ', shorter than ' + window, false, [t.series(field, t.steps([[v(quiet[0]), 62 - minutes], [v(firing[0]), minutes - 2]]))]),
    ],

  // Runbook parts.
  local q = rb.query,
  local step = rb.step,
  local gpuSel = a.gpuSel,
  local nodeSel = a.nodeSel,
  local cordon = $.nodes.cordon(l.host),
  local drain = $.nodes.drain(l.host),
  local runbook(meaning, impact, queries, diagnosis, mitigation) = {
    meaning: meaning,
    impact: impact,
    queries: queries,
    diagnosis: diagnosis,
    mitigation: mitigation,
    escalation: 'Infrastructure on-call; NVIDIA support for the rack (NVLink switch trays, fabric manager, IMEX).',
    dashboards: ['L3', 'L5'],
  },
  local fabricQueries = [
    q("This GPU's fabric registration and health", fill('$(registration)$(gpuSel) or $(fabricHealth)$(gpuSel)', { registration: registration, fabricHealth: fabricHealth })),
    q('Fabric health of every GPU of the node (one GPU, or the whole tray?)', fabricHealth + nodeSel),
    q(
      'GPUs of the cluster whose fabric is unhealthy or of limited capacity (one rack, or more?)',
      e.fill(
        'count by ($(cluster)) ($(piece))',
        {
          cluster: l.cluster,
          piece: std.join(' or ', [e.fill('$(fabricHealth){$(cluster)} == $(state)', { fabricHealth: fabricHealth, cluster: rb.is(l.cluster), state: fabric.health[s] }) for s in ['unhealthy', 'limited capacity']]),
        },
      ),
    ),
  ],
  local nvlinkQueries = [
    q('NVLink 5 errors left after error correction, per minute', fill('60 * rate($(effective)$(gpuSel)[5m])', { effective: effective })),
    q('Failed and successful link recoveries in the last hour', fill('increase($(linkDown)$(gpuSel)[1h]) or increase(DCGM_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS$(gpuSel)[1h])', { linkDown: linkDown })),
    q('Effective bit error rate', fill('DCGM_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER_FLOAT$(gpuSel)')),
    q("The GPU's fabric health", fabricHealth + gpuSel),
  ],

  alerts+: {
    [if std.member($.platformPages, 'GPUFabricUnhealthy') then 'GPUFabricUnhealthy']: hw {
      family: 'fabric',
      severity: 'critical',
      expr: a.attributed(e.fill(|||
        $(unhealthy) or $(failed)
      |||, { unhealthy: gaugeIs(fabricHealth, [fabric.health.unhealthy]), failed: gaugeIs(registration, [fabric.registration.failure]) })),
      'for': w.verdict,
      summary: 'A GPU cannot use its NVLink fabric: its fabric health is unhealthy or its fabric registration failed.',
      description: gpuText + ' has read fabric health ' + fabric.health.unhealthy + ' (unhealthy) or fabric registration ' + fabric.registration.failure + ' (failure) for ' + w.verdict + ' (value {{ $value }}): work that spans its NVLink domain fails on it.',
      tests: stateCases('health', ['unhealthy'], ['healthy', 'not supported'], w.verdict)
             + stateCases('registration', ['failure'], ['success', 'not supported'], w.verdict)
             + [
               t.case(
                 'health unhealthy on a MIG GPU (the value repeated on each instance)',
                 true,
                 [t.series(fabricHealth, t.steps([[fabric.health.healthy, 40], [fabric.health.unhealthy, 20]]))],
                 value=fabric.health.unhealthy,
                 mig=true,
               ),
             ]
             + [
               t.case(
                 'a fabric of limited capacity',
                 false,
                 [t.series(fabricHealth, t.steps([[fabric.health.healthy, 40], [fabric.health['limited capacity'], 20]]))],
                 alsoFires=[t.also('GPUFabricDegraded', fabric.health['limited capacity'])],
               ),
             ],
      runbook: runbook(
        "The GPU cannot take part in its rack's NVLink domain: NVML reports its fabric health unhealthy (" + fabricHealth + ' ' + fabric.health.unhealthy + '), or its registration with the fabric failed (' + registration + ' ' + fabric.registration.failure + '; ' + 'DCGM_FI_DEV_FABRIC_MANAGER_ERROR_CODE says why).',
        'Jobs that span the NVLink domain (multi-node NVLink through IMEX channels) fail on this GPU or hang in their collectives; CUDA may refuse new work on it.',
        fabricQueries + [q('Why the registration failed (an NVML return code)', fill('DCGM_FI_DEV_FABRIC_MANAGER_ERROR_CODE$(gpuSel)'))],
        [
          step('Do all GPUs of the node read the same?', "The node lost the fabric (its NVLink switch tray links, or the fabric manager of the rack): check `nvidia-smi -q -d FABRIC` on the node and the rack's NVLink switch trays."),
          step('Do GPUs of several nodes of the rack read the same?', "The rack's fabric (switch tray or its fabric manager) failed: escalate to the rack's owner.", 'One GPU: drain the node and reset the GPU.'),
        ],
        [cordon, drain, 'With no process on the GPU, reset it (`nvidia-smi --gpu-reset -i $' + l.gpu + '`) and check that `nvidia-smi -q -d FABRIC` reads State: Completed, Status: Success before uncordoning.'],
      ),
    },
    [if has(fabricHealth) then 'GPUFabricDegraded']: hw {
      family: 'fabric',
      severity: 'warning',
      expr: a.attributed(gaugeIs(fabricHealth, [fabric.health['limited capacity']])),
      'for': w.verdict,
      summary: "A GPU's NVLink fabric runs at limited capacity.",
      description: gpuText + ' has read fabric health ' + fabric.health['limited capacity'] + ' (limited capacity) for ' + w.verdict + ': a link or route of its NVLink domain is degraded or in recovery, and collectives across the rack slow down.',
      tests: stateCases('health', ['limited capacity'], ['healthy', 'not supported'], w.verdict)
             + [
               t.case(
                 'an unhealthy fabric',
                 false,
                 [t.series(fabricHealth, t.steps([[fabric.health.healthy, 40], [fabric.health.unhealthy, 20]]))],
                 alsoFires=[t.also('GPUFabricUnhealthy', fabric.health.unhealthy)],
               ),
             ],
      runbook: runbook(
        "The GPU's NVLink fabric works at limited capacity (" + fabricHealth + ' ' + fabric.health['limited capacity'] + '): ' + 'DCGM_FI_DEV_FABRIC_HEALTH_MASK tells which condition (degraded bandwidth, route recovery in progress, an unhealthy route, an access-timeout recovery).',
        'Jobs keep running; collectives across the NVLink domain run slower on this GPU, and every rank of the job waits for it.',
        fabricQueries + [q("The GPU's fabric health mask", fill('DCGM_FI_DEV_FABRIC_HEALTH_MASK$(gpuSel)'))],
        [
          step('Does GPUNvlinkLinkDown or GPUNvlinkEffectiveErrors fire on the GPU?', 'A link failed: follow that runbook.'),
          step('Did it clear within the hour (a route recovery finishing)?', 'Watch it on L5.', "Drain the node in working hours and reset the GPU; escalate to the rack's owner if it persists."),
        ],
        ['Plan a drain and GPU reset in working hours.', "If it persists after the reset, escalate to the owner of the rack's NVLink switch trays."],
      ),
    },
    [if has(registration) then 'GPUFabricNotRegistered']: hw {
      family: 'fabric',
      severity: 'warning',
      expr: a.attributed(gaugeIs(registration, [fabric.registration['not started'], fabric.registration['in progress']])),
      'for': w.fabricRegistration,
      summary: 'A GPU has waited for its NVLink fabric registration for ' + w.fabricRegistration + '.',
      description: gpuText + ' has read fabric registration {{ $value }} (' + fabric.registration['not started'] + ' not started, ' + fabric.registration['in progress'] + ' in progress) for ' + w.fabricRegistration + ': CUDA refuses work on it until the fabric is trained.',
      tests: stateCases('registration', ['in progress', 'not started'], ['success', 'not supported'], w.fabricRegistration),
      runbook: runbook(
        'The GPU has not completed its registration with the NVLink fabric (' + registration + ' ' + fabric.registration['not started'] + ' or ' + fabric.registration['in progress'] + ') for ' + w.fabricRegistration + ' (windows.fabricRegistration).',
        'The GPU takes no work: CUDA returns "system not yet initialized" until the fabric is trained. The node holds its GPUs idle.',
        fabricQueries,
        [
          step('Do all GPUs of the rack wait?', "The rack's fabric manager is not running or not reachable: check it on the rack's NVLink switch trays."),
          step('Does `nvidia-smi -q -d FABRIC` on the node show State: In Progress for long?', "Restart the node's fabric services (or reboot the node) after draining it."),
        ],
        [cordon, "Reboot the node once drained; escalate to the rack's owner if the registration still does not complete."],
      ),
    },

    [if std.member($.platformPages, 'GPUC2CLinkDown') then 'GPUC2CLinkDown']: hw {
      family: 'c2c',
      severity: 'critical',
      // Only a GPU that has C2C links: a GPU without any may report the status as 0.
      expr: a.attributed(e.fill(|||
        max by ($(id)) ($(status)) == 0 and on ($(gpuJoin)) max by ($(gpuJoin)) ($(links)) > 0
      |||, { id: id, status: c2cStatus, gpuJoin: std.join(', ', $.identity.gpuJoin), links: c2cLinks })),
      'for': w.verdict,
      summary: 'The NVLink-C2C link between a GPU and its Grace CPU is down.',
      description: gpuText + ' has reported its NVLink-C2C link to its Grace CPU inactive for ' + w.verdict + ': the GPU has lost its coherent path to host memory.',
      tests: [
        t.case('the link goes down', true, [t.series(c2cStatus, '1x40 0x20'), t.series(c2cLinks, '1x60')], value=0),
        t.case('the link goes down on a MIG GPU', true, [t.series(c2cStatus, '1x40 0x20'), t.series(c2cLinks, '1x60')], value=0, mig=true),
        t.case('the link is up', false, [t.series(c2cStatus, '1x60'), t.series(c2cLinks, '1x60')]),
        t.case('a GPU without C2C links', false, [t.series(c2cStatus, '0x60'), t.series(c2cLinks, '0x60')]),
        t.case('down for less than ' + w.verdict, false, [t.series(c2cStatus, '1x57 0x3'), t.series(c2cLinks, '1x60')]),
      ],
      runbook: runbook(
        'The NVLink-C2C link between the GPU and its Grace CPU is inactive (' + c2cStatus + ' 0 on a GPU with ' + c2cLinks + ' above 0).',
        'The GPU has lost its path to host memory: the jobs on it fail, and the node cannot use it until it is repaired.',
        [
          q('C2C link status and link count', fill('$(c2cStatus)$(gpuSel) or $(c2cLinks)$(gpuSel)', { c2cStatus: c2cStatus, c2cLinks: c2cLinks })),
          q('C2C CRC errors and replays per minute before it went down', fill('60 * rate($(c2cErrors)$(gpuSel)[5m]) or 60 * rate($(c2cErrors2)$(gpuSel)[5m])', { c2cErrors: c2cErrors[0], c2cErrors2: c2cErrors[1] })),
          q('The XIDs of this GPU', fill('DCGM_FI_DEV_XID_ERRORS$(gpuSel)')),
        ],
        [
          step('Did C2C errors (GPUC2CLinkErrors) precede it?', 'A failing link: the superchip needs hardware service.'),
          step('Does the link come back after a node reboot?', 'Watch it; open a case if it drops again.', 'Open an RMA for the compute tray.'),
        ],
        [cordon, drain, 'Reboot the node once drained; open an RMA for the compute tray if the link stays down.'],
      ),
    },
    [if has(c2cErrors[0]) && has(c2cErrors[1]) then 'GPUC2CLinkErrors']: hw {
      panelThresholds:: { [f]: th.c2cErrorsPerMinute for f in c2cErrors },
      family: 'c2c',
      severity: 'warning',
      expr: a.attributed(std.join(' or ', [a.perMinute(f, th.c2cErrorsPerMinute) for f in c2cErrors])),
      'for': '10m',
      summary: 'The NVLink-C2C link of a GPU sees CRC errors or replays.',
      description: gpuText + ' sees {{ $value | printf "%.1f" }} NVLink-C2C CRC errors or replays per minute (threshold ' + e.num(th.c2cErrorsPerMinute) + ').',
      tests: [
        t.case('CRC errors', true, [t.series(c2cErrors[0], t.risingPerMinute(5 * th.c2cErrorsPerMinute))], value=5 * th.c2cErrorsPerMinute),
        t.case('replays', true, [t.series(c2cErrors[1], t.risingPerMinute(3 * th.c2cErrorsPerMinute))], value=3 * th.c2cErrorsPerMinute),
        t.case('rare CRC errors', false, [t.series(c2cErrors[0], t.risingPerMinute(th.c2cErrorsPerMinute / 2))]),
      ],
      runbook: runbook(
        'The NVLink-C2C link between the GPU and its Grace CPU sees more than ' + e.num(th.c2cErrorsPerMinute) + ' CRC errors or replays per minute.',
        'Transfers between the GPU and host memory slow down; a failing link ends with the link down (GPUC2CLinkDown).',
        [q('C2C CRC errors and replays per minute', fill('60 * rate($(c2cErrors)$(gpuSel)[5m]) or 60 * rate($(c2cErrors2)$(gpuSel)[5m])', { c2cErrors: c2cErrors[0], c2cErrors2: c2cErrors[1] })), q('C2C link status', c2cStatus + gpuSel)],
        [step('Has the rate kept rising for a day?', 'Plan hardware service for the compute tray.', 'A burst: watch it on L5.')],
        ['Drain the node in working hours and run `dcgmi diag -r 3`; open an RMA for the compute tray if it fails.'],
      ),
    },

    [if has(effective) then 'GPUNvlinkEffectiveErrors']: hw {
      panelThresholds:: { [effective]: th.nvlinkEffectiveErrorsPerMinute },
      family: 'nvlink',
      severity: 'warning',
      expr: a.attributed(a.perMinute(effective, th.nvlinkEffectiveErrorsPerMinute)),
      'for': '10m',
      summary: 'The NVLink 5 links of a GPU see errors that error correction cannot correct.',
      description: gpuText + ' sees {{ $value | printf "%.1f" }} NVLink 5 errors per minute left after forward error correction (threshold ' + e.num(th.nvlinkEffectiveErrorsPerMinute) + ').',
      tests: [
        t.case('uncorrected errors', true, [t.series(effective, t.risingPerMinute(4 * th.nvlinkEffectiveErrorsPerMinute))], value=4 * th.nvlinkEffectiveErrorsPerMinute),
        t.case('few uncorrected errors', false, [t.series(effective, t.risingPerMinute(th.nvlinkEffectiveErrorsPerMinute / 2))]),
      ],
      runbook: runbook(
        "The GPU's NVLink 5 links see more than " + e.num(th.nvlinkEffectiveErrorsPerMinute) + ' errors per minute that forward error correction could not correct (' + effective + '): each one costs a replay.',
        'Collectives across the NVLink domain slow down for every GPU of the job; a link that keeps failing is declared down (GPUNvlinkLinkDown).',
        nvlinkQueries,
        [
          step('Do the GPUs at both ends of the links (other GPUs of the rack) show errors too?', "Suspect the NVLink switch tray or its cable cartridge: escalate to the rack's owner."),
          step('Does the symbol bit error rate (before correction) rise with it?', 'A degrading link: drain the node and run `dcgmi diag -r 3`.', 'A burst: watch it.'),
        ],
        [cordon, drain, "Run `dcgmi diag -r 3`; escalate to the rack's owner if the links fail it."],
      ),
    },
    [if has(linkDown) then 'GPUNvlinkLinkDown']: hw {
      family: 'nvlink',
      severity: 'warning',
      expr: a.attributed(e.fill(|||
        $(increase) > 0
      |||, { increase: a.increasedOver(linkDown, w.throttle) })),
      summary: 'An NVLink 5 link of a GPU failed to recover and was declared down.',
      description: gpuText + ' had {{ $value | printf "%.0f" }} NVLink 5 link recoveries fail in the last ' + w.throttle + ': the link is down and the GPU runs on the rest.',
      tests: [
        t.case('a link declared down', true, [t.series(linkDown, '0x56 1x4')], value=1),
        t.case('a link down long ago', false, [t.series(linkDown, '0x20 1x40')]),
      ] + a.churnCases(linkDown, 'a failed recovery', 1),
      runbook: runbook(
        "A link recovery of one of the GPU's NVLink 5 links failed and the link was declared down (" + linkDown + ').',
        'The GPU runs on its other links: collectives across the NVLink domain slow down, and the fabric health usually reads limited capacity (GPUFabricDegraded).',
        nvlinkQueries,
        [
          step('Did successful recoveries come before it (a flapping link)?', "The link or its switch-tray port is failing: escalate to the rack's owner."),
          step('Does the link come back after a GPU reset?', 'Watch it on L5.', "Open a case for the link with the rack's owner."),
        ],
        [cordon, drain, 'Reset the GPU once drained and check `nvidia-smi nvlink -s -i $' + l.gpu + '`; escalate if the link stays down.'],
      ),
    },
  },
}
