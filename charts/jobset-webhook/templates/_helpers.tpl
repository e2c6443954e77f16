{{/*
Labels of every object: the kustomize base's two, Helm's, and the user's.
*/}}
{{- define "jobset-webhook.labels" -}}
app.kubernetes.io/name: jobset-webhook
app.kubernetes.io/part-of: jobset-webhook
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- with .Values.labels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
Labels of the scale-down controller's objects: its own name, so that no selector of the webhook
matches them.
*/}}
{{- define "jobset-webhook.controllerLabels" -}}
{{ include "jobset-webhook.labels" . | replace "app.kubernetes.io/name: jobset-webhook" "app.kubernetes.io/name: jobset-scale-down-controller" }}
{{- end }}

{{/*
metadata.annotations, when there are any.
*/}}
{{- define "jobset-webhook.annotations" -}}
{{- with .Values.annotations -}}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{- define "jobset-webhook.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/*
The policy file of `serve` (docs/policy.md).
*/}}
{{- define "jobset-webhook.policy" -}}
elastic:
  replicas: {{ .Values.elastic.replicas }}
  parallelism: {{ .Values.elastic.parallelism }}
  scaleDown: {{ .Values.elastic.scaleDown | default (ternary "controller" "manual" .Values.scaleDownController.enabled) }}
  {{- with .Values.elastic.scaleDownNoticeSeconds }}
  scaleDownNoticeSeconds: {{ . }}
  {{- end }}
{{- with .Values.scaleHazards.deny }}
scaleHazards:
  deny: {{ toJson . }}
{{- end }}
{{- with .Values.featureGates }}
featureGates:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
A Kubernetes memory quantity (128Mi, 1Gi, 134217728, 500M) in bytes. values.schema.json admits
only the forms handled here.
*/}}
{{- define "jobset-webhook.bytes" -}}
{{- $q := toString . -}}
{{- $number := regexFind "^[0-9]+" $q -}}
{{- $suffix := trimPrefix $number $q -}}
{{- $units := dict "" 1 "k" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 -}}
{{- if or (not $number) (not (hasKey $units $suffix)) -}}
{{- fail (printf "resources.limits.memory: %q is not a memory quantity such as 128Mi or 1Gi" $q) -}}
{{- end -}}
{{- mul (int64 $number) (get $units $suffix) -}}
{{- end }}

{{/*
The memory flags of `serve`, sized from resources.limits.memory as docs/operations.md ("Memory")
does: limit = 16 MiB baseline + connections x 144 KiB + budget x 6, the budget rounded down to
whole MiB. The figures are those of include/jobset_webhook/server/memory_sizing.h (tests/chart
checks that they agree). Flags equal to serve's defaults (12 MiB, 256) are not passed, as the
kustomize base passes none.
*/}}
{{- define "jobset-webhook.memoryArgs" -}}
{{- $mib := 1048576 -}}
{{- $limit := int64 (include "jobset-webhook.bytes" .Values.resources.limits.memory) -}}
{{- $connections := int64 .Values.maxConnections -}}
{{- $budget := mul (div (div (sub (sub $limit (mul 16 $mib)) (mul $connections 147456)) 6) $mib) $mib -}}
{{- /* A body of --max-request-bytes (7 MiB) must fit in 7/8 of the budget. */ -}}
{{- if lt $budget (mul 8 $mib) -}}
{{- $needed := add (mul 16 $mib) (mul $connections 147456) (mul 6 (mul 8 $mib)) -}}
{{- fail (printf "resources.limits.memory: %s leaves the webhook a request-body budget under 8 MiB with %d connections (a 7 MiB body needs 8 MiB); give it at least %dMi, or fewer maxConnections (docs/operations.md, \"Memory\")" (toString .Values.resources.limits.memory) $connections (div (add $needed (sub $mib 1)) $mib)) -}}
{{- end -}}
{{- if ne $budget (mul 12 $mib) }}
- --max-inflight-bytes={{ $budget }}
{{- end }}
{{- if ne $connections 256 }}
- --max-connections={{ $connections }}
{{- end }}
{{- end }}

