// Command gensettings writes, from the settings table (api/trial.Table), the API's
// spec.producer and matrix types with their markers and defaults, the spec's base
// settings and the matrix's sweeps (api/v1alpha1/zz_generated.settings.go), and the
// CEL rules that bound the trial count and the payload sizes (in
// api/v1alpha1/experiment_types.go, from api/trial.MaxTrials, MaxFaultedTrials and MinSizeBytes). Run by
// `make generate`; `make verify-generated` fails when its output is stale.
//
//	go run ./hack/gensettings api/v1alpha1
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/serdebench/serdebench/api/trial"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gensettings DIR (api/v1alpha1)")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "gensettings:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	src, err := generate(trial.Table)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "zz_generated.settings.go"), src, 0o644); err != nil {
		return err
	}
	path := filepath.Join(dir, "experiment_types.go")
	if err := rewriteRule(path, trialCountLine, trialCountRule(trial.Table)); err != nil {
		return err
	}
	if err := rewriteRule(path, minSizeLine, minSizeRule(trial.MinSizeBytes)); err != nil {
		return err
	}
	rules, err := supportRules(trial.Table, trial.Features)
	if err != nil {
		return err
	}
	if err := rewriteRule(path, supportLines, rules); err != nil {
		return err
	}
	if err := rewriteRule(path, batchOnlyLines, batchOnlyRules()); err != nil {
		return err
	}
	return rewriteRule(path, baselineKeysLine, baselineKeysRule(trial.ReferenceKeys()))
}

// batchOnlyRules are ExperimentSpec's rules refusing batch settings no trial would
// use (trial.BatchOnly), as the planner does: swept with no batch-mode trial of the
// matrix, set off their defaults with no batch-mode trial at all, or set on an
// included point in single mode (a point's unset mode is spec.mode's).
func batchOnlyRules() string {
	const specBatch = "(!has(self.mode) || self.mode == 'batch')"
	baseBatch := "((has(self.matrix) && has(self.matrix.mode) && size(self.matrix.mode) > 0) ? self.matrix.mode.exists(v, v == 'batch') : " + specBatch + ")"
	pointBatch := "(has(p.mode) ? p.mode == 'batch' : " + specBatch + ")"
	includeBatch := "(has(self.matrix) && has(self.matrix.include) && self.matrix.include.exists(p, " + pointBatch + "))"
	var swept, set, pointSets []string
	for _, r := range trial.BatchOnly() {
		m, pr := "self.matrix."+r.JSON, "self.producer."+r.JSON
		swept = append(swept, fmt.Sprintf("(has(%s) && size(%s) > 0)", m, m))
		set = append(set, fmt.Sprintf("(has(%s) && %s != %v)", pr, pr, r.Default))
		pointSets = append(pointSets, "has(p."+r.JSON+")")
	}
	line := `// +kubebuilder:validation:XValidation:rule="%s",message="%s"`
	return strings.Join([]string{
		fmt.Sprintf(line, "!has(self.matrix) || !("+strings.Join(swept, " || ")+") || "+baseBatch, trial.BatchSweepUnused),
		fmt.Sprintf(line, "!has(self.producer) || !("+strings.Join(set, " || ")+") || "+baseBatch+" || "+includeBatch, trial.BatchSettingsUnused),
		fmt.Sprintf(line, "!has(self.matrix) || !has(self.matrix.include) || self.matrix.include.all(p, !("+strings.Join(pointSets, " || ")+") || "+pointBatch+")", trial.BatchPointUnused),
	}, "\n")
}

