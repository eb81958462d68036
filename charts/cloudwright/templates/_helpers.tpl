{{- define "cloudwright.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- define "cloudwright.labels" -}}
app.kubernetes.io/part-of: cloudwright
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{/* The status URL of every cw-runtime replica, by its StatefulSet name: what the API and the operator ask. */}}
{{- define "cloudwright.runtimeStatusUrls" -}}
{{- $urls := list -}}
{{- range $i := until (int .Values.runtime.replicas) -}}
{{- $urls = append $urls (printf "http://cloudwright-runtime-%d.cloudwright-runtime-status.%s.svc:%d" $i $.Release.Namespace (int $.Values.runtime.statusPort)) -}}
{{- end -}}
{{- join "," $urls -}}
{{- end -}}

{{/* Environment of the processes that reach DNS (cw-api, cw-operator): src/platform/domains/dns-settings.ts. */}}
{{- define "cloudwright.dnsEnv" -}}
{{- $dns := .Values.dns -}}
{{- if ne $dns.provider "route53" -}}
{{- fail (printf "dns.provider must be route53 in a cluster, not %q: the memory provider keeps zones in one process, and the API and the operator are several" $dns.provider) -}}
{{- end -}}
- { name: CW_RUNTIME_BASE_DOMAIN, value: {{ .Values.runtime.baseDomain | quote }} }
- { name: CW_RUNTIME_STATUS_URL, value: {{ include "cloudwright.runtimeStatusUrls" . | quote }} }
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
{{- with $dns.runtimeTarget }}
- { name: CW_RUNTIME_DNS_TARGET, value: {{ . | quote }} }
{{- end }}
{{- with $dns.runtimeIPv4 }}
- { name: CW_RUNTIME_DNS_IPV4, value: {{ join "," . | quote }} }
{{- end }}
{{- with $dns.runtimeIPv6 }}
- { name: CW_RUNTIME_DNS_IPV6, value: {{ join "," . | quote }} }
{{- end }}
{{- end -}}

{{/* Route 53 credentials, when a Secret holds them (else the pod's role). */}}
{{- define "cloudwright.dnsEnvFrom" -}}
{{- with .Values.dns.route53.credentialsSecret }}
- secretRef: { name: {{ . }} }
{{- end }}
{{- end -}}
