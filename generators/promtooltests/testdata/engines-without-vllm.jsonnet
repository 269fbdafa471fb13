// A fleet that serves without vLLM: SGLang first (its scenarios are then the SLOs' own, bursts
// included), trtllm-serve and Triton. The section vllm goes with it; the release gate compares
// each engine's tracks (SGLang's first tokens only: its request counter names no model); the
// end-to-end threshold is a bound of SGLang's ladder (40 s).
(import 'gpuobs.libsonnet') {
  thresholds+: { e2eLatencySeconds: 40 },
  inference+:: { engines: ['sglang', 'trtllm', 'triton'] },
}
