// Small PromQL builders shared by the catalog files.
{
  // The shortest text that reads back as the number x (0.95, not 0.94999999999999996, which
  // std.toString prints): for numbers in alert text, runbooks and dashboard queries.
  num(x)::
    local shortest(p) =
      local s = std.format('%.' + p + 'g', x);
      if p >= 17 || std.parseJson(s) == x then s else shortest(p + 1);
    if x == std.floor(x) && std.abs(x) < 1e15 then std.toString(x) else shortest(1),

  // 'by (a, b)'
  by(labels):: 'by (' + std.join(', ', labels) + ')',

  // 'on (a, b)'
  on(labels):: 'on (' + std.join(', ', labels) + ')',

  // kube-state-metrics names a pod's namespace and pod `namespace` and `pod`; the exporter's
  // series may name them otherwise (exported_namespace with honorLabels: false). This copies
  // them to the exporter's names so that the two join.
  asExporterPod(l, expr)::
    local copy(e, to, from) = if to == from then e else 'label_replace(' + e + ', "' + to + '", "$1", "' + from + '", "(.+)")';
    copy(copy(expr, l.namespace, 'namespace'), l.pod, 'pod'),

  // As asExporterPod for series that name only a namespace.
  asExporterNamespace(l, expr)::
    if l.namespace == 'namespace' then expr else 'label_replace(' + expr + ', "' + l.namespace + '", "$1", "namespace", "(.+)")',

  // Labels of a kube-state-metrics series.
  ksm(job, labels):: { job: job, instance: 'kube-state-metrics:8080' } + labels,
}
