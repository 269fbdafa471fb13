// A fleet that serves with five engines side by side: vLLM, SGLang, NVIDIA Dynamo's frontend
// (in front of TensorRT-LLM workers in namespace dynamo, whose trtllm_ series Dynamo passes
// through on each worker's system port), trtllm-serve on its own and Triton (no latency
// histogram: its requests only). The workers answer the frontend, not clients: their
// requests, latencies and tokens are the frontend's already, their KV cache their own.
// Every threshold must be a bound of every engine's ladder: the end-to-end one is 40 s
// (SGLang's ladder has no 30), and Dynamo's frontend runs with DYN_METRICS_ITL_MIN=0.001,
// DYN_METRICS_ITL_MAX=1, DYN_METRICS_ITL_COUNT=13 (0.1 s is a bound) and
// DYN_METRICS_REQUEST_DURATION_MIN=1.25, _MAX=640, _COUNT=10 (40 s is). Its error objective is
// stricter than the embedded catalog's: which of its burn alerts a scenario's errors make fire
// (a canary's too) follows from the objective, and its failed requests, 0.3 a minute, are a
// count that binary fractions do not hold (a counter that stops must stop where promtool's
// own sum of its steps left it, or the rate reads a reset).
local engine = import 'lib/engine.libsonnet';
(import 'gpuobs.libsonnet') {
  thresholds+: { e2eLatencySeconds: 40 },
  slos+: { InferenceErrors+: { objective: 0.999 } },
  inference+:: {
    engines: ['vllm', 'sglang', 'dynamo', 'trtllm', 'triton'],
    profiles+: {
      dynamo+: {
        interTokenLatency+: { buckets: [0, 0.0018, 0.0032, 0.0056, 0.01, 0.018, 0.032, 0.056, 0.1, 0.18, 0.32, 0.56, 1] },
        requestLatency+: { buckets: [0, 2.5, 5, 10, 20, 40, 80, 160, 320, 640] },
      },
      trtllm+: {
        roles+: { dynamoWorker: engine.behindFrontend(engine.read('trtllm_request_success_total', 'namespace="dynamo"'), { namespace: 'dynamo' }) },
      },
    },
  },
}
