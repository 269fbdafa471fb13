// A fleet that serves without vLLM: SGLang first (its scenarios are then the SLOs' own, bursts
// included), trtllm-serve and Triton. The section vllm goes with it, and the release gate,
// which reads vLLM's records, is switched off; the end-to-end threshold is a bound of SGLang's
// ladder (40 s).
(import 'gpuobs.libsonnet') {
  thresholds+: { e2eLatencySeconds: 40 },
  enabled+: { release: false },
  inference+:: { engines: ['sglang', 'trtllm', 'triton'] },
}
