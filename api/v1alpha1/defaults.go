package v1alpha1

import "github.com/serdebench/serdebench/api/trial"

// Defaults applied when a field is unset. The CRD carries the same values as
// +kubebuilder:default markers, so the API server applies them at admission and
// `kubectl get -o yaml` shows what will run; Default applies them to specs built in
// Go (internal/cli/admission tests that the two agree).
const (
	DefaultPartitions int32 = 3
	DefaultReplicas   int32 = 1
	DefaultSeed       int64 = 1
	DefaultPoolSize   int32 = 1024
	// DefaultRepetitions is how many times each trial runs.
	DefaultRepetitions int32 = 1
	// MostRepetitions is the most spec.repetitions and repeatUntil.maxRepetitions
	// allow (their markers' Maximum; TestMostRepetitions holds the CRD to it): what
	// a result may advise running.
	MostRepetitions int32 = 20
	DefaultRetries  int32 = 1
	// Payload source ConfigMap keys (SourceConfigMap).
	DefaultSourceSchemaKey  = "schema"
	DefaultSourceSamplesKey = "samples.jsonl"
	// Rate search (RateSearch).
	DefaultSearchStepPercent      int32 = 25
	DefaultSearchStepSeconds      int32 = 10
	DefaultSearchMaxP99Millis     int32 = 100
	DefaultFetchMinBytes          int32 = 1
	DefaultFetchMaxWaitMs         int32 = 500
	DefaultMaxPartitionFetchBytes int32 = 1048576
	// DefaultDeliveryCountLimit is Kafka's share.delivery.count.limit.
	DefaultDeliveryCountLimit int32 = 5
)

// DefaultRepeatMetrics are the figures repeatUntil waits for: throughput and
// the tail.
func DefaultRepeatMetrics() []string { return []string{"recordsPerSecond", "endToEndMicros.p99"} }

// Default fills unset fields of the spec with their documented defaults. A zero
// count is unset here: the API server and `serdebench validate` reject an explicit
// zero before this ever runs.
func (s *ExperimentSpec) Default() {
	if s.Mode == "" {
		s.Mode = trial.DefaultMode
	}
	if s.Payload.Compression == "" {
		s.Payload.Compression = trial.PayloadCompressionNone
	}
	if s.Payload.Headers == "" {
		s.Payload.Headers = trial.HeadersFull
	}
	if s.Consumer.Commit == "" {
		s.Consumer.Commit = trial.CommitInterval
	}
	if s.Consumer.Isolation == "" {
		s.Consumer.Isolation = trial.IsolationReadUncommitted
	}
	if s.Consumer.GroupProtocol == "" {
		s.Consumer.GroupProtocol = trial.GroupProtocolClassic
	}
	if s.Consumer.GroupType == "" {
		s.Consumer.GroupType = trial.GroupTypeConsumer
	}
	if src := s.Payload.Source; src != nil && src.ConfigMap != nil {
		if src.ConfigMap.SchemaKey == "" {
			src.ConfigMap.SchemaKey = DefaultSourceSchemaKey
		}
		if src.ConfigMap.SamplesKey == "" {
			src.ConfigMap.SamplesKey = DefaultSourceSamplesKey
		}
	}
	if s.Producers == 0 {
		s.Producers = 1
	}
	if s.Consumers == 0 {
		s.Consumers = 1
	}
	if s.Topic.Partitions == 0 {
		s.Topic.Partitions = DefaultPartitions
	}
	if s.Topic.Replicas == 0 {
		s.Topic.Replicas = DefaultReplicas
	}
	if s.Seed == nil {
		s.Seed = ptr(DefaultSeed)
	}
	if s.PoolSize == 0 {
		s.PoolSize = DefaultPoolSize
	}
	if s.Repetitions == 0 {
		s.Repetitions = DefaultRepetitions
	}
	if u := s.RepeatUntil; u != nil && len(u.Metrics) == 0 {
		u.Metrics = DefaultRepeatMetrics()
	}
	if f := s.Faults; f != nil {
		if f.Baseline == nil {
			f.Baseline = ptr(true)
		}
		for i := range f.Scenarios {
			f.Scenarios[i].Default()
		}
		f.Recovery.Default()
	}
	if s.Client == "" {
		s.Client = trial.DefaultClient
	}
	if s.IntervalSeconds == 0 {
		s.IntervalSeconds = trial.DefaultIntervalSeconds
	}
	if r := s.Rate.Search; r != nil {
		if r.StepPercent == 0 {
			r.StepPercent = DefaultSearchStepPercent
		}
		if r.StepSeconds == 0 {
			r.StepSeconds = DefaultSearchStepSeconds
		}
		if r.MaxP99Millis == 0 {
			r.MaxP99Millis = DefaultSearchMaxP99Millis
		}
	}
	s.Producer.Default()
	s.Consumer.Default()
}

// Default fills unset consumer settings.
func (c *ConsumerSettings) Default() {
	if c.FetchMinBytes == nil {
		c.FetchMinBytes = ptr(DefaultFetchMinBytes)
	}
	if c.FetchMaxWaitMs == nil {
		c.FetchMaxWaitMs = ptr(DefaultFetchMaxWaitMs)
	}
	if c.MaxPartitionFetchBytes == nil {
		c.MaxPartitionFetchBytes = ptr(DefaultMaxPartitionFetchBytes)
	}
	if c.ReceiveBufferBytes == nil {
		c.ReceiveBufferBytes = ptr(trial.DefaultSocketBufferBytes)
	}
	if c.SendBufferBytes == nil {
		c.SendBufferBytes = ptr(trial.DefaultSocketBufferBytes)
	}
	if c.Share != nil {
		c.Share.Default()
	}
}

// Default fills unset share group settings.
func (s *ShareSpec) Default() {
	if s.Acknowledgement == "" {
		s.Acknowledgement = trial.ShareAckImplicit
	}
	if s.DeliveryCountLimit == nil {
		s.DeliveryCountLimit = ptr(DefaultDeliveryCountLimit)
	}
	if s.ReleaseOneIn == nil {
		s.ReleaseOneIn = ptr(int32(0))
	}
}

func ptr[T any](v T) *T { return &v }
