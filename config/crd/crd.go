// Package crd embeds the CustomResourceDefinitions that controller-gen writes to
// bases/ (`make manifests`), so Go code validates against exactly what the API
// server is given.
package crd

import _ "embed" // for go:embed

// SerializationExperiments is the SerializationExperiment CRD.
//
//go:embed bases/serdebench.io_serializationexperiments.yaml
var SerializationExperiments []byte

// SerializationSchedules is the SerializationSchedule CRD.
//
//go:embed bases/serdebench.io_serializationschedules.yaml
var SerializationSchedules []byte
