{{/* The release's full name, at most 63 characters. */}}
{{- define "serdebench.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "serdebench.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: manager
{{- end -}}

{{- define "serdebench.labels" -}}
{{ include "serdebench.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: serdebench
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "serdebench.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "serdebench.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* An image reference: repository:tag@digest, the tag defaulting to v<appVersion>. */}}
{{- define "serdebench.image" -}}
{{- $tag := default (printf "v%s" .root.Chart.AppVersion) .image.tag -}}
{{- if eq $tag "latest" -}}
{{- fail (printf "%s:latest is a mutable tag: set a version tag or a digest" .image.repository) -}}
{{- end -}}
{{- if .image.digest -}}
{{- printf "%s:%s@%s" .image.repository $tag .image.digest -}}
{{- else -}}
{{- printf "%s:%s" .image.repository $tag -}}
{{- end -}}
{{- end -}}

{{/* The namespaces the operator reconciles in when not cluster-wide (a JSON list). */}}
{{- define "serdebench.watchNamespaces" -}}
{{- if .Values.rbac.watchNamespaces -}}
{{- .Values.rbac.watchNamespaces | uniq | toJson -}}
{{- else -}}
{{- list .Release.Namespace | toJson -}}
{{- end -}}
{{- end -}}

{{- /* The monitors' apiVersion, and on AKS's managed Prometheus the label limits its
ama-metrics add-on expects in every monitor's spec (Microsoft's "Customize collection
using CRDs"): merged into a spec dict. */ -}}
{{- define "serdebench.monitorAPIVersion" -}}
{{ .Values.monitorsAPIGroup }}/v1
{{- end }}
{{- define "serdebench.monitorLimits" -}}
{{- if eq .Values.monitorsAPIGroup "azmonitoring.coreos.com" -}}
labelLimit: 63
labelNameLengthLimit: 511
labelValueLengthLimit: 1023
{{- end }}
{{- end }}
