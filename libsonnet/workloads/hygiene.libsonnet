// Fleet hygiene: GPUs of one SKU on different drivers, and exporter targets that fail a share
// of their scrapes while up.
local e = import '../lib/expr.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
{
  thresholds+: {
    // Share of failed exporter scrapes that is a problem even while the target is up.
    scrapeFailureRatio: 0.1,
  },

  windows+: {
    scrapeFailures: '30m',
  },

  local l = $.labels,
  local th = $.thresholds,
  local w = $.windows,

  alerts+: {
    // Runbook parts; the steps alerts of several families share come from lib/runbook.libsonnet.
    local q = rb.query,
    local step = rb.step,
    local is = rb.is,

    local hygiene = { family: 'hygiene', team: $.teams.infra },

    GPUDriverVersionSkew: hygiene {
      severity: 'warning',
      local h = $.exporter.healthField,
      expr: e.fill(|||
        count by ($(cluster)) (group by ($(cluster), $(driver)) ($(health))) > 1
      |||, { cluster: l.cluster, driver: l.driverVersion, health: $.exporter.health() }),
      'for': '30m',
      identity: [l.cluster],
      summary: 'GPUs of one cluster run different driver versions.',
      description: 'Cluster {{ $labels.' + l.cluster + ' }} runs {{ $value }} NVIDIA driver versions: a stalled upgrade, or nodes outside the fleet image. Mixed drivers break CUDA compatibility assumptions.',
      tests: [
        t.case('two driver versions', true, [], gpus=2, drivers=['550.90.07', '535.183.01'], target={}, value=2),
        t.case('one driver version', false, [], gpus=2),
        t.case('upgraded GPU appeared 10 minutes ago', false, [t.series(h, '65x60', entities=[0]), t.series(h, '_x50 65x10', entities=[1])], gpus=2, drivers=['550.90.07', '535.183.01'], health=false),
      ],
      runbook: {
        meaning: 'GPUs of one cluster run more than one NVIDIA driver version.',
        impact: 'CUDA images built for the newer driver fail on older nodes ("driver insufficient"); results may differ between nodes.',
        queries: [
          q('GPUs per driver version', e.fill('count by ($(driverVersion)) (group by ($(gpuJoin), $(driverVersion)) ($(health)))', { driverVersion: l.driverVersion, gpuJoin: std.join(', ', $.identity.gpuJoin), health: $.exporter.health(is(l.cluster)) })),
          q('Nodes per driver version', e.fill('count by ($(driverVersion)) (group by ($(host), $(driverVersion)) ($(health)))', { driverVersion: l.driverVersion, host: l.host, health: $.exporter.health(is(l.cluster)) })),
        ],
        diagnosis: [
          step('Is a driver rollout in progress?', 'Check that it progresses; the alert clears when it ends.', 'Find the nodes on the old version: they missed the image or rollout.'),
        ],
        mitigation: ['Finish or roll back the driver rollout.', "Reimage the stragglers with the fleet's node image."],
        escalation: rb.escalation.infra,
        dashboards: ['L2'],
      },
    },

    DCGMExporterScrapesFailing: hygiene {
      severity: 'warning',
      local up = e.fill(|||
        up{job="$(job)"}
      |||, { job: $.exporter.job }),
      // A target down for good is DCGMExporterDown's; a target that left service discovery
      // (its node drained or deleted) has no up series now, and is not failing.
      expr: e.fill(|||
        (1 - avg_over_time($(up)[$(window)])) > $(ratio) unless max_over_time($(up)[5m]) == 0 and $(up)
      |||, { up: up, window: w.scrapeFailures, ratio: std.toString(th.scrapeFailureRatio) }),
      'for': '10m',
      identity: [l.cluster, 'instance', 'job'] + $.exporter.targetPodLabels,
      summary: 'A dcgm-exporter target keeps failing scrapes while it is up.',
      description: 'dcgm-exporter {{ $labels.instance }} in cluster {{ $labels.' + l.cluster + ' }} failed {{ $value | humanizePercentage }} of its scrapes in the last ' + w.scrapeFailures + ': GPU series have gaps (scrape timeout, DCGM hang, node pressure).',
      tests:
        // Every fourth scrape fails; 8 of the 30 samples in the window are failures.
        local flaky = std.join(' ', std.repeat(['1', '1', '1', '0'], 15) + ['1']);
        [
          t.case('every fourth scrape fails', true, [], up=flaky, value=8 / 30),
          t.case('one failed scrape', false, [], up='1x58 0 1'),
          t.case('target down', false, [], up='1x30 0x30', health='65x30 _x30', alsoFires=[t.also('DCGMExporterDown', 0)]),
          // Its last three scrapes failed as the node drained, then it left service discovery.
          t.case('target left service discovery', false, [], up='1x37 0 0 0 _x20', health='65x40 _x20'),
        ],
      runbook: rb.exporterTarget($.exporter.job, l.cluster, $.nodes.exporter) {
        meaning: 'A dcgm-exporter target is up, but a share of its scrapes fails.',
        impact: 'GPU series have gaps: rates and alerts with `for` become unreliable for that node.',
        mitigation: ['Raise the scrape timeout or trim the counter file if scrapes are slow.', 'Restart the exporter if DCGM answers slowly; drain the node if DCGM keeps hanging.'],
        escalation: rb.escalation.infra,
        dashboards: ['L2', 'L3'],
      },
    },
  },
}
