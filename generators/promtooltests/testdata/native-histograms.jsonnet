// Prometheus 3 servers that keep vLLM's latency histograms as native histograms (scraped
// natively, or converted with convert_classic_histograms_to_nhcb and the classic series
// dropped): every SLO, record, panel and runbook reads the bare name.
(import 'gpuobs.libsonnet') { prometheus+: { nativeHistograms: true } }
