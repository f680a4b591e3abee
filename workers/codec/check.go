package codec

import (
	"fmt"
	"reflect"

	"github.com/serdebench/serdebench/workers/source"
)

// CheckSource encodes and decodes every record of a user's source with the named
// codec before a trial runs: each must come back equal. It returns the mean encoded
// size; errors name the samples file's line.
func CheckSource(name string, s *source.Set) (meanBytes float64, err error) {
	c, err := newDynamic(name, s)
	if err != nil {
		return 0, err
	}
	total := 0
	for i, rec := range s.Records {
		line := s.Lines[i]
		native, err := c.Native(rec)
		if err != nil {
			return 0, fmt.Errorf("samples line %d: %w", line, err)
		}
		b, err := c.Marshal(nil, native)
		if err != nil {
			return 0, fmt.Errorf("samples line %d: %w", line, err)
		}
		total += len(b)
		back, err := c.Unmarshal(b, c.NewNative())
		if err != nil {
			return 0, fmt.Errorf("samples line %d: %w", line, err)
		}
		want, err := c.Record(native)
		if err != nil {
			return 0, fmt.Errorf("samples line %d: %w", line, err)
		}
		got, err := c.Record(back)
		if err != nil {
			return 0, fmt.Errorf("samples line %d: %w", line, err)
		}
		if !reflect.DeepEqual(want, got) {
			return 0, fmt.Errorf("samples line %d: %s does not give the record back: wrote %v, read %v", line, name, want, got)
		}
	}
	return float64(total) / float64(len(s.Records)), nil
}
