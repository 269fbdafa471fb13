// Builders for the parts of a runbook entry (see runbooks.libsonnet), shared by the catalog
// files that define alerts with their runbooks.
{
  // A first-look query; $label in expr stands for the value of the alert's label of that name.
  query(title, expr):: { title: title, expr: expr },

  // A step of the diagnosis flowchart: a check, what a yes means, and what a no means ('' to
  // go on to the next step).
  step(check, yes, no=''):: { check: check, yes: yes, no: no },

  // A matcher on the alert's own value of a label: label="$label".
  is(label):: label + '="$' + label + '"',

  // The first steps of a mitigation on a node (host: the alert's host label): cordon it, then
  // drain it.
  cordon(host):: 'Cordon the node so nothing new lands on it: `kubectl cordon $' + host + '`.',
  drain(host):: 'Drain it once the owners of running jobs know: `kubectl drain $' + host + ' --ignore-daemonsets --delete-emptydir-data`.',
}