// supportRules are ExperimentSpec's CEL rules that refuse a client without a
// feature its settings ask for (api/trial.Features), one per feature and client
// lacking it: over every combination the matrix sweeps, the client being
// spec.client or any of matrix.client, the setting's value spec's or any of the
// matrix's. The planner refuses the same (trial.Unsupported); these say it at
// admission. The lines are one block, replaced whole.
func supportRules(rows []trial.Row, features []trial.Feature) (string, error) {
	// exists is "some value of field, in any combination, makes pred true":
	// the matrix's values when it sweeps the setting, else the spec's (the
	// two are of different schema types, so each list is tested on its own).
	exists := func(field, pred string) (string, error) {
		for _, r := range rows {
			if r.Field != field {
				continue
			}
			spec := "producer." + r.JSON
			if r.Spec != "" {
				spec = jsonPath(r.Spec)
			}
			// Every object on the way may be absent: has() each, in order.
			var guards []string
			parts := strings.Split(spec, ".")
			for i := range parts {
				guards = append(guards, "has(self."+strings.Join(parts[:i+1], ".")+")")
			}
			// Absent, the setting takes its default, which asks for no feature
			// (TestDefaultsAskNoFeature); the client's default is a client.
			def := "[]"
			if field == "Client" {
				def = fmt.Sprintf("['%s']", trial.DefaultClient)
			}
			base := fmt.Sprintf("(%s ? [self.%s] : %s).exists(v, %s)", strings.Join(guards, " && "), spec, def, pred)
			if r.MaxItems == 0 {
				return base, nil
			}
			return fmt.Sprintf("(has(self.matrix) && has(self.matrix.%s) && size(self.matrix.%s) > 0 ? self.matrix.%s.exists(v, %s) : %s)", r.JSON, r.JSON, r.JSON, pred, base), nil
		}
		return "", fmt.Errorf("no row %s", field)
	}
	// sides are the client expressions a side's rules test, each with what its
	// message calls the client: the producers' client; the consumers' own
	// (consumer.client or matrix.consumerClient), and the producers' where the
	// consumers have none of their own.
	ownConsumers := "((has(self.matrix) && has(self.matrix.consumerClient) && size(self.matrix.consumerClient) > 0) || (has(self.consumer) && has(self.consumer.client)))"
	type clientRule struct{ expr, name string }
	sides := func(side trial.Side, c trial.Client) ([]clientRule, error) {
		producers, err := exists("Client", fmt.Sprintf("v == '%s'", c))
		if err != nil {
			return nil, err
		}
		consumers, err := exists("ConsumerClient", fmt.Sprintf("v == '%s'", c))
		if err != nil {
			return nil, err
		}
		p := clientRule{producers, "client " + string(c)}
		own := clientRule{consumers, "consumer client " + string(c)}
		switch side {
		case trial.SideProducers:
			return []clientRule{p}, nil
		case trial.SideConsumers:
			return []clientRule{{"!" + ownConsumers + " && " + producers, p.name}, own}, nil
		case trial.SideBoth:
			return []clientRule{p, own}, nil
		}
		return nil, fmt.Errorf("side %q is none of producers, consumers, both", side)
	}
	var lines []string
	for _, f := range features {
		for _, c := range trial.Clients {
			sup := f.Clients[c]
			if sup.Has {
				continue
			}
			if f.Setting == "" || f.CEL == "" {
				return "", fmt.Errorf("feature %s: client %s lacks it, but no Setting and CEL say how admission tells", f.Name, c)
			}
			clients, err := sides(f.Side, c)
			if err != nil {
				return "", fmt.Errorf("feature %s: %w", f.Name, err)
			}
			uses, err := exists(f.Setting, f.CEL)
			if err != nil {
				return "", fmt.Errorf("feature %s: %w", f.Name, err)
			}
			for _, cr := range clients {
				lines = append(lines, fmt.Sprintf(`// +kubebuilder:validation:XValidation:rule="!(%s && %s)",message="unsupported: %s has no %s: %s"`,
					cr.expr, uses, cr.name, f.Name, strings.ReplaceAll(strings.ReplaceAll(sup.How, `"`, `'`), "`", "")))
			}
		}
	}
	// What a runtime's worker lacks beyond settings: codecs, and parts of a trial
	// (api/trial.Runtimes), for each of its clients on the side that needs it.
	for _, r := range trial.Runtimes {
		for _, c := range r.Clients {
			quoted := make([]string, len(r.Codecs))
			names := make([]string, len(r.Codecs))
			for i, k := range r.Codecs {
				quoted[i], names[i] = "'"+string(k)+"'", string(k)
			}
			clients, err := sides(trial.SideBoth, c)
			if err != nil {
				return "", err
			}
			for _, cr := range clients {
				lines = append(lines, fmt.Sprintf(`// +kubebuilder:validation:XValidation:rule="!(%s && self.codecs.exists(k, !(k in [%s])))",message="unsupported: %s has only the codecs %s: the %s worker (%s) has no other"`,
					cr.expr, strings.Join(quoted, ", "), cr.name, strings.Join(names, ", "), r.Runtime, r.Worker))
			}
			for _, l := range r.Lacks {
				clients, err := sides(l.Side, c)
				if err != nil {
					return "", fmt.Errorf("%s lacks %s: %w", r.Runtime, l.Name, err)
				}
				for _, cr := range clients {
					lines = append(lines, fmt.Sprintf(`// +kubebuilder:validation:XValidation:rule="!(%s && (%s))",message="unsupported: %s cannot run %s: the %s worker (%s) has none yet"`,
						cr.expr, l.CEL, cr.name, l.Name, r.Runtime, r.Worker))
				}
			}
		}
	}
	if len(lines) == 0 {
		return "", fmt.Errorf("no client lacks any feature: the block's anchor line would be lost")
	}
	return strings.Join(lines, "\n"), nil
}

