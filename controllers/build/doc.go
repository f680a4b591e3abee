// Package build makes the objects the experiment reconciler creates, as pure
// functions of their inputs (prometheus-operator's makeStatefulSet style): a
// trial's Jobs, names and labels, and a trial's result from its merged summaries.
// The reconciler keeps the phase dispatch and the side effects; testdata/ holds the
// golden YAML of each builder (`go test ./controllers/build -update` rewrites it).
package build
