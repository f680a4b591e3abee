package payload

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/serdebench/serdebench/workers/payload/pb"
)

// BusinessRecord is the schema name of the thesis' flat business record.
const BusinessRecord = "business-record"

var businessTypes = []Type{
	{Name: "BusinessRecordS", New: func() any { return new(BusinessRecordS) }, Proto: func() proto.Message { return new(pb.BusinessRecordS) }},
	{Name: "BusinessRecordM", New: func() any { return new(BusinessRecordM) }, Proto: func() proto.Message { return new(pb.BusinessRecordM) }},
	{Name: "BusinessRecordL", New: func() any { return new(BusinessRecordL) }, Proto: func() proto.Message { return new(pb.BusinessRecordL) }},
}

var columnsByBase = func() map[string]Column {
	m := map[string]Column{}
	for _, c := range append(append([]Column(nil), BusinessHeader...), BusinessColumns...) {
		m[c.Base] = c
	}
	return m
}()

func init() {
	register(Schema{Name: BusinessRecord, TypeFor: businessType, fill: fillBusiness})
}

// businessType picks the widest variant designed for at most sizeBytes; the comment
// column pads the rest, so any size from the narrowest variant up is reachable.
func businessType(sizeBytes int) Type {
	t := businessTypes[0]
	for i, v := range BusinessVariants {
		if v.NominalBytes <= sizeBytes {
			t = businessTypes[i]
		}
	}
	return t
}

// fillBusiness fills the columns, redrawing a record whose columns alone exceed the
// target (rare: the variants are sized with room to spare), then pads the comment.
func fillBusiness(rng *rand.Rand, rec any, sizeBytes int) error {
	var err error
	for range 20 {
		if err = fillBusinessOnce(rng, rec, sizeBytes); err == nil {
			return nil
		}
		reflect.ValueOf(rec).Elem().SetZero()
	}
	return err
}

func fillBusinessOnce(rng *rand.Rand, rec any, sizeBytes int) error {
	v := reflect.ValueOf(rec).Elem()
	t := v.Type()
	var comment reflect.Value
	for i := range t.NumField() {
		tag := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
		if tag == "comment" {
			comment = v.Field(i)
			continue
		}
		col, ok := columnsByBase[tag]
		if !ok {
			col, ok = columnsByBase[tag[:strings.LastIndexByte(tag, '_')]]
		}
		if !ok {
			return fmt.Errorf("field %s has no column definition", tag)
		}
		fillColumn(rng, v.Field(i), col)
	}
	pad := sizeBytes - JSONSize(rec)
	if pad < 0 {
		return fmt.Errorf("size is below the %s minimum of about %d B", t.Name(), sizeBytes-pad)
	}
	comment.SetString(text(rng, pad))
	return nil
}

func fillColumn(rng *rand.Rand, f reflect.Value, c Column) {
	if rng.IntN(100) >= c.Presence {
		return // zero or null, as in a sparse row
	}
	var val any
	switch strings.TrimPrefix(c.Kind, "*") {
	case "int64":
		val = 1_000_000_000 + rng.Int64N(9_000_000_000)
	case "int32":
		val = int32(1 + rng.IntN(500))
	case "float64":
		val = cents(rng, 100_000) + 0.01
	case "bool":
		val = true
	case "string":
		switch c.Base {
		case "currency":
			val = []string{"USD", "EUR", "SEK", "GBP", "NOK"}[rng.IntN(5)]
		case "region_code":
			val = fmt.Sprintf("SE-%c%c", 'A'+rng.IntN(26), 'A'+rng.IntN(26))
		case "status":
			val = []string{"open", "paid", "shipped", "closed"}[rng.IntN(4)]
		case "coupon_code":
			val = fmt.Sprintf("CPN%06d", rng.IntN(1_000_000))
		default:
			val = name(rng)
		}
	case "time":
		val = timestamp(rng)
	default:
		panic("unknown column kind " + c.Kind)
	}
	rv := reflect.ValueOf(val)
	if f.Kind() == reflect.Pointer {
		p := reflect.New(f.Type().Elem())
		p.Elem().Set(rv)
		f.Set(p)
		return
	}
	f.Set(rv)
}