// jsonPath is a Go path of ExperimentSpec's fields (Consumer.GroupProtocol) as
// the JSON path CEL reads (consumer.groupProtocol).
func jsonPath(goPath string) string {
	parts := strings.Split(goPath, ".")
	for i, p := range parts {
		parts[i] = strings.ToLower(p[:1]) + p[1:]
	}
	return strings.Join(parts, ".")
}

// baselineKeysRule admits spec.compare.baseline's keys: the reference keys.
func baselineKeysRule(keys []string) string {
	quoted := make([]string, len(keys))
	for i, k := range keys {
		quoted[i] = "'" + k + "'"
	}
	return fmt.Sprintf(`	// +kubebuilder:validation:XValidation:rule="self.all(k, k in [%s])",message="compare.baseline: a key is one of %s"`,
		strings.Join(quoted, ", "), strings.Join(keys, ", "))
}

// minSizeRule is PayloadSpec's CEL rule: every size at least its schema's minimum.
func minSizeRule(mins map[string]int32) string {
	names := slices.Sorted(maps.Keys(mins))
	var entries []string
	for _, n := range names {
		entries = append(entries, fmt.Sprintf("'%s': %d", n, mins[n]))
	}
	m := "{" + strings.Join(entries, ", ") + "}"
	var human []string
	for _, n := range names {
		human = append(human, fmt.Sprintf("%s %d B", n, mins[n]))
	}
	// A static message: a messageExpression naming the schema costs more than the
	// API server's CEL budget allows.
	return fmt.Sprintf(`// +kubebuilder:validation:XValidation:rule="!has(self.schema) || !has(self.sizesBytes) || !(self.schema in %s) || self.sizesBytes.all(s, s >= %s[self.schema])",message="payload.sizesBytes: a size is below its schema's minimum (%s): the record's fields alone take about that much"`, m, m, strings.Join(human, ", "))
}

