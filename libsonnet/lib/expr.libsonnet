// Small PromQL builders shared by the catalog files.
{
  // num(x): the shortest text that reads back as the number x (0.95, not 0.94999999999999996,
  // which std.toString prints): for numbers in alert text, runbooks and dashboard queries.
  // gpuobs gives it from Go (strconv's shortest form): the search for the fewest decimals in
  // Jsonnet was about a tenth of the expressions the catalog's evaluation ran. (The natives are
  // the fields themselves, not functions that call them: a call through such a function cost
  // 4.6 % of the expressions the evaluation ran.)
  num:: std.native('num'),

  // The seconds of a Prometheus duration of one unit ('1m' is 60).
  seconds(d)::
    local units = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400, w: 604800, y: 31536000 };
    local unit = if std.endsWith(d, 'ms') then 'ms' else d[std.length(d) - 1];
    std.parseInt(std.substr(d, 0, std.length(d) - std.length(unit))) * units[unit],

  // A ratio as a percentage for text: 0.07 reads 7, not 7.000000000000001.
  percent(ratio):: self.num(std.round(ratio * 1e6) / 1e4),

  // A regular expression for the le label of a histogram bucket of x seconds: a whole bound
  // is le="1" from Go's and Rust's clients and Prometheus 2's text scrape, le="1.0" from
  // Python's and Prometheus 3 (which stores every le as a float), so it matches both. Points
  // are escaped: 1.0 unescaped also matches the bucket of 100 or 160.
  le(x):: if x == std.floor(x) then self.num(x) + '|' + self.num(x) + '\\\\.0' else std.strReplace(self.num(x), '.', '\\\\.'),

  // fill(template, pieces): a query written whole as a ||| block, with the pieces that vary
  // named $(piece) and given in pieces (strings): the query reads as it runs, and filling costs
  // a string replacement per piece (std.format costs about 2 ms a call in go-jsonnet, 150 times
  // more). A number is written as + would join it. A piece left unfilled is an error.
  fill:: std.native('fill'),

  // A regular expression matching the whole numbers (written without leading zeros) above n,
  // a whole number >= 0: label values compared as numbers, such as a driver's branch.
  above(n)::
    local s = std.toString(n);
    local k = std.length(s);
    local digit(i) = std.parseInt(s[i]);
    std.join('|', [
      std.substr(s, 0, i) + '[' + (digit(i) + 1) + '-9]' + std.repeat('[0-9]', k - i - 1)
      for i in std.range(0, k - 1)
      if digit(i) < 9
    ] + ['[1-9][0-9]{' + k + ',}']),

  // 'by (a, b)'
  by(labels):: 'by (' + std.join(', ', labels) + ')',
  // A label matcher, a selector's piece: match('gpu', '=', '0') is gpu="0".
  match(label, op, value):: label + op + std.escapeStringJson(value),
  // The inside of a selector from matchers, each a selector's inside ('' for none).
  inside(matchers):: std.join(', ', [m for m in matchers if m != '']),

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

  // kube-state-metrics names a node `node`; GPU series name it by the exporter's host label.
  // This copies it to the host label so that node-level alerts share the GPU alerts' identity.
  asHost(l, expr):: 'label_replace(' + expr + ', "' + l.host + '", "$1", "node", "(.+)")',

  // Labels of a kube-state-metrics series.
  ksm(job, labels):: { job: job, instance: 'kube-state-metrics:8080' } + labels,
}
