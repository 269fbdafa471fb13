// A team's own catalog (every label and team renamed, sections off, its model label
// served_model) serving with vLLM, SGLang and Dynamo's frontend side by side, the frontend in
// front of vLLM workers in namespace dynamo as well: SGLang's model_name and Dynamo's model
// are relabelled to served_model. Thresholds and Dynamo's ladders as in
// generators/promtooltests/testdata/engines.jsonnet.
local engine = import 'lib/engine.libsonnet';
(import 'adopter.jsonnet') {
  prometheus+: { nativeHistograms: false },
  thresholds+: { e2eLatencySeconds: 40 },
  inference+:: {
    engines: ['vllm', 'sglang', 'dynamo'],
    profiles+: {
      dynamo+: {
        interTokenLatency+: { buckets: [0, 0.0018, 0.0032, 0.0056, 0.01, 0.018, 0.032, 0.056, 0.1, 0.18, 0.32, 0.56, 1] },
        requestLatency+: { buckets: [0, 2.5, 5, 10, 20, 40, 80, 160, 320, 640] },
      },
      vllm+: {
        roles+: { dynamoWorker: engine.behindFrontend(engine.read('vllm:generation_tokens_total', 'namespace="dynamo"'), { namespace: 'dynamo' }) },
      },
    },
  },
}
