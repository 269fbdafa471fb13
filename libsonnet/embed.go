// Package libsonnet embeds the default gpuobs catalog, written in Jsonnet.
package libsonnet

import "embed"

// FS holds the catalog's Jsonnet sources; gpuobs.libsonnet is its entry point.
//
//go:embed *.libsonnet lib/*.libsonnet
var FS embed.FS

// Entry is the file a catalog evaluation starts from when the user gives no config.
const Entry = "gpuobs.libsonnet"
