#!/usr/bin/env bash
# A real control plane on loopback for tests/e2e: etcd (Debian's etcd-server), a stock kube-apiserver built
# from the pinned k8s.io/kubernetes module (build.sh), and kwok for the lifecycle of the nodes and pods
# that carry its annotation. No kube-controller-manager: the e2e scripts make their own nodes and
# service accounts. Each e2e script starts the kube-scheduler it tests (KUBE_SCHEDULER), and the one that
# needs controllers (drain_real_cluster.sh) a kube-controller-manager running only those
# (KUBE_CONTROLLER_MANAGER; build.sh builds it).
#
#   controlplane.sh up [MINOR]   start (MINOR: the API server's, default the newest pinned); prints the
#                                KUBECONFIG to use
#   controlplane.sh down         stop everything it started and remove its data
#   controlplane.sh kubeconfig   print the KUBECONFIG path
#   controlplane.sh audit-log    print the API server's audit log path (every request at Metadata)
#
# State lives in $CONTROLPLANE_DIR (default /tmp/kube-extender-controlplane): pki/, logs/, run/, data/,
# admin.kubeconfig. Ports (127.0.0.1): etcd $CONTROLPLANE_ETCD_PORT (default 23790, peer +1),
# kube-apiserver $CONTROLPLANE_APISERVER_PORT (default 16443).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${CONTROLPLANE_DIR:-/tmp/kube-extender-controlplane}
etcd_port=${CONTROLPLANE_ETCD_PORT:-23790}
apiserver_port=${CONTROLPLANE_APISERVER_PORT:-16443}
bin_root=${CONTROLPLANE_BIN:-$here/bin}
kubeconfig=$dir/admin.kubeconfig

newest_minor() { find "$here/minors" -name 'v1.*.mod' -printf '%f\n' | sed 's/\.mod$//' | sort -V | tail -1; }

die() {
  echo "controlplane: $1" >&2
  if [ -n "${2:-}" ] && [ -f "$2" ]; then
    echo "---- last lines of $2 ----" >&2
    tail -n 30 "$2" >&2
  fi
  exit 1
}

# A CA, the API server's serving certificate for 127.0.0.1 and localhost, an admin client certificate in
# system:masters, the service-account key pair, and a kubeconfig for the admin.
make_pki() {
  local p=$dir/pki
  mkdir -p "$p"
  (
    cd "$p"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 30 -subj /CN=kube-extender-e2e-ca 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj /CN=kube-apiserver 2>/dev/null
    printf 'subjectAltName=DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:127.0.0.1,IP:10.0.0.1\nextendedKeyUsage=serverAuth\n' >apiserver.ext
    openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 -extfile apiserver.ext -out apiserver.crt 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -keyout admin.key -out admin.csr -subj "/O=system:masters/CN=e2e-admin" 2>/dev/null
    printf 'extendedKeyUsage=clientAuth\n' >admin.ext
    openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 -extfile admin.ext -out admin.crt 2>/dev/null
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
  )
  cat >"$kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster: {server: "https://127.0.0.1:$apiserver_port", certificate-authority: $p/ca.crt}
users:
- name: admin
  user: {client-certificate: $p/admin.crt, client-key: $p/admin.key}
contexts:
- name: e2e
  context: {cluster: e2e, user: admin}
current-context: e2e
KC
}

# NAME LOG COMMAND...: started in its own session, its pid in run/NAME.pid.
launch() {
  local name=$1 log=$2
  shift 2
  setsid "$@" >"$log" 2>&1 </dev/null &
  echo $! >"$dir/run/$name.pid"
}

# Polls COMMAND until it succeeds, for up to SECONDS, failing with NAME's log if its process exits.
wait_for() { # name seconds command...
  local name=$1 limit=$2 pid
  shift 2
  pid=$(cat "$dir/run/$name.pid")
  for _ in $(seq $((limit * 5))); do
    "$@" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || die "$name exited" "$dir/logs/$name.log"
    sleep 0.2
  done
  die "$name not ready after $limit s" "$dir/logs/$name.log"
}

start_etcd() {
  command -v etcd >/dev/null || die "no etcd (apt-get install etcd-server)"
  launch etcd "$dir/logs/etcd.log" etcd --name e2e --data-dir "$dir/data/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$((etcd_port + 1))" \
    --initial-advertise-peer-urls "http://127.0.0.1:$((etcd_port + 1))" \
    --initial-cluster "e2e=http://127.0.0.1:$((etcd_port + 1))" --logger zap --log-level warn
  wait_for etcd 30 curl -fs "http://127.0.0.1:$etcd_port/health"
}

