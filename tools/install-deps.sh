#!/usr/bin/env bash
# Installs the Debian packages the build needs, only those that are missing.
set -euo pipefail
pkgs=(g++ cmake make pkg-config libcpp-httplib-dev rapidjson-dev libtbb-dev libgtest-dev libbenchmark-dev libssl-dev
  libyaml-cpp-dev  # yaml/: configuration files and kubeconfigs
  libcli11-dev  # command lines: CLI11, header-only
  mold  # the linker: every executable links in a fraction of ld.bfd's time (CMakeLists.txt)
  clang libclang-rt-14-dev llvm  # tests/fuzz: clang++ with libFuzzer, ASan, UBSan; llvm-symbolizer
  zlib1g-dev  # extender/http: gzip for clients that accept it
  curl  # bench/run: the GET /healthz floor rows
  prometheus  # tests/usage: a real Prometheus scraping the test's exporter (tests/support/prometheus_server.h)
  etcd-server haproxy jq openssl  # tests/e2e: the control plane's etcd, two replicas behind one address, JSON
  yq)  # tests/charts: the chart's renderings (YAML through jq; brings python3-yaml, which agree.py reads with)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  # The package starts its own service on :9090 where systemd runs; the tests start theirs on a free port.
  if [[ " ${missing[*]} " == *" prometheus "* && -d /run/systemd/system ]]; then
    $sudo systemctl disable --now prometheus.service
  fi
fi
