package payload

import (
	"math/rand/v2"
	"strings"
	"time"
)

// words gives generated text the redundancy of real prose, so compression ratios are
// realistic (random letters would not compress at all).
var words = strings.Fields(`order invoice customer account payment shipment delivery warehouse
	region priority standard express return refund credit debit balance amount total tax
	discount coupon gift note contact address street city postal country north south east
	west central pending approved rejected cancelled complete partial review manager sales
	support billing contract renewal annual monthly weekly quote estimate item product
	service unit price quantity stock supplier vendor carrier tracking label package`)

// text returns ASCII words of exactly n bytes.
func text(rng *rand.Rand, n int) string {
	if n <= 0 {
		return ""
	}
	var b strings.Builder
	b.Grow(n)
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[rng.IntN(len(words))])
	}
	return b.String()[:n]
}

// name returns a capitalised word pair such as "Warehouse Supplier".
func name(rng *rand.Rand) string {
	a, c := words[rng.IntN(len(words))], words[rng.IntN(len(words))]
	return strings.ToUpper(a[:1]) + a[1:] + " " + strings.ToUpper(c[:1]) + c[1:]
}

// epoch is the start of generated timestamps: fixed so pools are reproducible.
var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// timestamp returns a UTC time within two years of epoch at microsecond precision
// (Avro's timestamp-micros).
func timestamp(rng *rand.Rand) time.Time {
	return epoch.Add(time.Duration(rng.Int64N(int64(2*365*24*time.Hour/time.Microsecond))) * time.Microsecond)
}

// cents returns a money-like value with two decimals below max.
func cents(rng *rand.Rand, max int) float64 {
	return float64(rng.IntN(max*100)) / 100
}
