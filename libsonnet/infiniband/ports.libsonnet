// The network under the collectives: InfiniBand and RoCE ports as node_exporter's infiniband
// collector reports them (on by default; collector/infiniband_linux.go, from
// /sys/class/infiniband/<device>/ports/<port>/counters), joined to the multi-node training
// jobs whose GPUs run on the node. The section infiniband is off unless a catalog switches it
// on (enabled+: { infiniband: true }).
//
// Every series is labelled device and port; RoCE ports (mlx5 on Ethernet) are reported the
// same way, with no label telling them apart. The error counters are narrow and saturate
// (link_downed and link_error_recovery 8 bits, symbol and receive errors 16, link integrity
// 4): a counter stuck at its maximum counts nothing more (docs/catalog-guide.md says how to
// reset them). A port that was never cabled stays down; only a port that was active in the
// last windows.infinibandActive and is not now is down.
//
// A port that goes down or flaps (link_downed rises) under a running multi-node job pages
// the infrastructure team (the job's collectives stall or fall back); on a node without one it
// tickets. Symbol, receive and link-integrity errors ticket, and so does a port that loses a
// large share of its transmit time waiting for credits (congestion).
local e = import '../lib/expr.libsonnet';
local names = import '../lib/names.libsonnet';
local t = import '../lib/test.libsonnet';
{
  // node_exporter's scrape job, and the label of its series that names the Kubernetes node
  // (kube-prometheus and kube-prometheus-stack relabel instance to the node's name; a
  // trailing :port is dropped).
  infiniband:: {
    job: 'node-exporter',
    nodeLabel: 'instance',
    // The active port states (state_id: 4 active, 5 active deferred; below 4 down, init,
    // armed).
    activeState: 4,
    // The error counters that ticket, by the name the alert gives each.
    errors: {
      symbol_error: 'node_infiniband_symbol_error_total',
      port_errors_received: 'node_infiniband_port_errors_received_total',
      local_link_integrity_errors: 'node_infiniband_local_link_integrity_errors_total',
    },
    // What a port could have sent in one tick of node_infiniband_port_transmit_wait_total
    // (PortXmitWait: ticks with data to send and nothing sent, for want of credits). The tick
    // is the hardware's: NVIDIA's Quantum generation counts one every 8 bytes whatever the
    // width; older switches every 32 bytes a lane (perfquery -c shows a port's tick).
    transmitWaitBytes: 8,
    // A node_exporter series (or expression on one) labelled with the catalog's host label.
    onHost(x):: e.fill(|||
      label_replace($(x), "$(host)", "$1", "$(node)", "([^:]+)(?::[0-9]+)?")
    |||, { x: x, host: $.labels.host, node: $.infiniband.nodeLabel }),
    // The alert's port, for runbook queries ($label: the alert's value of the label).
    portMatchers:: e.fill(|||
      job="$(job)", $(cluster)="$$(cluster)", $(node)=~"$$(host)(:[0-9]+)?", device="$device", port="$port"
    |||, { job: $.infiniband.job, cluster: $.labels.cluster, node: $.infiniband.nodeLabel, host: $.labels.host }),
    // The share of a port's transmit opportunity lost to waiting over a window: lost bytes
    // (ticks × transmitWaitBytes) over lost and sent bytes. NaN (no sample) on an idle port.
    transmitWaitShare(matchers, window):: e.fill(|||
      $(lost) / ($(lost) + rate(node_infiniband_port_data_transmitted_bytes_total{$(matchers)}[$(window)]))
    |||, {
      lost: e.fill('$(bytes) * rate(node_infiniband_port_transmit_wait_total{$(matchers)}[$(window)])', { bytes: e.num($.infiniband.transmitWaitBytes), matchers: matchers, window: window }),
      matchers: matchers,
      window: window,
    }),
  },

  thresholds+: {
    // Errors per minute on one port, of one kind, that ticket.
    infinibandErrorsPerMinute: 1,
    // The share of a port's transmit opportunity lost waiting for credits that tickets.
    infinibandTransmitWaitShare: 0.2,
  },

  windows+: {
    // A port active at some point in this window and not now is down (a port never cabled
    // stays down and is no fault).
    infinibandActive: '1d',
    // A link_downed increase in this window is a flap.
    infinibandFlap: '15m',
    // A flapping link's alert holds this long after its last flap: a link that flaps every
    // 20 to 30 minutes is one episode, one page (or one ticket), not one per flap.
    infinibandFlapEpisode: '30m',
    // The window error rates are measured over.
    infinibandErrors: '10m',
    // The window transmit waiting is measured over.
    infinibandCongestion: '10m',
  },

  local l = $.labels,
  local ib = $.infiniband,
  local th = $.thresholds,
  local w = $.windows,
  local port = [l.cluster, l.host, 'device', 'port'],
  local portId = std.join(', ', port),
  local job = [l.cluster] + $.training.jobLabels,
  local multiNodeJobs = 'node_job:training_gpus:count',
  // The ports down or flapping, recorded once for the page and the ticket (each would scan a
  // day of every port's state otherwise).
  local unstablePorts = 'port:node_infiniband_link:unstable',
  local sel = e.fill(|||
    {job="$(job)"}
  |||, { job: ib.job }),
  local onHost = ib.onHost,

  metrics+: {
    local labels = [l.cluster, 'job', 'instance', 'device', 'port'],
    [name]: { section: 'infiniband', type: 'counter', labels: labels }
    for name in std.set(['node_infiniband_link_downed_total', 'node_infiniband_link_error_recovery_total', 'node_infiniband_port_transmit_wait_total'] + std.objectValues(ib.errors))
  } + {
    node_infiniband_state_id: { section: 'infiniband', type: 'gauge', labels: [l.cluster, 'job', 'instance', 'device', 'port'] },
    node_infiniband_port_data_received_bytes_total: { section: 'infiniband', type: 'counter', labels: [l.cluster, 'job', 'instance', 'device', 'port'] },
    node_infiniband_port_data_transmitted_bytes_total: { section: 'infiniband', type: 'counter', labels: [l.cluster, 'job', 'instance', 'device', 'port'] },
  },

  records+: {
    // The GPUs each multi-node training job (a training controller's pods on more than one
    // node, from the straggler record's owner labels) holds on each node.
    [multiNodeJobs]: {
      section: 'infiniband',
      // In the straggler record's group: it reads that record (a rule group evaluates its
      // rules in order; another group's could read it a cycle late).
      family: 'workload',
      local perNode = e.fill(|||
        count by ($(node)) ($(jobs))
      |||, { node: std.join(', ', [l.cluster, l.host] + $.training.jobLabels), jobs: names.trainingActivity(w.straggler) }),
      expr: e.fill(|||
        $(perNode) and on ($(job)) (count by ($(job)) ($(perNode)) > 1)
      |||, { perNode: perNode, job: std.join(', ', job) }),
    },
    [unstablePorts]: { section: 'infiniband', family: 'network', expr: unstable },
  },

  // A port that went down (active in windows.infinibandActive, not now) or flapped (its
  // link_downed counter rose in windows.infinibandFlap, and it is not down now: a link that
  // went down counts a link_downed too), labelled condition down or flapping, valued 1.
  local unstable = e.fill(|||
    count by ($(port), condition) (
      $(down)
      or
      $(flapping)
    )
  |||, {
    port: portId,
    local downNow = e.fill(|||
      (node_infiniband_state_id$(sel) < $(active) and max_over_time(node_infiniband_state_id$(sel)[$(window)]) >= $(active))
    |||, { sel: sel, active: std.toString(ib.activeState), window: w.infinibandActive }),
    down: onHost(e.fill('label_replace($(x), "condition", "down", "", "")', { x: downNow })),
    flapping: onHost(e.fill(|||
      label_replace(increase(node_infiniband_link_downed_total$(sel)[$(window)]) > 0 unless on ($(node), device, port) $(down), "condition", "flapping", "", "")
    |||, {
      sel: sel,
      window: w.infinibandFlap,
      down: e.fill('node_infiniband_state_id$(sel) < $(active)', { sel: sel, active: std.toString(ib.activeState) }),
      node: std.join(', ', [l.cluster, ib.nodeLabel]),
    })),
  }),
  local underJob = e.fill(|||
    group by ($(node)) ($(jobs))
  |||, { node: std.join(', ', [l.cluster, l.host]), jobs: multiNodeJobs }),

  // The alert's port, for runbook queries ($label: the alert's value of the label).
  local portMatchers = ib.portMatchers,
  local thePort = e.fill(|||
    {$(matchers)}
  |||, { matchers: portMatchers }),
  local linkRunbook(tier) = {
    meaning: 'An InfiniBand or RoCE port of the node went down (it was active in the last ' + w.infinibandActive + ' and is not now) or flapped (its link_downed counter rose in the last ' + w.infinibandFlap + ')' + (if tier == 'page' then ', while a multi-node training job runs GPUs on the node.' else '; no multi-node training job runs GPUs on the node.'),
    impact: if tier == 'page' then "The job's collectives (all-reduce, all-gather) stall or fall back to a slower path: the whole job, on every node, runs at the pace of this link or hangs until NCCL times out." else 'The next multi-node job scheduled on the node inherits the bad link.',
    queries: [
      { title: 'Port state (' + ib.activeState + ' active)', expr: e.fill(|||
        node_infiniband_state_id$(port)
      |||, { port: thePort }) },
      { title: 'Link downs and error recoveries in the last hour', expr: e.fill(|||
        increase(node_infiniband_link_downed_total$(port)[1h]) or increase(node_infiniband_link_error_recovery_total$(port)[1h])
      |||, { port: thePort }) },
      { title: 'Multi-node jobs on the node', expr: e.fill(|||
        $(jobs){$(cluster)="$$(cluster)", $(host)="$$(host)"}
      |||, { jobs: multiNodeJobs, cluster: l.cluster, host: l.host }) },
    ],
    diagnosis: [
      { check: 'Do symbol or link-integrity errors rise on the port too (GPUInfiniBandPortErrors)?', yes: 'A bad cable or transceiver: reseat or replace it; the switch port may need the same.', no: '' },
      { check: 'Did the switch side log the port going down (UFM, switch logs)?', yes: 'Fabric event: open a case with the network team with the port and time.', no: 'The HCA or its driver: check dmesg on the node (mlx5 errors, firmware resets).' },
    ],
    mitigation: if tier == 'page' then ['Cordon the node so the scheduler places no new multi-node job on it.', 'Restart the job from its last checkpoint without the node, if it hangs.', 'Replace the cable or transceiver, then uncordon.'] else ['Cordon the node until the link is fixed, so no multi-node job lands on it.', 'Replace the cable or transceiver, then uncordon.'],
    escalation: 'Infrastructure on-call; the network team for the switch side.',
    dashboards: ['L3'],
  },

  alerts+: {
    local base = { section: 'infiniband', family: 'network', team: $.teams.infra, identity: port + ['condition'] },
    local ports(state, downed) = [
      t.series('node_infiniband_state_id', state, { job: ib.job, [ib.nodeLabel]: t.scenarioHost, device: 'mlx5_0', port: '1' }),
      t.series('node_infiniband_link_downed_total', downed, { job: ib.job, [ib.nodeLabel]: t.scenarioHost, device: 'mlx5_0', port: '1' }),
    ],
    // A training job's GPU on the scenario's node (its pod owned by the scenario's owner), and
    // the same job's GPU on a second node (for the scenario's extra series).
    local busy(values='0.8x60') = [t.series('DCGM_FI_PROF_PIPE_TENSOR_ACTIVE', values)],
    local job = { owner: 'llama-70b', ownerKind: $.training.scenarioKind },
    local secondNode(values='0.8x60') = [
      t.series('DCGM_FI_PROF_PIPE_TENSOR_ACTIVE', values, std.mergePatch(t.gpu(l, t.scenarioHost + '-b', 0), { [l.cluster]: null }) + $.training.scenarioWorker(job.owner, t.scenarioHost + '-b-0')),
    ] + $.training.scenarioOwnerSeries(job.owner, t.scenarioHost + '-b-0'),
    local target(condition) = { [l.host]: t.scenarioHost, device: 'mlx5_0', port: '1', condition: condition },
    local flap = '0x50 1x10',

    GPUInfiniBandLinkUnstableUnderJob: base {
      severity: 'critical',
      expr: e.fill(|||
        $(unstable) > 0 and on ($(node)) $(underJob)
      |||, { unstable: unstablePorts, node: std.join(', ', [l.cluster, l.host]), underJob: underJob }),
      'for': '1m',
      keepFiringFor: w.infinibandFlapEpisode,
      summary: 'An InfiniBand/RoCE port under a running multi-node training job went down or flaps.',
      description: 'Port {{ $labels.device }}/{{ $labels.port }} of node {{ $labels.' + l.host + ' }} (cluster {{ $labels.' + l.cluster + ' }}) is {{ $labels.condition }} while a multi-node training job runs GPUs on the node: its collectives stall or slow down on every node.',
      tests: [
        t.case('a link flaps under a two-node job', true, busy(), owner=job.owner, ownerKind=job.ownerKind, extra=secondNode() + ports('4x60', flap), target=target('flapping'), value=1),
        t.case('a link goes down under a two-node job', true, busy(), owner=job.owner, ownerKind=job.ownerKind, extra=secondNode() + ports('4x40 1x20', '0x40 1x20'), target=target('down'), value=1),
        t.case('a link flaps under a single-node job', false, busy(), owner=job.owner, ownerKind=job.ownerKind, extra=ports('4x60', flap), alsoFires=[t.also('GPUInfiniBandLinkUnstable', 1, target=target('flapping'))]),
        t.case('a link that flapped an hour ago', false, busy(), owner=job.owner, ownerKind=job.ownerKind, extra=secondNode() + ports('4x60', '0x10 1x50')),
        // Flaps at minutes 10 and 35: 25 minutes after the last, the page still holds, so the
        // next flap is the same episode, not a new page.
        t.case('between flaps 25 minutes apart: one episode', true, busy(), owner=job.owner, ownerKind=job.ownerKind, extra=secondNode() + ports('4x60', '0x10 1x25 2x25'), target=target('flapping'), value=1),
        t.case('a port never cabled stays down', false, busy(), owner=job.owner, ownerKind=job.ownerKind, extra=secondNode() + ports('1x60', '0x60')),
        t.case('a node without InfiniBand', false, busy(), owner=job.owner, ownerKind=job.ownerKind, extra=secondNode()),
      ],
      runbook: linkRunbook('page'),
    },

    GPUInfiniBandLinkUnstable: base {
      severity: 'warning',
      expr: e.fill(|||
        $(unstable) > 0 unless on ($(node)) $(underJob)
      |||, { unstable: unstablePorts, node: std.join(', ', [l.cluster, l.host]), underJob: underJob }),
      'for': '1m',
      keepFiringFor: w.infinibandFlapEpisode,
      summary: 'An InfiniBand/RoCE port went down or flaps on a node without a multi-node job.',
      description: 'Port {{ $labels.device }}/{{ $labels.port }} of node {{ $labels.' + l.host + ' }} (cluster {{ $labels.' + l.cluster + ' }}) is {{ $labels.condition }}; no multi-node training job runs GPUs on the node now.',
      tests: [
        t.case('a link flaps on an idle node', true, [], extra=ports('4x60', flap), target=target('flapping'), value=1),
        t.case('a port flapping every 25 minutes on an idle node: one ticket', true, [], extra=ports('4x60', '0x10 1x25 2x25'), target=target('flapping'), value=1),
        t.case('a link flaps after the two-node job ended', true, busy('0.8x30 _x30'), owner=job.owner, ownerKind=job.ownerKind, extra=secondNode('0.8x30 _x30') + ports('4x60', flap), target=target('flapping'), value=1),
        t.case('a link flaps under a two-node job (it pages instead)', false, busy(), owner=job.owner, ownerKind=job.ownerKind, extra=secondNode() + ports('4x60', flap), alsoFires=[t.also('GPUInfiniBandLinkUnstableUnderJob', 1, target=target('flapping'))]),
        t.case('a link goes down on an idle node', true, [], extra=ports('4x40 1x20', '0x40 1x20'), target=target('down'), value=1),
        t.case('a port never cabled stays down', false, [], extra=ports('1x60', '0x60')),
        t.case('every port active', false, [], extra=ports('4x60', '3x60')),
      ],
      runbook: linkRunbook('ticket'),
    },

    GPUInfiniBandPortErrors: base {
      panelThresholds:: { [m]: th.infinibandErrorsPerMinute for m in std.objectValues(ib.errors) },
      severity: 'warning',
      identity: port + ['counter'],
      expr: std.join(' or ', [
        e.fill(|||
          max by ($(port), counter) (label_replace($(perMinute) > $(threshold), "counter", "$(kind)", "", ""))
        |||, {
          port: portId,
          perMinute: onHost(e.fill('60 * rate($(counter)$(sel)[$(window)])', { counter: ib.errors[kind], sel: sel, window: w.infinibandErrors })),
          threshold: e.num(th.infinibandErrorsPerMinute),
          kind: kind,
        })
        for kind in std.objectFields(ib.errors)
      ]),
      'for': '15m',
      summary: 'An InfiniBand/RoCE port counts physical or receive errors.',
      description: 'Port {{ $labels.device }}/{{ $labels.port }} of node {{ $labels.' + l.host + ' }} (cluster {{ $labels.' + l.cluster + ' }}) counts {{ $value | humanize }} {{ $labels.counter }} per minute (threshold ' + e.num(th.infinibandErrorsPerMinute) + '): a marginal cable, transceiver or port, which retransmits and slows the collectives before the link goes down.',
      local errors(counter, values) = t.series(ib.errors[counter], values, { job: ib.job, [ib.nodeLabel]: t.scenarioHost + ':9100', device: 'mlx5_1', port: '1' }),
      tests: [
        t.case(
          'symbol errors on one port',
          true,
          [],
          extra=[errors('symbol_error', t.risingPerMinute(5 * th.infinibandErrorsPerMinute))],
          target={ [l.host]: t.scenarioHost, device: 'mlx5_1', port: '1', counter: 'symbol_error' },
          value=5 * th.infinibandErrorsPerMinute,
        ),
        t.case('a few errors, below the threshold', false, [], extra=[errors('port_errors_received', t.risingPerHour(30 * th.infinibandErrorsPerMinute))]),
        t.case('errors that stopped', false, [], extra=[errors('symbol_error', '0+50x30 1500x30')]),
      ],
      runbook: {
        meaning: "A port's " + std.join(
          ', ',
          std.objectFields(ib.errors),
        ) + ' counter rose by more than ' + e.num(th.infinibandErrorsPerMinute) + ' a minute over ' + w.infinibandErrors + ' for ' + $.alerts.GPUInfiniBandPortErrors['for'] + '.',
        impact: 'Corrupted packets are dropped and retransmitted: collectives through the port slow down; the link may go down next.',
        queries: [
          {
            title: 'Errors per minute, by counter',
            expr: std.join(' or ', [e.fill('60 * rate($(counter)$(port)[$(window)])', { counter: ib.errors[k], port: thePort, window: w.infinibandErrors }) for k in std.objectFields(ib.errors)]),
          },
        ],
        diagnosis: [
          { check: 'Symbol or link-integrity errors (the physical layer)?', yes: 'Reseat or replace the cable and transceiver; check the switch port.', no: 'Receive errors alone: malformed packets from the far end; check the switch and the sender.' },
        ],
        mitigation: ['Cordon the node before the next multi-node job lands on it.', 'Replace the cable or transceiver.'],
        escalation: 'Infrastructure on-call; the network team.',
        dashboards: ['L3'],
      },
    },
    GPUInfiniBandCongested: base {
      panelThresholds:: { transmitWaitShare: th.infinibandTransmitWaitShare },
      severity: 'warning',
      identity: port,
      expr: e.fill(|||
        max by ($(port)) ($(share) > $(threshold))
      |||, {
        port: portId,
        share: onHost(ib.transmitWaitShare(e.fill('job="$(job)"', { job: ib.job }), w.infinibandCongestion)),
        threshold: e.num(th.infinibandTransmitWaitShare),
      }),
      'for': '15m',
      summary: 'An InfiniBand/RoCE port loses much of its transmit time waiting for credits: the fabric is congested.',
      description: 'Port {{ $labels.device }}/{{ $labels.port }} of node {{ $labels.' + l.host + ' }} (cluster {{ $labels.' + l.cluster + ' }}) lost {{ $value | humanizePercentage }} of what it could have sent over ' + w.infinibandCongestion + ' waiting for credits (threshold ' + e.percent(th.infinibandTransmitWaitShare) + ' %): collectives through it slow down.',
      // A port sending 1 MB/s, losing a share of its transmit opportunity: its 32-bit wait
      // counter stays under its maximum for the hour (at line rate it fills in seconds).
      local transmitting(sent, waited) = [
        t.series(name[0], name[1], { job: ib.job, [ib.nodeLabel]: t.scenarioHost, device: 'mlx5_2', port: '1' })
        for name in [['node_infiniband_port_data_transmitted_bytes_total', sent], ['node_infiniband_port_transmit_wait_total', waited]]
      ],
      local congested(share) = transmitting(t.risingPerMinute(60e6), t.risingPerMinute(60e6 * share / (1 - share) / ib.transmitWaitBytes)),
      local between = (1 + th.infinibandTransmitWaitShare) / 2,
      tests: [
        t.case('a port loses most of its transmit time waiting', true, [], extra=congested(between), target={ [l.host]: t.scenarioHost, device: 'mlx5_2', port: '1' }, value=between),
        t.case('a port waits a little', false, [], extra=congested(th.infinibandTransmitWaitShare / 2)),
        t.case('an idle port', false, [], extra=transmitting('0x60', '0x60')),
        // Saturated, the wait counter stops: the share reads 0; the ticket that says so fires.
        local full = ib.counterMax.node_infiniband_port_transmit_wait_total, at = { [l.host]: t.scenarioHost, device: 'mlx5_2', port: '1' };
        t.case('a saturated wait counter is not a port that waits nothing', false, [], extra=transmitting(t.risingPerMinute(60e9), full + 'x60'), alsoFires=[t.also('GPUInfiniBandCounterSaturated', full, target=at { counter: 'port_transmit_wait' })]),
      ],
      runbook: {
        meaning: 'The port had data to send and no credits from the far end to send it during more than ' + e.percent(th.infinibandTransmitWaitShare) + ' % of its transmit opportunity over ' +
                 w.infinibandCongestion + ', for ' + $.alerts.GPUInfiniBandCongested['for'] + ' (lost bytes: PortXmitWait ticks × infiniband.transmitWaitBytes, ' + e.num(ib.transmitWaitBytes) + ').',
        impact: 'Collectives through the port slow down; every rank of a job waits for the slowest link.',
        queries: [
          { title: 'Share of transmit time lost waiting', expr: ib.transmitWaitShare(portMatchers, w.infinibandCongestion) },
          { title: 'Data transmitted per second', expr: e.fill(|||
            rate(node_infiniband_port_data_transmitted_bytes_total$(port)[$(window)])
          |||, { port: thePort, window: w.infinibandCongestion }) },
        ],
        diagnosis: [
          { check: 'Is infiniband.transmitWaitBytes right for this hardware (perfquery -c shows the tick)?', yes: '', no: 'Set it: the share is off by the ratio of the two.' },
          { check: 'Do other ports of the same leaf switch wait too?', yes: 'Congestion in the fabric (an oversubscribed uplink, a hot spot): the network team checks routing and adaptive routing.', no: 'The far end of this link: a slow receiver or a marginal switch port; check its errors (GPUInfiniBandPortErrors).' },
        ],
        mitigation: ['Move latency-bound jobs off the congested leaf, or spread them across leaves.', 'Ask the network team to rebalance the routes.'],
        escalation: 'Infrastructure on-call; the network team.',
        dashboards: ['L3'],
      },
    },
  },
}
