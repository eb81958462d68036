{{- define "cloudwright.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- define "cloudwright.labels" -}}
app.kubernetes.io/part-of: cloudwright
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{/* Where app hostname records point (the runtime target): all cw-api needs of the DNS settings. */}}
{{- define "cloudwright.runtimeTargetEnv" -}}
- { name: CW_RUNTIME_BASE_DOMAIN, value: {{ .Values.runtime.baseDomain | quote }} }
{{- with .Values.dns.runtimeTarget }}
- { name: CW_RUNTIME_DNS_TARGET, value: {{ . | quote }} }
{{- end }}
{{- with .Values.dns.runtimeIPv4 }}
- { name: CW_RUNTIME_DNS_IPV4, value: {{ join "," . | quote }} }
{{- end }}
{{- with .Values.dns.runtimeIPv6 }}
- { name: CW_RUNTIME_DNS_IPV6, value: {{ join "," . | quote }} }
{{- end }}
{{- end -}}

{{/* Environment of the process that reaches DNS (cw-operator's controllers): operator/dns-settings.ts. */}}
{{- define "cloudwright.dnsEnv" -}}
{{- $dns := .Values.dns -}}
{{- if ne $dns.provider "route53" -}}
{{- fail (printf "dns.provider must be route53 in a cluster, not %q: the memory provider keeps zones in one process, and the API and the operator are several" $dns.provider) -}}
{{- end -}}
- { name: CW_DNS_PROVIDER, value: route53 }
- { name: CW_DNS_OWNER_ID, value: {{ $dns.ownerId | quote }} }
- { name: CW_ROUTE53_REGION, value: {{ $dns.route53.region | quote }} }
{{- with $dns.route53.endpoint }}
- { name: CW_ROUTE53_ENDPOINT, value: {{ . | quote }} }
{{- end }}
{{- with $dns.parentServer }}
- { name: CW_DNS_PARENT_SERVER, value: {{ . | quote }} }
{{- end }}
{{- with $dns.resolver }}
- { name: CW_DNS_RESOLVER, value: {{ . | quote }} }
{{- end }}
- { name: CW_DNS_TIMEOUT_MS, value: {{ $dns.timeoutMs | quote }} }
- { name: CW_DNS_RECHECK_INTERVAL_SECONDS, value: {{ $dns.recheckIntervalSeconds | quote }} }
- { name: CW_DNS_PENDING_RECHECK_SECONDS, value: {{ $dns.pendingRecheckSeconds | quote }} }
- { name: CW_DNS_ALLOW_PRIVATE_NAMESERVERS, value: {{ $dns.allowPrivateNameservers | quote }} }
{{ include "cloudwright.runtimeTargetEnv" . }}
{{- end -}}

{{/* Route 53 credentials, when a Secret holds them (else the pod's role). */}}
{{- define "cloudwright.dnsEnvFrom" -}}
{{- with .Values.dns.route53.credentialsSecret }}
- secretRef: { name: {{ . }} }
{{- end }}
{{- end -}}

{{/* The name of a cluster-scoped object of `component`: `cloudwright-api` for a release named cloudwright,
`<release>-api` for another, so a second release (or a test's) never takes over the first one's. */}}
{{- define "cloudwright.clusterName" -}}
{{- printf "%s-%s" .root.Release.Name .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The namespace holding device sign-ins (Secrets): the API's only Secrets, kept apart from the release's. */}}
{{- define "cloudwright.signInNamespace" -}}
{{- printf "%s-sign-ins" .Release.Namespace | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The namespace of RepositoryWebhooks and their Secrets (git.webhookNamespace): the only Secrets cw-git reads. */}}
{{- define "cloudwright.webhookNamespace" -}}
{{- .Values.git.webhookNamespace | default (printf "%s-webhooks" .Release.Namespace) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The API's public URL, required: it is the link users open to approve a device sign-in. */}}
{{- define "cloudwright.apiPublicUrl" -}}
{{- required "api.publicUrl is required: the URL users reach the API at (https://api.example.com), for the device sign-in link" .Values.api.publicUrl | trimSuffix "/" -}}
{{- end -}}

{{/* The build-artifact bucket, as cw-api stores into it, cw-runtime reads from it and cw-operator deletes a deleted app's artifacts from it (CW_S3_*). */}}
{{- define "cloudwright.artifactStoreEnv" -}}
- { name: CW_S3_ENDPOINT, value: {{ .Values.objectStore.endpoint | quote }} }
- { name: CW_S3_BUCKET, value: {{ .Values.objectStore.bucket | quote }} }
- { name: CW_S3_REGION, value: {{ .Values.objectStore.region | quote }} }
{{- end -}}

{{/* The pod's securityContext (values: podSecurityContext), at the indentation of a pod spec's fields. */}}
{{- define "cloudwright.podSecurityContext" -}}
securityContext: {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- end -}}

{{/* A container's securityContext (values: containerSecurityContext), at the indentation of its fields. */}}
{{- define "cloudwright.containerSecurityContext" -}}
securityContext: {{- toYaml .Values.containerSecurityContext | nindent 2 }}
{{- end -}}

{{/* The root file system is read-only: temporary files go to the pod's /tmp emptyDir (cloudwright.tmpVolume). */}}
{{- define "cloudwright.tmpEnv" -}}
- { name: TMPDIR, value: /tmp }
{{- end -}}

{{- define "cloudwright.tmpMount" -}}
- { name: tmp, mountPath: /tmp }
{{- end -}}

{{- define "cloudwright.tmpVolume" -}}
- name: tmp
  emptyDir: { sizeLimit: {{ .Values.tmpSize }} }
{{- end -}}

{{/* The PodDisruptionBudget of `component`'s pods from `values` (its podDisruptionBudget settings), when enabled:
minAvailable when set, else maxUnavailable. A document of its own, starting with `---`. */}}
{{- define "cloudwright.podDisruptionBudget" -}}
{{- $pdb := .values -}}
{{- if $pdb.enabled }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: cloudwright-{{ .component }}
  namespace: {{ .root.Release.Namespace }}
  labels: {{- include "cloudwright.labels" .root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
spec:
  {{- if not (kindIs "invalid" $pdb.minAvailable) }}
  minAvailable: {{ $pdb.minAvailable }}
  {{- else if not (kindIs "invalid" $pdb.maxUnavailable) }}
  maxUnavailable: {{ $pdb.maxUnavailable }}
  {{- else }}
  {{- fail (printf "%s.podDisruptionBudget needs maxUnavailable or minAvailable (or enabled: false)" .component) }}
  {{- end }}
  selector:
    matchLabels: { app.kubernetes.io/component: {{ .component }}, app.kubernetes.io/part-of: cloudwright }
{{- end }}
{{- end -}}

{{/* CW_RUNTIME_STATUS_TOKEN from the runtime status token's Secret (runtime-status-token.yaml): cw-runtime checks it, cw-api presents it. */}}
{{- define "cloudwright.runtimeStatusTokenEnv" -}}
- name: CW_RUNTIME_STATUS_TOKEN
  valueFrom: { secretKeyRef: { name: {{ .Values.runtime.statusTokenSecret | default "cloudwright-runtime-status" }}, key: token } }
{{- end -}}

{{/*
cw-git's termination grace: the spec's worst drain (maintenance drain, at most 30 s, then git.drainTimeout for
what is in flight, then 2 s for the load balancer) plus 8 s of margin, unless git.terminationGracePeriodSeconds
says otherwise. drainTimeout must then be whole seconds or minutes (20s, 1m), the forms helm can read.
*/}}
{{- define "cloudwright.gitTerminationGrace" -}}
{{- $git := .Values.git -}}
{{- $drain := toString $git.drainTimeout -}}
{{- if $git.terminationGracePeriodSeconds -}}
{{- $git.terminationGracePeriodSeconds -}}
{{- else if regexMatch "^[0-9]+s$" $drain -}}
{{- add 40 (trimSuffix "s" $drain | atoi) -}}
{{- else if regexMatch "^[0-9]+m$" $drain -}}
{{- add 40 (mul 60 (trimSuffix "m" $drain | atoi)) -}}
{{- else -}}
{{- fail (printf "git.drainTimeout %q is not whole seconds or minutes (20s, 1m): set git.terminationGracePeriodSeconds, at least 32 s more than it" $drain) -}}
{{- end -}}
{{- end -}}

{{/*
cw-api's metrics port. With a default here too: `helm upgrade --reuse-values` from a release made before the
value existed would otherwise render port 0.
*/}}
{{- define "cloudwright.apiMetricsPort" -}}
{{- .Values.api.metricsPort | default 9090 -}}
{{- end -}}

{{/* The namespace build Jobs run in (builds.namespace): no tenant has rights there (docs/push-to-deploy.md, "Build sandbox"). */}}
{{- define "cloudwright.buildsNamespace" -}}
{{- .Values.builds.namespace | default (printf "%s-builds" .Release.Namespace) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* A CPU quantity (`500m`, `1`, `1.5`) in whole millicores, as the operator's CW_BUILD_CPU variables take it. */}}
{{- define "cloudwright.millicores" -}}
{{- $q := toString . -}}
{{- ternary (trimSuffix "m" $q) (mulf (float64 $q) 1000 | int | toString) (hasSuffix "m" $q) -}}
{{- end -}}

{{/* NODE_OPTIONS giving V8's old space three quarters of a container's memory limit (`512Mi`, `2Gi`, `1G`), for
processes whose memory is mostly Node's heap. Without it V8 sizes its heap from the node's memory, not the
container's, and grows it until the kernel kills the pod instead of collecting sooner (docs/scale.md). */}}
{{- define "cloudwright.nodeHeapEnv" -}}
{{- $limit := toString (required "resources.limits.memory is required" .limits.memory) -}}
{{- $units := dict "Mi" 1.0 "Gi" 1024.0 "M" 0.95367431640625 "G" 953.67431640625 -}}
{{- $mib := 0.0 -}}
{{- range $suffix, $factor := $units -}}
{{- if and (eq $mib 0.0) (hasSuffix $suffix $limit) -}}
{{- $mib = mulf (float64 (trimSuffix $suffix $limit)) $factor -}}
{{- end -}}
{{- end -}}
{{- if eq $mib 0.0 -}}{{- fail (printf "memory limit %s: give it in Mi, Gi, M or G" $limit) -}}{{- end -}}
- { name: NODE_OPTIONS, value: "--max-old-space-size={{ mulf $mib 0.75 | floor | int }}" }
{{- end -}}
