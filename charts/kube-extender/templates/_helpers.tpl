{{/* The names: app.kubernetes.io/name, and the prefix of every object's name. */}}
{{- define "kube-extender.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "kube-extender.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The second scheduler's objects and its app.kubernetes.io/name. */}}
{{- define "kube-extender.schedulerFullname" -}}
{{- printf "%s-scheduler" (include "kube-extender.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Helm's standard labels, on every object. */}}
{{- define "kube-extender.standardLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: {{ include "kube-extender.name" . }}
{{- end -}}

{{/* The extender's labels and its selector (the name only, as manifests/ selects: a selector cannot
change on an installed Deployment). */}}
{{- define "kube-extender.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kube-extender.fullname" . }}
{{- end -}}
{{- define "kube-extender.labels" -}}
{{ include "kube-extender.selectorLabels" . }}
{{ include "kube-extender.standardLabels" . }}
{{- end -}}

{{- define "kube-extender.schedulerSelectorLabels" -}}
app.kubernetes.io/name: {{ include "kube-extender.schedulerFullname" . }}
{{- end -}}
{{- define "kube-extender.schedulerLabels" -}}
{{ include "kube-extender.schedulerSelectorLabels" . }}
{{ include "kube-extender.standardLabels" . }}
{{- end -}}

{{- define "kube-extender.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "kube-extender.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "kube-extender.priorityClassName" -}}
{{- if .Values.priorityClassName -}}
{{- .Values.priorityClassName -}}
{{- else if .Values.priorityClass.create -}}
{{- include "kube-extender.fullname" . -}}
{{- end -}}
{{- end -}}

{{- define "kube-extender.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* Whether the verbs are served over TLS, and the Secrets. */}}
{{- define "kube-extender.tls" -}}
{{- if ne .Values.tls.mode "off" -}}true{{- end -}}
{{- end -}}
{{- define "kube-extender.tlsSecretName" -}}
{{- default (printf "%s-tls" (include "kube-extender.fullname" .)) .Values.tls.secretName -}}
{{- end -}}
{{- define "kube-extender.clientSecretName" -}}
{{- default (printf "%s-tls" (include "kube-extender.schedulerFullname" .)) .Values.tls.clientSecretName -}}
{{- end -}}

{{/* What the scheduler's urlPrefix names: the Service, by its cluster DNS name. */}}
{{- define "kube-extender.url" -}}
{{- printf "%s://%s.%s.svc:%v" (ternary "https" "http" (eq (include "kube-extender.tls" .) "true")) (include "kube-extender.fullname" .) .Release.Namespace .Values.ports.http -}}
{{- end -}}

{{/* The ExtenderConfiguration the extender reads: configFile's text, or config with gpuSharing's and
usage's additions. */}}
{{- define "kube-extender.config" -}}
{{- if .Values.configFile -}}
{{- .Values.configFile -}}
{{- else -}}
{{- $c := deepCopy .Values.config -}}
{{- if .Values.gpuSharing.enabled -}}
{{- $p := $c.plugins -}}
{{- $_ := set $p.filter "enabled" (append $p.filter.enabled (dict "name" "GPUShare")) -}}
{{- $_ := set $p.score "enabled" (append $p.score.enabled (dict "name" "GPUShare" "weight" .Values.gpuSharing.weight)) -}}
{{- $fit := dict "name" "NodeResourcesFit" "args" (dict "ignoredResources" (include "kube-extender.gpuResources" . | fromYamlArray)) -}}
{{- $share := dict "name" "GPUShare" "args" (dict "nodeSchedulerPolicy" .Values.gpuSharing.nodeSchedulerPolicy "gpuSchedulerPolicy" .Values.gpuSharing.gpuSchedulerPolicy) -}}
{{- $_ := set $c "pluginConfig" (concat (default (list) $c.pluginConfig) (list $fit $share)) -}}
{{- end -}}
{{- if .Values.usage.source -}}
{{- $u := dict "source" .Values.usage.source "intervalSeconds" .Values.usage.intervalSeconds "staleAfterSeconds" .Values.usage.staleAfterSeconds "windowSeconds" .Values.usage.windowSeconds -}}
{{- if eq .Values.usage.source "prometheus" -}}
{{- $_ := set $u "prometheus" (dict "url" .Values.usage.prometheus.url) -}}
{{- end -}}
{{- $_ := set $c "usage" $u -}}
{{- end -}}
{{- toYaml $c -}}
{{- end -}}
{{- end -}}

{{/* HAMi's per-card resources, which no node lists as allocatable: NodeResourcesFit leaves them to
GPUShare, in the extender and in the second scheduler. */}}
{{- define "kube-extender.gpuResources" -}}
- nvidia.com/gpumem
- nvidia.com/gpumem-percentage
- nvidia.com/gpucores
{{- end -}}

{{/* The scheduler's extenders entry. `ignorable` is the caller's. */}}
{{- define "kube-extender.extenderEntry" -}}
{{- $e := .Values.scheduler.extender -}}
- urlPrefix: {{ include "kube-extender.url" . }}
  {{- if $e.filter }}
  filterVerb: filter
  {{- end }}
  {{- if $e.prioritize }}
  prioritizeVerb: prioritize
  {{- end }}
  {{- if $e.preempt }}
  preemptVerb: preempt
  {{- end }}
  {{- if .Values.bind.enabled }}
  bindVerb: bind
  {{- end }}
  nodeCacheCapable: {{ $e.nodeCacheCapable }}
  weight: {{ $e.weight }}
  httpTimeout: {{ $e.httpTimeout }}
  enableHTTPS: {{ eq (include "kube-extender.tls" .) "true" }}
  {{- if eq (include "kube-extender.tls" .) "true" }}
  tlsConfig:
    {{- if .Values.tls.mutual }}
    certFile: /etc/kubernetes/kube-extender-tls/tls.crt
    keyFile: /etc/kubernetes/kube-extender-tls/tls.key
    {{- end }}
    caFile: /etc/kubernetes/kube-extender-tls/ca.crt
  {{- end }}
{{- end -}}