// trialCountRule is ExperimentSpec's CEL rule: codecs × sizes × every sweep's
// length × the fault scenarios (with the baseline: v1alpha1.Faults.Count) ×
// repetitions (repeatUntil.maxRepetitions when set: the most it may run).
func trialCountRule(rows []trial.Row) string {
	var dims []string
	for _, r := range rows {
		if r.MaxItems == 0 {
			continue
		}
		f := "self.matrix." + r.JSON
		dims = append(dims, fmt.Sprintf("(has(%s) && size(%s) > 0 ? size(%s) : 1)", f, f, f))
	}
	return fmt.Sprintf(`// +kubebuilder:validation:XValidation:rule="size(self.codecs) * (has(self.payload.sizesBytes) ? size(self.payload.sizesBytes) : 1) * (!has(self.matrix) ? 1 : (%s)) * (!has(self.faults) ? 1 : size(self.faults.scenarios) + (!has(self.faults.baseline) || self.faults.baseline ? 1 : 0)) * (has(self.repeatUntil) ? self.repeatUntil.maxRepetitions : (has(self.repetitions) ? self.repetitions : 1)) <= ((has(self.faults) || %[8]s) && (has(self.repeatUntil) || (has(self.repetitions) && self.repetitions > 1)) ? %[2]d : (has(self.faults) || %[8]s || has(self.repeatUntil) || (has(self.repetitions) && self.repetitions > 1) ? %[3]d : %[4]d))",message="the matrix expands to more than %[5]d trials, %[6]d with faults, transactions or repetitions, %[7]d with repetitions and faults or transactions (codecs × sizes × matrix values and included combinations × fault scenarios × repetitions, repeatUntil.maxRepetitions when set)"`,
		strings.Join(dims, " * ")+") + (has(self.matrix.include) ? size(self.matrix.include) : 0", trial.MaxFaultedRepeatedTrials, trial.MaxFaultedTrials, trial.MaxTrials, trial.MaxTrials, trial.MaxFaultedTrials, trial.MaxFaultedRepeatedTrials, transactionsUsed)
}

// transactionsUsed is a CEL test of whether any trial of the spec is
// transactional: each such trial's result carries its transactions, so the
// trial cap counts them as it counts faults (ExperimentSpec.MaxTrials).
const transactionsUsed = "((has(self.producer) && has(self.producer.transactions) && (has(self.producer.transactions.recordsPerTransaction) || has(self.producer.transactions.transactionMillis))) || " +
	"(has(self.matrix) && has(self.matrix.transactions) && self.matrix.transactions.exists(v, has(v.recordsPerTransaction) || has(v.transactionMillis))) || " +
	"(has(self.matrix) && has(self.matrix.include) && self.matrix.include.exists(p, has(p.transactions) && (has(p.transactions.recordsPerTransaction) || has(p.transactions.transactionMillis)))))"

// The generated rules' lines, found by how they start.
var (
	trialCountLine = regexp.MustCompile(`(?m)^// \+kubebuilder:validation:XValidation:rule="size\(self\.codecs\) \*.*$`)
	minSizeLine    = regexp.MustCompile(`(?m)^// \+kubebuilder:validation:XValidation:rule="!has\(self\.schema\) \|\| !has\(self\.sizesBytes\)( \|\||").*$`)
	// supportLines are supportRules' block (every line of it).
	supportLines = regexp.MustCompile(`(?m)^// \+kubebuilder:validation:XValidation:rule="!\(.*,message="unsupported: (consumer )?client .*$(\n^// \+kubebuilder:validation:XValidation:rule="!\(.*,message="unsupported: (consumer )?client .*$)*`)
	// batchOnlyLines are batchOnlyRules' three lines, found by their messages.
	batchOnlyLines = regexp.MustCompile(`(?m)^// \+kubebuilder:validation:XValidation:rule=".*",message="(matrix\.batchSizeBytes|producer\.batchSizeBytes|matrix\.include: a point in single mode).*$(\n^// \+kubebuilder:validation:XValidation:rule=".*",message="(producer\.batchSizeBytes|matrix\.include: a point in single mode).*$)*`)
	// baselineKeysLine is on the field CompareSpec.Baseline (indented).
	baselineKeysLine = regexp.MustCompile(`(?m)^\t// \+kubebuilder:validation:XValidation:rule="self\.all\(k, k in \[.*$`)
)

// rewriteRule replaces the rule's one line in path.
func rewriteRule(path string, ruleLine *regexp.Regexp, rule string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if n := len(ruleLine.FindAllIndex(b, -1)); n != 1 {
		return fmt.Errorf("%s: want one line matching %s, found %d", path, ruleLine, n)
	}
	out := ruleLine.ReplaceAllLiteral(b, []byte(rule))
	if bytes.Equal(out, b) {
		return nil
	}
	return os.WriteFile(path, out, 0o644)
}

func comment(w *bytes.Buffer, indent, text string) {
	for _, l := range strings.Split(text, "\n") {
		fmt.Fprintf(w, "%s// %s\n", indent, l)
	}
}

