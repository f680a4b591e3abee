{{- define "gvDetails" -}}
{{- $gv := . -}}
## {{ $gv.GroupVersionString }}

Resources:
{{- range $gv.SortedKinds }}
- {{ $gv.TypeForKind . | markdownRenderTypeLink }}
{{- end }}
{{ range $gv.SortedTypes }}
{{- template "type" . }}
{{- end }}
{{- end -}}
