// The adopter's catalog (every label and team renamed) on clusters whose Prometheus names the
// cluster only as an external label (kube-prometheus-stack's usual setup).
(import 'adopter.jsonnet') {
  topology+: { clusterExternal: true },
}