# The API server's feature gates for MINOR. WatchList off from 1.27, where it exists: with it on (the
# default from 1.34), a watch from resourceVersion 0 is served as a watch-list stream, which needs etcd's
# progress notifications (RequestWatchProgress), and the API server turns those off on Debian's etcd 3.4.
# Every such watch then ended at once: kwok, which watches from 0, saw new pods only at its next relist,
# up to a minute later (k8s.io/apimachinery internalversion SetListOptionsDefaults; apiserver cacher.go).
apiserver_feature_gates() { # minor
  local m=${1#v1.}
  [ "$m" -ge 27 ] && echo "--feature-gates=WatchList=false"
  return 0
}

start_apiserver() { # binary minor
  local p=$dir/pki
  # Every request's metadata: follow_real_scheduler.sh checks that the follower only reads (AUDIT_LOG).
  printf 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n' >"$dir/audit-policy.yaml"
  # shellcheck disable=SC2046,SC2086  # the gates and the extra flags are lists of arguments
  # The flags a kubeadm control plane sets for these, with no cloud, no controller manager (so no
  # endpoints reconciler) and RBAC on, as the extender's manifests assume.
  launch kube-apiserver "$dir/logs/kube-apiserver.log" "$1" \
    --etcd-servers "http://127.0.0.1:$etcd_port" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$apiserver_port" \
    --tls-cert-file "$p/apiserver.crt" --tls-private-key-file "$p/apiserver.key" --client-ca-file "$p/ca.crt" \
    --service-account-key-file "$p/sa.pub" --service-account-signing-key-file "$p/sa.key" \
    --service-account-issuer https://kubernetes.default.svc \
    --service-cluster-ip-range 10.0.0.0/24 --endpoint-reconciler-type none \
    --authorization-mode Node,RBAC --allow-privileged=true --cert-dir "$dir/run/apiserver-certs" \
    --audit-log-path "$dir/logs/audit.log" --audit-policy-file "$dir/audit-policy.yaml" \
    $(apiserver_feature_gates "$2") ${CONTROLPLANE_APISERVER_FLAGS:-}
  wait_for kube-apiserver 90 kubectl --kubeconfig "$kubeconfig" get --raw /readyz
  # Namespace default's service account, which a controller manager would create.
  wait_for kube-apiserver 30 kubectl --kubeconfig "$kubeconfig" get namespace default
  kubectl --kubeconfig "$kubeconfig" -n default create serviceaccount default >/dev/null 2>&1 || true
}

# kwok manages the nodes annotated kwok.x-k8s.io/node=fake (heartbeats, Ready) and their pods (Running,
# a startTime, deletion finished as a kubelet would).
start_kwok() { # binary
  launch kwok "$dir/logs/kwok.log" "$1" --kubeconfig "$kubeconfig" \
    --manage-all-nodes=false --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
    --node-lease-duration-seconds=40 --server-address 127.0.0.1:0
  wait_for kwok 30 grep -q "Starting" "$dir/logs/kwok.log"
}

up() {
  local minor=${1:-$(newest_minor)}
  [ -e "$dir/run/kube-apiserver.pid" ] && die "already up in $dir (controlplane.sh down first)"
  "$here/build.sh" "$minor" kube-apiserver kube-scheduler kubectl
  "$here/build.sh" kwok kwok
  export PATH=$bin_root/$minor:$PATH
  rm -rf "$dir"
  mkdir -p "$dir/logs" "$dir/run" "$dir/data"
  make_pki
  start_etcd
  start_apiserver "$bin_root/$minor/kube-apiserver" "$minor"
  start_kwok "$bin_root/kwok/kwok"
  echo "controlplane: kube-apiserver $("$bin_root/$minor/kube-apiserver" --version | awk '{print $2}') on https://127.0.0.1:$apiserver_port, etcd $(etcd --version | awk 'NR == 1 {print $3}'), kwok"
  echo "KUBECONFIG=$kubeconfig"
  echo "AUDIT_LOG=$dir/logs/audit.log"
}

down() {
  local name pid
  for name in kwok kube-apiserver etcd; do
    [ -f "$dir/run/$name.pid" ] || continue
    pid=$(cat "$dir/run/$name.pid")
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$dir/run/$name.pid"
  done
  rm -rf "$dir/data"
}

case "${1:-}" in
up) up "${2:-}" ;;
down) down ;;
kubeconfig) echo "$kubeconfig" ;;
audit-log) echo "$dir/logs/audit.log" ;;
*) echo "usage: controlplane.sh up [MINOR] | down | kubeconfig | audit-log" >&2; exit 2 ;;
esac