// matrixPoint writes MatrixPoint, one optional field per setting, and its Apply.
func matrixPoint(w *bytes.Buffer, rows []trial.Row) error {
	w.WriteString("// MatrixPoint is one combination matrix.include adds: the spec's settings with\n// the values it sets.\ntype MatrixPoint struct {\n")
	for _, r := range rows {
		comment(w, "\t", fmt.Sprintf("%s sets %s.", r.Field, r.JSON))
		for _, m := range r.Markers {
			fmt.Fprintf(w, "\t// +kubebuilder:validation:%s\n", m)
		}
		star := "*"
		if !pointer(r) && !object(r) && strings.HasPrefix(r.Type, "trial.") {
			star = ""
		}
		fmt.Fprintf(w, "\t// +optional\n\t%s %s%s `json:\"%s,omitempty\"`\n", r.Field, star, r.Type, r.JSON)
	}
	w.WriteString("}\n\n// Apply sets the settings the point sets.\nfunc (p *MatrixPoint) Apply(s *trial.Settings) {\n")
	for _, r := range rows {
		if !pointer(r) && !object(r) && strings.HasPrefix(r.Type, "trial.") {
			fmt.Fprintf(w, "\tif p.%s != \"\" {\n\t\ts.%s = p.%s\n\t}\n", r.Field, r.Field, r.Field)
		} else {
			fmt.Fprintf(w, "\tif p.%s != nil {\n\t\ts.%s = *p.%s\n\t}\n", r.Field, r.Field, r.Field)
		}
	}
	w.WriteString("}\n\n// Included are matrix.include's points (nil without a matrix).\nfunc (m *Matrix) Included() []MatrixPoint {\n\tif m == nil {\n\t\treturn nil\n\t}\n\treturn m.Include\n}\n\n")
	return nil
}

// pointer says whether spec.producer holds the setting as a pointer: numbers,
// booleans and objects, whose zero is a value; enums are unset when empty.
func pointer(r trial.Row) bool { return !strings.HasPrefix(r.Type, "trial.") || object(r) }

// object says whether the setting is a struct (an object in the API).
func object(r trial.Row) bool { return reflect.ValueOf(r.Default).Kind() == reflect.Struct }

// defaultMarker is the setting's default as a kubebuilder marker's value: an
// object's is written as JSON ({} for the zero value).
func defaultMarker(r trial.Row) (string, error) {
	if !object(r) {
		return fmt.Sprint(r.Default), nil
	}
	b, err := json.Marshal(r.Default)
	if err != nil {
		return "", fmt.Errorf("row %s: default: %w", r.Field, err)
	}
	return string(b), nil
}

