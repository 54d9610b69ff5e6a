#!/usr/bin/env bash
# The Helm chart's default rendering against a real kube-apiserver and kube-scheduler
# (docs/operating.md, "Install with Helm"): the processes the chart would run, on what it renders.
#   - the extender runs with the args of the chart's Deployment and the ExtenderConfiguration of its
#     ConfigMap (--in-cluster made --kubeconfig, the pod IP loopback, the ports free ones here);
#   - kube-scheduler runs with the KubeSchedulerConfiguration of the chart's ConfigMap, leader election
#     included (clientConnection added, urlPrefix pointed at that extender: the Service's name does not
#     resolve here);
#   - the script of `helm test`'s pod passes against that extender;
#   - pods naming the chart's scheduler are bound through the extender: its filter decided each, and the
#     Lease the chart names is held by it.
# TLS=1 renders with tls.mode=secret (mutual): the Secrets' files are made here (a CA, the extender's
# certificate for 127.0.0.1, the scheduler's client certificate) where the chart mounts them, and
# everything above runs over HTTPS with client certificates; a client without one is refused.
# Needs KUBECONFIG naming a cluster whose credentials may create nodes, namespaces and pods; skipped,
# with a message, when it names none. KUBE_SCHEDULER names the kube-scheduler to start (without it,
# the script is skipped: it checks the configuration the chart renders, which only a scheduler started
# here runs). BUILD names the build folder (build).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source-path=SCRIPTDIR/../..
. tests/e2e/lib.sh

e2e_init chart_real_scheduler chart
[ -n "${KUBE_SCHEDULER:-}" ] || { echo "chart_real_scheduler: skipped: KUBE_SCHEDULER is not set"; exit 0; }
TLS=${TLS:-0}
# A port of each mode's own: the chart's --shutdown-delay-seconds keeps a stopped extender on its port
# for 10 s, and CI runs the two modes one after the other.
EXTENDER_PORT=${EXTENDER_PORT:-$((8870 + 10 * TLS))}
METRICS_PORT=$((EXTENDER_PORT + 1))
trap e2e_cleanup EXIT
e2e_create_namespace
tests/e2e/controlplane/build.sh helm >/dev/null
helm=tests/e2e/controlplane/bin/helm/helm
chart_args=()
scheme=http
if [ "$TLS" = 1 ]; then
  chart_args=(--set tls.mode=secret --set tls.mutual=true)
  scheme=https
  # What the two Secrets hold: the extender's tls.crt/tls.key and the CA of its clients (ca.crt), the
  # scheduler's client tls.crt/tls.key and the CA of the extender's certificate. One CA signs both.
  mkdir -p "$WORK/extender-tls" "$WORK/scheduler-tls"
  (
    cd "$WORK"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 1 -subj /CN=e2e-chart-ca 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -keyout extender-tls/tls.key -out server.csr -subj /CN=kube-extender 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >server.ext
    openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 -extfile server.ext -out extender-tls/tls.crt 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -keyout scheduler-tls/tls.key -out client.csr -subj /CN=kube-extender-scheduler 2>/dev/null
    printf 'extendedKeyUsage=clientAuth\n' >client.ext
    openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 -extfile client.ext -out scheduler-tls/tls.crt 2>/dev/null
    cp ca.crt extender-tls/ca.crt
    cp ca.crt scheduler-tls/ca.crt
  )
fi
"$helm" template kube-extender charts/kube-extender --namespace "$NS" "${chart_args[@]}" >"$WORK/chart.yaml"
object() { yq -r "select(.kind == \"$1\" and .metadata.name == \"$2\") | $3" "$WORK/chart.yaml"; } # kind name path

