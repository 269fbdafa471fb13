package model

// KubeStateMetrics describes the kube-state-metrics series gpuobs reads.
type KubeStateMetrics struct {
	// Job is the Prometheus job of kube-state-metrics.
	Job string `json:"job"`
	// GPUResource is the resource name of a whole GPU as kube-state-metrics writes it
	// (nvidia_com_gpu).
	GPUResource string `json:"gpuResource"`
	// MIGResources matches the resources of MIG devices under the GPU Operator's mixed
	// strategy (nvidia_com_mig_1g_10gb, ...).
	MIGResources string `json:"migResources"`
	// GPUResources matches every resource a GPU or a MIG device is scheduled as (derived in
	// the catalog from the two above): capacity and requests count slots, a whole GPU or one
	// MIG device, whatever the MIG strategy.
	GPUResources string `json:"gpuResources"`
}

// GPU allocation modes of a fleet's Kubernetes.
const (
	// AllocationDevicePlugin: GPUs are the nvidia.com/gpu extended resource of the device plugin.
	AllocationDevicePlugin = "device-plugin"
	// AllocationDRA: GPUs are devices of ResourceClaims, published by a DRA driver.
	AllocationDRA = "dra"
	// AllocationMixed: node pools of both.
	AllocationMixed = "mixed"
)

// GPUAllocations lists the allocation modes.
var GPUAllocations = []string{AllocationDevicePlugin, AllocationDRA, AllocationMixed}

// Kubernetes is how the fleet's Kubernetes hands GPUs to pods.
type Kubernetes struct {
	// GPUAllocation is one of GPUAllocations.
	GPUAllocation string `json:"gpuAllocation"`
	// DRADriver is the DRA driver that publishes the GPUs (its ResourceSlices and the
	// allocation results of claims name it).
	DRADriver string `json:"draDriver"`
	// DRADeviceClass is the DeviceClass of the GPUs, which a ResourceQuota limits as
	// <class>.deviceclass.resource.k8s.io/devices.
	DRADeviceClass string `json:"draDeviceClass"`
	// KubeletJob is the Prometheus job of the kubelets, which report DRA prepare failures.
	KubeletJob string `json:"kubeletJob"`
}

// DevicePlugin reports whether some nodes hand GPUs out through the device plugin.
func (k Kubernetes) DevicePlugin() bool { return k.GPUAllocation != AllocationDRA }

// DRA reports whether some nodes hand GPUs out through DRA.
func (k Kubernetes) DRA() bool { return k.GPUAllocation != AllocationDevicePlugin }
