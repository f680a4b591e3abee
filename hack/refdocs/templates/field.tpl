{{- define "fieldDoc" -}}
{{- if eq .Name "metadata" -}}
the object's metadata (Kubernetes' ObjectMeta)
{{- else -}}
{{ markdownRenderFieldDoc .Doc }}
{{- end -}}
{{- end -}}

{{- /* A field's checks: its markers' (Optional is left out: the default column and
the doc say it; bounds as integers, which the markers hold as floats), then its CEL
rules' messages. */ -}}
{{- define "fieldChecks" -}}
{{- $bounds := list "Maximum" "Minimum" "ExclusiveMaximum" "ExclusiveMinimum" "MaxItems" "MinItems" "MaxLength" "MinLength" "MaxProperties" "MinProperties" -}}
{{- $checks := list -}}
{{- range .Validation -}}
{{- $c := . -}}
{{- $p := splitn ": " 2 . -}}
{{- if and (has $p._0 $bounds) (regexMatch "^-?[0-9.]+(e[+-]?[0-9]+)?$" $p._1) }}{{ $c = printf "%s: %d" $p._0 ($p._1 | float64 | int64) }}{{ end -}}
{{- if ne $c "Optional: {}" }}{{ $checks = append $checks $c }}{{ end -}}
{{- end -}}
{{- range index .Markers "kubebuilder:validation:XValidation" }}{{ $checks = append $checks .Message }}{{ end -}}
{{- range $i, $c := $checks }}{{ if $i }}<br />{{ end }}{{ markdownRenderFieldDoc $c }}{{ end -}}
{{- end -}}
