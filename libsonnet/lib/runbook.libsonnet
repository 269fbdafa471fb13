// Builders for the parts of a runbook entry, shared by the catalog files: each alert's runbook
// is written beside the alert, in the family file that defines it (runbooks/<Alert>.md is
// generated from it).
//
// runbook: meaning, impact, notes (specifics such as XID codes), queries (first-look PromQL;
// $label stands for the value of the alert's label of that name), diagnosis (a flowchart:
// each step a check, what a yes means, and what a no means or '' to go on), mitigation,
// escalation, dashboards (levels L1..L5 of dashboards/, most specific last).
//
// This file holds only what alerts of several families share: no alert's own text.
local e = import 'expr.libsonnet';
{
  // A first-look query; $label in expr stands for the value of the alert's label of that name.
  query(title, expr):: { title: title, expr: expr },

  // A step of the diagnosis flowchart: a check, what a yes means, and what a no means ('' to
  // go on to the next step).
  step(check, yes, no=''):: { check: check, yes: yes, no: no },

  // A matcher on the alert's own value of a label: label="$label".
  is(label):: label + '="$' + label + '"',

  // A selector matching the alert's own values of labels: {a="$a", b="$b"}.
  sel(labels):: '{' + std.join(', ', [$.is(x) for x in labels]) + '}',

  // The repair of a GPU (gpu: the alert's GPU index label): reset it once drained, and open an
  // RMA when the fault comes back; back is how its node returns to service, held the state it
  // waits in (the scheduler's words: nodes.back, nodes.held).
  reset(gpu, back):: 'With no process on the GPU, reset it: `nvidia-smi --gpu-reset -i $' + gpu + '` (or reboot the node), then ' + back + ' when the health checks pass.',
  rma(gpu, held):: 'If it fails again after the reset, keep the node ' + held + ' and open an RMA with the GPU serial (`nvidia-smi -q -i $' + gpu + '`) and the XID/ECC history below.',

  // Who to escalate to, by the team that owns the alert.
  escalation:: {
    infra: 'Infrastructure on-call; hardware vendor support for RMAs.',
    mlPlatform: 'ML platform team; the owning team of the namespace for workload changes.',
  },

  // The first look and diagnosis of a dcgm-exporter target that fails its scrapes (job: the
  // exporter's scrape job; cluster: the cluster label; exporter: the scheduler's words about
  // the exporter on a node, nodes.exporter), shared by the alerts on its scrapes.
  exporterTarget(job, cluster, exporter):: {
    queries: [
      $.query("The target's up series", e.fill('up{job="$(job)", $(cluster), instance="$instance"}', { job: job, cluster: $.is(cluster) })),
      $.query('Scrape duration against the timeout', e.fill('scrape_duration_seconds{job="$(job)", instance="$instance"}', { job: job })),
    ],
    diagnosis: [
      $.step(exporter.running, '', exporter.crashed),
      $.step('Is the node itself NotReady?', 'Node problem: follow the node runbook.'),
      $.step('Does the scrape time out (DCGM hangs, often after an XID)?', 'Restart the exporter; if DCGM hangs again, drain the node.', 'Check network policies and the ServiceMonitor.'),
    ],
  },
}
