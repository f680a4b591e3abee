package producer

import (
	"math"
	"runtime/metrics"
	"strconv"
)

// gcSettings are the process's GOGC and GOMEMLIMIT as the runtime applies them
// (GOMEMLIMIT "none" when unlimited), read without changing them.
func gcSettings() map[string]string {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	out := map[string]string{"GOGC": "off", "GOMEMLIMIT": "none"}
	// The runtime reports GOGC=off (-1) converted to uint64.
	if s[0].Value.Kind() == metrics.KindUint64 {
		if v := s[0].Value.Uint64(); v <= math.MaxInt32 {
			out["GOGC"] = strconv.FormatUint(v, 10)
		}
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		if v := s[1].Value.Uint64(); v < math.MaxInt64 {
			out["GOMEMLIMIT"] = strconv.FormatUint(v, 10)
		}
	}
	return out
}
