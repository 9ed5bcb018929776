// Package filebridge holds what the binary carries with it: the sample files
// of both editions that `filebridge demo` drops into its inbox.
package filebridge

import "embed"

// Samples is the samples/ tree: samples/A/good, samples/A/bad, samples/B/good,
// samples/B/bad and samples/samples.toml.
//
//go:embed samples
var Samples embed.FS