# The extender, as the chart's Deployment runs it.
object ConfigMap kube-extender-policy '.data["config.yaml"]' >"$WORK/config.yaml"
mapfile -t args < <(object Deployment kube-extender '.spec.template.spec.containers[0].args[]')
run_args=()
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[$i]}" in
  --in-cluster) run_args+=(--kubeconfig "$KUBECONFIG") ;;
  --config) run_args+=(--config "$WORK/config.yaml"); i=$((i + 1)) ;;
  --port) run_args+=(--port "$EXTENDER_PORT"); i=$((i + 1)) ;;
  --metrics-port) run_args+=(--metrics-port "$METRICS_PORT"); i=$((i + 1)) ;;
  '--advertise-address=$(POD_IP)') run_args+=(--advertise-address=127.0.0.1) ;;
  --tls-*=/etc/kube-extender-tls/* | --client-ca-file=/etc/kube-extender-tls/*)
    run_args+=("${args[$i]/\/etc\/kube-extender-tls/$WORK/extender-tls}") ;;
  *) run_args+=("${args[$i]}") ;;
  esac
done
echo "chart_real_scheduler: the extender with the chart's args: ${args[*]}"
"$BUILD/kube-extender" "${run_args[@]}" >"$WORK/extender.log" 2>&1 &
PIDS+=($!)
[ "$TLS" = 1 ] || E2E_EXTENDER_PORTS=("$EXTENDER_PORT")  # what fail() asks for its decisions
# /readyz on the metrics port, plain HTTP in every TLS mode (the kubelet's probes).
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$METRICS_PORT/readyz" >/dev/null && break; sleep 0.2; done
curl -sf "http://127.0.0.1:$METRICS_PORT/readyz" >/dev/null || fail "the extender on the chart's args is not ready"
if [ "$TLS" = 1 ]; then
  if curl -s --cacert "$WORK/ca.crt" -o /dev/null "https://127.0.0.1:$EXTENDER_PORT/readyz"; then
    fail "the extender served a client without a certificate"
  fi
  echo "chart_real_scheduler: mutual TLS on the verbs: a client without a certificate is refused"
fi
verbs=(--cacert "$WORK/ca.crt" --cert "$WORK/scheduler-tls/tls.crt" --key "$WORK/scheduler-tls/tls.key")
[ "$TLS" = 1 ] || verbs=()

# helm test's script, its Service names pointed here.
object Pod kube-extender-test-verbs '.spec.containers[0].command[2]' |
  sed -e "s|$scheme://kube-extender\.$NS\.svc:8888|$scheme://127.0.0.1:$EXTENDER_PORT|" \
    -e "s|/tls/|$WORK/scheduler-tls/|g" -e "s|/tmp/reply|$WORK/test-reply|g" >"$WORK/helm-test.sh"
sh -e "$WORK/helm-test.sh" >"$WORK/helm-test.log" 2>&1 || { cat "$WORK/helm-test.log"; fail "helm test's script fails"; }
echo "chart_real_scheduler: helm test's script passes: $(cat "$WORK/test-reply")"

# kube-scheduler on the chart's configuration.
object ConfigMap kube-extender-scheduler-config '.data["scheduler-config.yaml"]' |
  yq -y --arg k "$KUBECONFIG" --arg u "$scheme://127.0.0.1:$EXTENDER_PORT" --arg t "$WORK/scheduler-tls/" \
    '.clientConnection = {kubeconfig: $k} | .extenders[0].urlPrefix = $u |
     if .extenders[0].tlsConfig then .extenders[0].tlsConfig |= map_values(sub("/etc/kubernetes/kube-extender-tls/"; $t)) else . end' \
    >"$WORK/scheduler-config.yaml"
e2e_start_scheduler "$WORK/scheduler-config.yaml" 2
scheduler_name=$(yq -r '.profiles[0].schedulerName' "$WORK/scheduler-config.yaml")

for i in 0 1 2; do e2e_node_yaml "e2e-chart-$i" 4 16Gi; done | e2e_create_nodes
for i in 0 1 2 3; do
  e2e_extender_pod_yaml "web-$i" "{kube-extender.io/e2e: chart}" "{kube-extender.io/e2e: chart}" 1 |
    sed "s/schedulerName: kube-extender-scheduler/schedulerName: $scheduler_name/"
done | K apply -f - >/dev/null
start=$(now)
until [ "$(e2e_pods_now | awk '$2 != "-"' | wc -l)" = 4 ]; do
  gt "$(since "$start")" 60 && fail "not all 4 pods bound within 60 s: $(e2e_pods_now | tr '\n' ' ')"
  sleep 0.5
done
echo "chart_real_scheduler: 4 pods naming $scheduler_name bound in $(since "$start") s"
for i in 0 1 2 3; do
  decided=$(curl -s "${verbs[@]}" "$scheme://127.0.0.1:$EXTENDER_PORT/debug/decisions?pod=$NS/web-$i" | jq '[.decisions[] | select(.verb == "filter")] | length')
  [ "$decided" -ge 1 ] || fail "web-$i was bound without the extender's filter"
done
holder=$(K -n "$NS" get lease kube-extender -o jsonpath='{.spec.holderIdentity}')
[ -n "$holder" ] || fail "no replica holds the Lease the chart names ($NS/kube-extender)"
echo "chart_real_scheduler: every pod filtered by the extender; Lease $NS/kube-extender held by $holder"
echo "chart_real_scheduler: PASS"