func generate(rows []trial.Row) ([]byte, error) {
	var w bytes.Buffer
	w.WriteString(`// Code generated by hack/gensettings from api/trial.Table. DO NOT EDIT.

package v1alpha1

import "github.com/serdebench/serdebench/api/trial"

// ProducerSettings are the producer knobs the papers vary. Unset fields take the
// defaults documented on each field (docs/producer-settings.md maps them onto each
// client).
`)
	for _, rule := range trial.ProducerRules {
		fmt.Fprintf(&w, "// +kubebuilder:validation:XValidation:rule=%s\n", rule)
	}
	w.WriteString("type ProducerSettings struct {\n")
	first := true
	for _, r := range rows {
		if r.Spec != "" {
			continue
		}
		if r.Default == nil || r.Doc == "" {
			return nil, fmt.Errorf("row %s: a spec.producer setting needs a Default and a Doc", r.Field)
		}
		if !first {
			w.WriteString("\n")
		}
		first = false
		comment(&w, "\t", r.Doc)
		def, err := defaultMarker(r)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&w, "\t// +kubebuilder:default=%s\n", def)
		for _, m := range r.Markers {
			fmt.Fprintf(&w, "\t// +kubebuilder:validation:%s\n", m)
		}
		w.WriteString("\t// +optional\n")
		star := ""
		if pointer(r) {
			star = "*"
		}
		fmt.Fprintf(&w, "\t%s %s%s `json:\"%s,omitempty\"`\n", r.Field, star, r.Type, r.JSON)
	}
	w.WriteString("}\n\n// Default fills unset producer settings from api/trial.Table.\nfunc (p *ProducerSettings) Default() {\n")
	for _, r := range rows {
		if r.Spec != "" {
			continue
		}
		if pointer(r) {
			fmt.Fprintf(&w, "\tif p.%s == nil {\n\t\tp.%s = ptr(trial.DefaultOf(%q).(%s))\n\t}\n", r.Field, r.Field, r.Field, r.Type)
		} else {
			fmt.Fprintf(&w, "\tif p.%s == \"\" {\n\t\tp.%s = trial.DefaultOf(%q).(%s)\n\t}\n", r.Field, r.Field, r.Field, r.Type)
		}
	}
	w.WriteString("}\n\n// Matrix lists values to sweep; each non-empty list multiplies the trial count.\ntype Matrix struct {\n")
	for _, r := range rows {
		if r.MaxItems == 0 {
			continue
		}
		comment(&w, "\t", r.SweepDoc)
		fmt.Fprintf(&w, "\t// +kubebuilder:validation:MaxItems=%d\n", r.MaxItems)
		for _, m := range r.Markers {
			if strings.HasPrefix(m, "XValidation") {
				// controller-gen has no items:XValidation: dropping the rule would admit
				// swept values that spec.producer rejects.
				return nil, fmt.Errorf("setting %s: a swept setting's rule cannot apply to matrix items; use Minimum, Maximum or an Enum type", r.Field)
			}
			fmt.Fprintf(&w, "\t// +kubebuilder:validation:items:%s\n", m)
		}
		fmt.Fprintf(&w, "\t// +listType=set\n\t// +optional\n\t%s []%s `json:\"%s,omitempty\"`\n", r.Field, r.Type, r.JSON)
	}
	fmt.Fprintf(&w, "\t// Include adds combinations the sweeps do not make: each is the spec's\n\t// settings with the values it sets (e.g. acks 1 beside acks all with\n\t// transactions, which cannot be swept against each other).\n")
	fmt.Fprintf(&w, "\t// +kubebuilder:validation:MaxItems=%d\n\t// +optional\n\tInclude []MatrixPoint `json:\"include,omitempty\"`\n", trial.MaxIncluded)
	w.WriteString("}\n\n// Sweeps are the matrix's dimensions in api/trial.Table's order (nil without a\n// matrix).\nfunc (m *Matrix) Sweeps() []trial.Sweep {\n\tif m == nil {\n\t\treturn nil\n\t}\n\treturn []trial.Sweep{\n")
	for _, r := range rows {
		if r.MaxItems == 0 {
			continue
		}
		fmt.Fprintf(&w, "\t\t{Field: %q, Len: len(m.%s), Set: func(s *trial.Settings, i int) { s.%s = m.%s[i] }},\n", r.Field, r.Field, r.Field, r.Field)
	}
	w.WriteString("\t}\n}\n\n")
	if err := matrixPoint(&w, rows); err != nil {
		return nil, err
	}
	w.WriteString("// BaseSettings are the settings of a defaulted spec before the matrix sweeps them.\nfunc (s *ExperimentSpec) BaseSettings() trial.Settings {\n\treturn trial.Settings{\n")
	for _, r := range rows {
		switch {
		case r.Spec != "":
			fmt.Fprintf(&w, "\t\t%s: s.%s,\n", r.Field, r.Spec)
		case pointer(r):
			fmt.Fprintf(&w, "\t\t%s: *s.Producer.%s,\n", r.Field, r.Field)
		default:
			fmt.Fprintf(&w, "\t\t%s: s.Producer.%s,\n", r.Field, r.Field)
		}
	}
	w.WriteString("\t}\n}\n")
	out, err := format.Source(w.Bytes())
	if err != nil {
		return nil, fmt.Errorf("format: %w\n%s", err, w.Bytes())
	}
	return out, nil
}
