{{- define "type" -}}
{{- $t := . -}}
{{- $rules := index $t.Markers "kubebuilder:validation:XValidation" -}}
{{- if markdownShouldRenderType $t }}
### {{ $t.Name }}
{{ if $t.IsAlias }}
A {{ markdownRenderTypeLink $t.UnderlyingType }}. {{ $t.Doc }}
{{ else }}
{{ $t.Doc }}
{{ end -}}
{{- if or $t.Validation $rules }}
Admission checks:
{{- range $t.Validation }}
- {{ . }}
{{- end }}
{{- range $rules }}
- {{ .Message }}
{{- end }}
{{ end }}
{{- if $t.References }}
In:
{{- range $t.SortedReferences }} {{ markdownRenderTypeLink . }}{{ end }}
{{ end }}
{{- if $t.Members }}
| field | type | meaning | default | admission checks |
| --- | --- | --- | --- | --- |
{{- if $t.GVK }}
| `apiVersion` | string | `{{ $t.GVK.Group }}/{{ $t.GVK.Version }}` | | |
| `kind` | string | `{{ $t.GVK.Kind }}` | | |
{{- end }}
{{- range $t.Members }}
| `{{ .Name }}` | {{ markdownRenderType .Type }} | {{ template "fieldDoc" . }} | {{ markdownRenderDefault .Default }} | {{ template "fieldChecks" . }} |
{{- end }}
{{ end }}
{{- if $t.EnumValues }}
| value | meaning |
| --- | --- |
{{- range $t.EnumValues }}
| `{{ .Name }}` | {{ markdownRenderFieldDoc .Doc }} |
{{- end }}
{{ end }}
{{- end }}
{{- end -}}
