{{/* The chart's name. */}}
{{- define "restorebench.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The prefix of every object's name. */}}
{{- define "restorebench.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "restorebench.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "restorebench.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* The agents' StatefulSet: its name is its pods' prefix, so the agents' names. */}}
{{- define "restorebench.agentsName" -}}
{{- include "restorebench.fullname" . }}-agent{{ if .Values.agents.ephemeral }}-ephemeral{{ end }}
{{- end -}}

{{/* The agents' pod selector. */}}
{{- define "restorebench.agentSelector" -}}
app.kubernetes.io/name: {{ include "restorebench.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: agent
{{- end -}}

{{/* The Secret mounted at secret.mountPath: the one named, or the chart's. */}}
{{- define "restorebench.secretName" -}}
{{- if and .Values.secret.existingSecret (or .Values.secret.clientProperties .Values.secret.controlKey .Values.secret.files) -}}
{{- fail "secret: give either existingSecret or the contents (clientProperties, controlKey, files), not both" -}}
{{- end -}}
{{- if .Values.secret.existingSecret -}}
{{- .Values.secret.existingSecret -}}
{{- else -}}
{{- include "restorebench.fullname" . }}-kafka
{{- end -}}
{{- end -}}

{{/* The image. */}}
{{- define "restorebench.image" -}}
{{- printf "%s:%s" .Values.image.repository (toString .Values.image.tag) -}}
{{- end -}}

{{/* --labels of the agents: node, state, then agents.labels by key. */}}
{{- define "restorebench.agentLabels" -}}
{{- $l := list "node=$(NODE_NAME)" (printf "state=%s" (ternary "ephemeral" "persistent" .Values.agents.ephemeral)) -}}
{{- range $k, $v := .Values.agents.labels -}}
{{- if or (contains "," (toString $v)) (contains "=" (toString $v)) (contains "," $k) (contains "=" $k) -}}
{{- fail (printf "agents.labels: %s=%v: a label holds no ',' or '='" $k $v) -}}
{{- end -}}
{{- if has $k (list "node" "state") -}}
{{- fail (printf "agents.labels: %s is set by the chart" $k) -}}
{{- end -}}
{{- $l = append $l (printf "%s=%v" $k $v) -}}
{{- end -}}
{{- join "," $l -}}
{{- end -}}

{{/* The agents by name, for run --agents. */}}
{{- define "restorebench.agentNames" -}}
{{- $prefix := include "restorebench.agentsName" . -}}
{{- $names := list -}}
{{- range $i := until (int .Values.agents.replicas) -}}
{{- $names = append $names (printf "%s-%d" $prefix $i) -}}
{{- end -}}
{{- join "," $names -}}
{{- end -}}
