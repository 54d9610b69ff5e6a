#!/usr/bin/env python3
"""Do `kubectl kustomize manifests/` and the chart's default rendering describe the same objects?

  agree.py KUSTOMIZE.yaml CHART.yaml

Pairs the objects by kind, namespace and name and compares each pair whole, after these rules, which
are Helm's conventions and nothing else:
  - labels (of an object, and of a pod template): the chart may add Helm's standard ones
    (HELM_LABELS); every label kustomize sets must be there with its value;
  - a pod template's annotations: the chart may add checksum/config (its pods roll when their
    configuration changes);
  - a ConfigMap value that is a YAML document is compared as one (the chart writes it with toYaml);
  - kustomize's Namespace has no counterpart (`helm install --create-namespace` makes it), nor do the
    chart's hooks (`helm test`'s pod).
Prints every difference with its path and exits 1 if there is one.
"""
import sys

import yaml

HELM_LABELS = {
    "helm.sh/chart", "app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/version",
    "app.kubernetes.io/managed-by", "app.kubernetes.io/part-of",
}
HELM_TEMPLATE_ANNOTATIONS = {"checksum/config"}


def load(path):
    with open(path) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    out = {}
    for d in docs:
        meta = d.get("metadata", {})
        if "helm.sh/hook" in (meta.get("annotations") or {}):
            continue
        out[(d["kind"], meta.get("namespace", ""), meta["name"])] = d
    return out


def labels_agree(kust, chart, path, diffs):
    kust, chart = kust or {}, chart or {}
    for k, v in kust.items():
        if chart.get(k) != v:
            diffs.append(f"{path}.{k}: kustomize {v!r}, chart {chart.get(k)!r}")
    for k in chart.keys() - kust.keys() - HELM_LABELS:
        diffs.append(f"{path}.{k}: only the chart sets it ({chart[k]!r})")


def maybe_yaml(value):
    if isinstance(value, str) and "\n" in value:
        try:
            parsed = yaml.safe_load(value)
        except yaml.YAMLError:
            return value
        if isinstance(parsed, dict):
            return parsed
    return value


def compare(a, b, path, diffs):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(a.keys() | b.keys()):
            if k not in b:
                diffs.append(f"{path}.{k}: only kustomize has it")
            elif k not in a:
                diffs.append(f"{path}.{k}: only the chart has it")
            else:
                compare(a[k], b[k], f"{path}.{k}", diffs)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            diffs.append(f"{path}: {len(a)} items in kustomize's, {len(b)} in the chart's")
        for i, (x, y) in enumerate(zip(a, b)):
            compare(x, y, f"{path}[{i}]", diffs)
    elif a != b:
        diffs.append(f"{path}: kustomize {a!r}, chart {b!r}")


def pair_diffs(kust, chart, where):
    diffs = []
    kust, chart = dict(kust), dict(chart)
    km, cm = dict(kust.pop("metadata")), dict(chart.pop("metadata"))
    labels_agree(km.pop("labels", None), cm.pop("labels", None), f"{where}.metadata.labels", diffs)
    compare(km, cm, f"{where}.metadata", diffs)
    template = lambda o: o.get("spec", {}).get("template", {}).get("metadata")
    kt, ct = template(kust), template(chart)
    if kt is not None and ct is not None:
        kt, ct = dict(kt), dict(ct)
        labels_agree(kt.pop("labels", None), ct.pop("labels", None), f"{where}.spec.template.metadata.labels", diffs)
        ka, ca = kt.pop("annotations", {}) or {}, dict(ct.pop("annotations", {}) or {})
        for k in HELM_TEMPLATE_ANNOTATIONS:
            ca.pop(k, None)
        compare(ka, ca, f"{where}.spec.template.metadata.annotations", diffs)
        compare(kt, ct, f"{where}.spec.template.metadata", diffs)
        kust["spec"] = dict(kust["spec"], template=dict(kust["spec"]["template"], metadata=None))
        chart["spec"] = dict(chart["spec"], template=dict(chart["spec"]["template"], metadata=None))
    if kust.get("kind") == "ConfigMap":
        for o in (kust, chart):
            o["data"] = {k: maybe_yaml(v) for k, v in (o.get("data") or {}).items()}
    compare(kust, chart, where, diffs)
    return diffs


def main(kust_path, chart_path):
    kust, chart = load(kust_path), load(chart_path)
    diffs = []
    for key in sorted(kust.keys() | chart.keys()):
        where = "/".join(p for p in key if p)
        if key not in chart:
            if key[0] != "Namespace":
                diffs.append(f"{where}: only in kustomize's rendering")
        elif key not in kust:
            diffs.append(f"{where}: only in the chart's rendering")
        else:
            diffs.extend(pair_diffs(kust[key], chart[key], where))
    for d in diffs:
        print(d)
    print(f"{len(kust.keys() & chart.keys())} objects in both, {len(diffs)} difference(s)")
    return 1 if diffs else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
