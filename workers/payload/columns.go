package payload

// Column is one column of the business record. The record is a wide, flat database
// row: a header of always-filled columns, then blocks of attribute columns repeated
// with a numeric suffix; the variants differ in how many blocks they have. Many columns are usually empty, as in
// real ERP rows; Presence is the share of records in which a column holds a non-zero,
// non-null value.
type Column struct {
	// Base is the column name before the block suffix (e.g. order_id → order_id_03).
	Base string
	// Kind is the logical type: int64, int32, float64, bool, string, time, or a
	// nullable "*float64", "*string", "*time".
	Kind string
	// Presence is the probability (percent) that the value is set and non-zero.
	Presence int
}

// BusinessHeader are the columns every record fills, first in the row (so they get
// protobuf's one-byte field tags).
var BusinessHeader = []Column{
	{"record_id", "int64", 100},
	{"customer_name", "string", 100},
	{"amount", "float64", 100},
	{"currency", "string", 100},
	{"created_at", "time", 100},
	{"status", "string", 100},
}

// BusinessColumns is the repeating block of sparse attribute columns.
var BusinessColumns = []Column{
	{"quantity", "int32", 30},
	{"is_flagged", "bool", 10},
	{"priority", "int32", 10},
	{"region_code", "string", 20},
	{"updated_at", "*time", 15},
	{"discount_rate", "*float64", 10},
	{"coupon_code", "*string", 10},
	{"tax_amount", "*float64", 15},
	{"shipped_at", "*time", 10},
	{"sales_rep", "*string", 10},
	{"parent_order_id", "*int64", 5},
	{"is_gift", "bool", 5},
}

// BusinessVariant is one width of the business record.
type BusinessVariant struct {
	// Name is the Go and protobuf message name.
	Name string
	// Blocks is the number of repeated column blocks.
	Blocks int
	// NominalBytes is the JSON size the variant was designed for (the thesis' sizes).
	NominalBytes int
}

// BusinessVariants are the business record widths, narrowest first.
var BusinessVariants = []BusinessVariant{
	{"BusinessRecordS", 3, 1176},
	{"BusinessRecordM", 16, 4696},
	{"BusinessRecordL", 33, 9312},
}
