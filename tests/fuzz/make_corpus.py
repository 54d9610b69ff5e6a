#!/usr/bin/env python3
"""Writes the seed corpora tests/fuzz/corpus/<harness>/ from tests/fixtures/kube-scheduler-1.26.

Seeds are the fixtures' real request bodies (names mode from cache/, full Nodes from default/), plus
smaller ones derived from them: objects without managedFields and volumes, one-node requests, and
watch streams and snapshots built from cluster.json. Run it again after changing the fixtures."""
import copy
import json
import os
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "tests", "fixtures", "kube-scheduler-1.26")
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus")


def compact(obj):
    return json.dumps(obj, separators=(",", ":"))


def slim(obj):
    """A Kubernetes object without the fields no decoder reads (managedFields, volumes, mounts)."""
    o = copy.deepcopy(obj)
    o.get("metadata", {}).pop("managedFields", None)
    spec = o.get("spec", {})
    spec.pop("volumes", None)
    for c in spec.get("containers", []):
        c.pop("volumeMounts", None)
    return o


def write(harness, name, data):
    d = os.path.join(OUT, harness)
    os.makedirs(d, exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(d, name), mode) as f:
        f.write(data)


def fixture(path):
    with open(os.path.join(FIX, path)) as f:
        return f.read()


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    cluster = json.loads(fixture("cluster.json"))
    items = [slim(i) for i in cluster["items"]]
    nodes = [i for i in items if i["kind"] == "Node"]
    pods = [i for i in items if i["kind"] == "Pod"]
    pdbs = [i for i in items if i["kind"] == "PodDisruptionBudget"]

    # filter and prioritize take the same ExtenderArgs.
    for verb, files in {
        "filter": ["0001-filter--low-1-first", "0019-filter--low-7-two-nodes-left",
                   "0022-filter--low-8-one-node-left", "0029-filter--high-1-nominated-node-only"],
        "prioritize": ["0002-prioritize--low-1"],
    }.items():
        for mode in ("cache", "default"):
            for f in files:
                write(verb, f"{mode}-{f}.json", fixture(f"{mode}/{f}.json"))
    pending = json.loads(fixture("cache/0001-filter--low-1-first.json"))["Pod"]
    pod = slim(pending)
    pod["spec"]["nodeSelector"] = {"zone": "a"}
    pod["spec"]["affinity"] = {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]},
            {"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["node-a"]}]}]},
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 5, "preference": {"matchExpressions": [{"key": "zone", "operator": "Gt", "values": ["1"]}]}}]}}
    pod["spec"]["initContainers"] = [{"name": "i", "image": "busybox", "restartPolicy": "Always",
                                      "resources": {"requests": {"cpu": "250m", "example.com/gpu": "1"}}}]
    pod["spec"]["overhead"] = {"memory": "64Mi"}
    small = [
        ("names-one-node.json", {"Pod": slim(pending), "Nodes": None, "NodeNames": ["node-a"]}),
        ("names-unknown-node.json", {"Pod": slim(pending), "NodeNames": ["node-a", "nowhere", "node-eeeee"]}),
        ("names-affinity.json", {"Pod": pod, "NodeNames": [n["metadata"]["name"] for n in nodes]}),
        ("full-two-nodes.json", {"Pod": slim(pending), "Nodes": {"items": nodes[:2]}, "NodeNames": None}),
        ("full-affinity.json", {"Pod": pod, "Nodes": {"metadata": {}, "items": nodes}}),
    ]
    for name, body in small:
        write("filter", name, compact(body))
        write("prioritize", name, compact(body))

    for mode in ("cache", "default"):
        write("preempt", f"{mode}-0028-preempt--high-1.json", fixture(f"{mode}/0028-preempt--high-1.json"))
    preempt = json.loads(fixture("default/0028-preempt--high-1.json"))
    high = slim(preempt["Pod"])
    full = {n: {"Pods": [slim(p) for p in v["Pods"]], "NumPDBViolations": v.get("NumPDBViolations", 0)}
            for n, v in preempt["NodeNameToVictims"].items()}
    first = sorted(full)[0]
    write("preempt", "full-one-node.json", compact({"Pod": high, "NodeNameToVictims": {first: full[first]}}))
    write("preempt", "full-unknown-node.json",
          compact({"Pod": high, "NodeNameToVictims": {"elsewhere": full[first], first: None}}))
    meta = json.loads(fixture("cache/0028-preempt--high-1.json"))
    write("preempt", "meta-slim.json", compact({"Pod": high, "NodeNameToMetaVictims": meta["NodeNameToMetaVictims"]}))
    never = copy.deepcopy(high)
    never["spec"]["preemptionPolicy"] = "Never"
    write("preempt", "meta-never.json", compact({"Pod": never, "NodeNameToMetaVictims": {"node-a": {"Pods": []}}}))

    for mode in ("cache", "default"):
        for f in ("0003-bind--low-1", "0030-bind--high-1"):
            write("bind", f"{mode}-{f}.json", fixture(f"{mode}/{f}.json"))
    write("bind", "no-uid.json", compact({"PodName": "low-2", "PodNamespace": "lab", "Node": "node-bb"}))
    write("bind", "unknown-pod.json", compact({"PodName": "x", "PodNamespace": "y", "PodUID": "z", "Node": "n.example"}))

    with open(os.path.join(ROOT, "tests", "fuzz", "fuzz_common.h")) as f:
        text = f.read()
    everything = text.split('kEverythingPolicy = R"(')[1].split(')";')[0]
    write("policy", "everything.json", everything)
    write("policy", "default.json", compact({
        "kind": "Policy", "apiVersion": "v1",
        "predicates": [{"name": n} for n in ("CheckNodeUnschedulable", "PodFitsHost", "MatchNodeSelector",
                                             "PodFitsResources", "PodToleratesNodeTaints")],
        "priorities": [{"name": n, "weight": 1} for n in ("LeastRequestedPriority", "BalancedResourceAllocation",
                                                          "NodeAffinityPriority", "TaintTolerationPriority",
                                                          "ImageLocalityPriority")],
        "preemption": {"semantics": "current", "maxCandidates": 1}}))
    write("policy", "rtcr-parallel.json", compact({
        "predicates": [], "alwaysCheckAllPredicates": False, "parallelThreshold": 0,
        "priorities": [{"name": "RequestedToCapacityRatioPriority", "weight": 1000000, "argument": {
            "requestedToCapacityRatioArguments": {"shape": [{"utilization": 100, "score": 10}]}}}],
        "preemption": {"semantics": "v1.16", "maxCandidates": 3}}))
    write("policy", "config-default.json", compact({
        "apiVersion": "kube-extender.io/v1alpha1", "kind": "ExtenderConfiguration"}))
    write("policy", "config-everything.json", compact({
        "apiVersion": "kube-extender.io/v1alpha1", "kind": "ExtenderConfiguration",
        "plugins": {"filter": {"disabled": [{"name": "NodeName"}]},
                    "score": {"enabled": [{"name": "NodeResourcesFit", "weight": 4},
                                          {"name": "ImageLocality", "weight": 2, "arithmetic": "v1.16"}]}},
        "pluginConfig": [
            {"name": "NodeResourcesFit", "args": {
                "ignoredResources": ["example.com/foo"], "ignoredResourceGroups": ["example.org"],
                "scoringStrategy": {"type": "RequestedToCapacityRatio",
                                    "resources": [{"name": "cpu", "weight": 2}, {"name": "example.com/gpu", "weight": 3}],
                                    "requestedToCapacityRatio": {"shape": [{"utilization": 0, "score": 10},
                                                                           {"utilization": 100, "score": 0}]}}}},
            {"name": "NodeResourcesBalancedAllocation", "args": {"resources": [
                {"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}, {"name": "ephemeral-storage", "weight": 1}]}}],
        "alwaysCheckAllFilters": True, "preemption": {"semantics": "v1.16", "maxCandidates": 2},
        "parallelThreshold": 0}))
    write("policy", "priorities-only.json", compact({"kind": "Policy", "predicates": None,
                                                      "priorities": [{"name": "MostRequestedPriority", "weight": 2}]}))

    # Watch streams: a selector byte (piece size, default sink), then the events.
    def ev(t, o):
        return compact({"type": t, "object": o})
    moved = copy.deepcopy(pods[1])
    moved["spec"]["nodeName"] = nodes[0]["metadata"]["name"]
    done = copy.deepcopy(pods[2])
    done["status"]["phase"] = "Succeeded"
    stream = "\n".join([ev("ADDED", o) for o in nodes[:2] + pods[:4] + pdbs] + [
        ev("MODIFIED", moved), ev("MODIFIED", done), ev("DELETED", nodes[0]), ev("DELETED", pods[0]),
        ev("BOOKMARK", {"kind": "Pod", "metadata": {"resourceVersion": "900"}}),
        ev("ERROR", {"kind": "Status", "code": 410, "message": "too old"})]) + "\n"
    write("watch", "events-whole.bin", b"\x80" + stream.encode())
    write("watch", "events-pieces-7.bin", b"\x06" + stream.encode())
    unkinded = [copy.deepcopy(p) for p in pods[:3]]
    for p in unkinded:
        p.pop("kind", None)
    write("watch", "pods-no-kind.bin", b"\xc1" + "".join(ev("ADDED", p) for p in unkinded).encode())
    listed = compact({"kind": "PodList", "metadata": {"resourceVersion": "1"}, "items": unkinded})
    write("watch", "list-then-events.bin", b"\x40" + (listed + ev("DELETED", unkinded[0]) + listed).encode())
    write("watch", "node-list.bin", b"\x83" + compact({"kind": "NodeList", "items": nodes}).encode())
    # What the topology plugins read: namespaces and the objects that select pods, listed, changed
    # (a selector dropped) and deleted.
    team = {"kind": "Namespace", "metadata": {"name": "team", "labels": {"tier": "data"}, "resourceVersion": "5"}}
    web_svc = {"kind": "Service", "metadata": {"name": "web", "namespace": "shop"}, "spec": {"selector": {"app": "web"}}}
    web_rs = {"kind": "ReplicaSet", "metadata": {"name": "web-1", "namespace": "shop"},
              "spec": {"selector": {"matchLabels": {"app": "web"},
                                    "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a"]}]}}}
    db_ss = {"kind": "StatefulSet", "metadata": {"name": "db", "namespace": "shop"},
             "spec": {"selector": {"matchLabels": {"app": "db"}}}}
    rc = {"kind": "ReplicationController", "metadata": {"name": "old", "namespace": "shop"},
          "spec": {"selector": {"app": "old"}}}
    no_selector = copy.deepcopy(web_rs)
    no_selector["spec"] = {}
    topology = "".join([compact({"kind": "NamespaceList", "items": [team]}),
                        compact({"kind": "ServiceList", "items": [web_svc]})] +
                       [ev("ADDED", o) for o in (web_rs, db_ss, rc) + tuple(nodes[:2] + pods[:4])] +
                       [ev("MODIFIED", no_selector), ev("DELETED", team), ev("DELETED", web_svc)])
    write("watch", "topology-objects.bin", b"\x83" + topology.encode())
    unkinded_ns = dict(team)
    unkinded_ns.pop("kind")
    write("watch", "namespace-no-kind.bin", b"\x21" + ev("ADDED", unkinded_ns).encode())

    write("snapshot", "cluster.json", fixture("cluster.json"))
    write("snapshot", "slim-list.json", compact({"kind": "List", "items": nodes[:2] + pods[:3] + pdbs}))
    write("snapshot", "pod-list.json", compact({"kind": "PodList", "items": unkinded}))
    write("snapshot", "node.json", compact(nodes[4]))
    write("snapshot", "terminal-pod.json", compact(done))

    kubeconfig = """apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t
    server: https://api.example.com:6443/prefix/
  name: prod
- cluster:
    server: https://[fd00::1]
    insecure-skip-tls-verify: true
  name: lab
contexts:
- context:
    cluster: prod
    user: admin
  name: prod-admin
- context:
    cluster: lab
    user: robot
  name: lab-robot
current-context: prod-admin
users:
- name: admin
  user:
    client-certificate-data: Y2VydA==
    client-key-data: a2V5
- name: robot
  user:
    token: abc # a comment
"""
    write("kubeconfig", "kubectl.yaml", kubeconfig)
    write("kubeconfig", "lab.yaml", kubeconfig.replace("current-context: prod-admin", "current-context: lab-robot"))
    write("kubeconfig", "json.json", compact({"current-context": "x", "contexts": [{"name": "x", "context": {
        "cluster": "c", "user": "u"}}], "clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:8001"}}],
        "users": [{"name": "u", "user": {"token": "t"}}]}))
    write("kubeconfig", "block-scalars.yaml", """# flow and block forms mini_yaml reads
current-context: 'c'
contexts:
  - name: c
    context: {}
clusters: []
users:
- name: u
  user:
    token: |-
      line one
      line two
---
list: [a, "b, c", 'd']
""")


if __name__ == "__main__":
    main()