{{/*
The Secret the webhook serves from.
*/}}
{{- define "jobset-webhook.tlsSecret" -}}
{{- if eq .Values.certificates.mode "secret" -}}
{{ required "certificates.secret.name: name the Secret that holds tls.crt and tls.key (certificates.mode is secret)" .Values.certificates.secret.name }}
{{- else -}}
jobset-webhook-tls
{{- end -}}
{{- end }}

{{/*
clientConfig.caBundle of both webhooks, when the chart knows it (cert-manager injects its own).
*/}}
{{- define "jobset-webhook.caBundle" -}}
{{- if eq .Values.certificates.mode "certs" -}}
caBundle: {{ required "certificates.certs.caCrt: pass ca.crt of `jobset-webhook certs` with --set-file (certificates.mode is certs)" .Values.certificates.certs.caCrt | b64enc }}
{{- else if eq .Values.certificates.mode "secret" -}}
caBundle: {{ required "certificates.secret.caBundle: the base64 of the CA that signed the Secret's certificate (certificates.mode is secret)" .Values.certificates.secret.caBundle }}
{{- end -}}
{{- end }}

{{/*
clientConfig of one webhook (dict "root" $ "path" PATH): the release's Service, or
webhook.external.url with PATH appended and its caBundle.
*/}}
{{- define "jobset-webhook.clientConfig" -}}
{{- $external := .root.Values.webhook.external -}}
{{- if $external.url -}}
url: {{ printf "%s%s" (trimSuffix "/" $external.url) .path | quote }}
{{- with $external.caBundle }}
caBundle: {{ . }}
{{- end }}
{{- else -}}
service:
  name: jobset-webhook
  namespace: {{ .root.Release.Namespace }}
  path: {{ .path }}
  port: 443
{{- with include "jobset-webhook.caBundle" .root }}
{{ . }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The annotations of a hook object of certificates.mode hook (dict "root" $ "events" E "weight" W),
with the user's.
*/}}
{{- define "jobset-webhook.hookAnnotations" -}}
helm.sh/hook: {{ .events }}
helm.sh/hook-weight: {{ .weight | quote }}
helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
{{- with .root.Values.annotations }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
Scheduling fields shared by both Deployments' pods.
*/}}
{{- define "jobset-webhook.scheduling" -}}
{{- with .Values.nodeSelector -}}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
What every webhook shares (manifests/base/*-webhook-configuration.yaml say why), for the
resource given: (dict "root" $ "group" G "version" V "resource" R).
*/}}
{{- define "jobset-webhook.webhookCommon" -}}
{{- $root := .root -}}
admissionReviewVersions: ["v1"]
rules:
- apiGroups: [{{ .group | quote }}]
  apiVersions: [{{ .version | quote }}]
  operations: ["CREATE", "UPDATE"]
  resources: [{{ .resource | quote }}]
  scope: Namespaced
matchPolicy: Equivalent
sideEffects: None
failurePolicy: {{ $root.Values.webhook.failurePolicy }}
timeoutSeconds: {{ $root.Values.webhook.timeoutSeconds }}
{{- with $root.Values.webhook.namespaceSelector }}
namespaceSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
metadata of both webhook configurations: with cert-manager, the annotation that has its
cainjector fill caBundle from the serving Certificate (not for an external url: its CA is
webhook.external.caBundle).
*/}}
{{- define "jobset-webhook.webhookMetadata" -}}
name: jobset-webhook
labels:
  {{- include "jobset-webhook.labels" . | nindent 2 }}
{{- $annotations := .Values.annotations | default dict | deepCopy }}
{{- if and (eq .Values.certificates.mode "cert-manager") (not .Values.webhook.external.url) }}
{{- $_ := set $annotations "cert-manager.io/inject-ca-from" (printf "%s/jobset-webhook-serving" .Release.Namespace) }}
{{- end }}
{{- with $annotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}
