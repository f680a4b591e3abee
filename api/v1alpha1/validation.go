package v1alpha1

// Limits on payload sizes: below the smallest record of any schema, above Kafka's
// default max.message.bytes. (The CRD markers on PayloadSpec.SizesBytes say the same.)
const (
	MinSizeBytes = 64
	MaxSizeBytes = 1 << 20
)

// TrialCount is the number of trials the spec expands into.
func (s *ExperimentSpec) TrialCount() int {
	n := len(s.Codecs) * max(1, len(s.Payload.SizesBytes))
	if m := s.Matrix; m != nil {
		for _, l := range []int{len(m.BatchSizeBytes), len(m.LingerMs), len(m.Acks), len(m.Compression), len(m.MaxInFlight), len(m.Mode), len(m.RecordsPerSecond), len(m.Client), len(m.PayloadCompression)} {
			if l > 0 {
				n *= l
			}
		}
	}
	return n
}
