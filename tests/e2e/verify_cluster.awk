# The random cluster of verify_scheduler_agreement.sh, from a seed: Node objects, the pods bound to them,
# and the pods to schedule, as files in OUT (run with -v seed= nodes= tests= preemptors= ns= label= out=):
#   nodes.json        a v1 List of Nodes (labels, taints, spec.unschedulable on a few)
#   pods.json         a v1 List of the existing pods, spec.nodeName set (so no scheduler sees them)
#   patches.tsv       "PATH<TAB>JSON" merge patches sent after creation: each node's taints (admission
#                     adds node.kubernetes.io/not-ready to a new node) and status (allocatable, Ready,
#                     images), each existing pod's status (Running, a startTime of its own, so that
#                     preemption's MoreImportantPod never ties on time), the PDB's status
#   extras.json       a v1 List: two Services (PodTopologySpread's system default constraints) and a PDB
#   test/NNN-SHAPE.json  the pods to schedule, in order; SHAPE names what the pod exercises
#   nodes.txt         the node names, one a line
# The same seed gives the same files with the same awk (mawk and gawk draw different numbers).

function rnd(n) { return int(rand() * n) }
function chance(p) { return rand() < p }
function pick(list, a, n) { n = split(list, a, " "); return a[rnd(n) + 1] }
function q(s) { return "\"" s "\"" }
function kv(k, v) { return q(k) ":" q(v) }

# A quantity of memory in Mi, as Kubernetes writes it.
function mem(mi) { return (mi % 1024 == 0) ? (mi / 1024) "Gi" : mi "Mi" }
function cpu(m) { return (m % 1000 == 0) ? (m / 1000) "" : m "m" }
function requests(c, m, extra) {
  if (c == 0 && m == 0) return "{}"
  return "{" q("requests") ":{" kv("cpu", cpu(c)) "," kv("memory", mem(m)) extra "}}"
}
function hex(n, s, i) { s = ""; for (i = 0; i < n; i++) s = s sprintf("%x", rnd(16)); return s }

function make_images(i) {
  # 12 images of 30 MB to 1.5 GB; "tools" is named without a tag in pods (normalised to :latest).
  split("web api db cache batch queue tools ml-runtime sidecar-proxy log-agent init-migrate base", imgbase, " ")
  for (i = 1; i <= 12; i++) {
    img_repo[i] = "registry.example/verify/" imgbase[i]
    img_tag[i] = (imgbase[i] == "tools") ? "latest" : "1." rnd(5)
    img_size[i] = (30 + rnd(1500)) * 1000 * 1000
    img_prob[i] = 0.05 + rand() * 0.6
    img_digest[i] = hex(64)
  }
  img_count = 12
}
# The image as a pod names it.
function pod_image(i) { return (img_tag[i] == "latest" && imgbase[i] == "tools") ? img_repo[i] : img_repo[i] ":" img_tag[i] }

function zone_pick(r) {
  r = rand()
  return r < 0.35 ? "zone-a" : r < 0.65 ? "zone-b" : r < 0.90 ? "zone-c" : "zone-d"
}

function make_node(i, name, cores, labels, taints, images, k, status, spec) {
  name = sprintf("verify-n-%03d", i)
  node_name[i] = name
  cores = pick("2 4 4 8 8 8 16 16 32")
  node_cpu[i] = cores * 1000 - (60 + rnd(15) * 10)
  node_mem[i] = cores * (3584 + rnd(4) * 256)
  node_pods[i] = (cores <= 2 && chance(0.5)) ? 12 : 110
  node_zone[i] = zone_pick()
  node_type[i] = "c" cores
  used_cpu[i] = 0; used_mem[i] = 0; used_pods[i] = 0
  labels = kv("kubernetes.io/hostname", name) "," kv("kube-extender.io/e2e", label) "," \
    kv("topology.kubernetes.io/zone", node_zone[i]) "," kv("topology.kubernetes.io/region", "region-1") "," \
    kv("node.kubernetes.io/instance-type", node_type[i])
  if (chance(0.4)) labels = labels "," kv("disktype", "ssd")
  taints = "{" kv("key", "kube-extender.io/e2e") "," kv("value", label) "," kv("effect", "NoSchedule") "}"
  if (chance(0.10)) taints = taints ",{" kv("key", "dedicated") "," kv("value", "batch") "," kv("effect", "NoSchedule") "}"
  if (chance(0.20)) taints = taints ",{" kv("key", "spot") "," kv("value", "true") "," kv("effect", "PreferNoSchedule") "}"
  if (chance(0.06)) taints = taints ",{" kv("key", "maintenance") "," kv("value", "soon") "," kv("effect", "PreferNoSchedule") "}"
  spec = "{" q("taints") ":[" taints "]"
  if (chance(0.02)) spec = spec "," q("unschedulable") ":true"
  spec = spec "}"
  printf "%s{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":%s,\"labels\":{%s}},\"spec\":%s}",
    (i ? "," : ""), q(name), labels, spec > (out "/nodes.json")
  print name > (out "/nodes.txt")
  print "/api/v1/nodes/" name "\t{\"spec\":" spec "}" > (out "/patches.tsv")
  images = ""
  for (k = 1; k <= img_count; k++) {
    if (!chance(img_prob[k])) continue
    on_node[i, k] = 1
    images = images (images == "" ? "" : ",") "{\"names\":[" q(img_repo[k] "@sha256:" img_digest[k]) "," \
      q(img_repo[k] ":" img_tag[k]) "],\"sizeBytes\":" img_size[k] "}"
  }
  alloc = "{" kv("cpu", cpu(node_cpu[i])) "," kv("memory", node_mem[i] "Mi") "," kv("pods", node_pods[i]) "," \
    kv("ephemeral-storage", (50 + rnd(4) * 50) "Gi") "}"
  status = "{\"status\":{\"capacity\":" alloc ",\"allocatable\":" alloc ",\"images\":[" images "]," \
    "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"KubeletReady\",\"message\":\"verify\"," \
    "\"lastHeartbeatTime\":" q(now) ",\"lastTransitionTime\":" q(now) "}]}}"
  print "/api/v1/nodes/" name "/status\t" status > (out "/patches.tsv")
}

# Labels every pod of this script carries, with app and any more given.
function pod_labels(app, more) { return "{" kv("app", app) "," kv("kube-extender.io/e2e", label) more "}" }
function tolerations(extra) {
  return "[{" kv("key", "kube-extender.io/e2e") "," kv("operator", "Exists") "}" extra "]"
}
function container(name, image, res) {
  return "{" kv("name", name) "," kv("image", image) ",\"resources\":" res "}"
}
function pod_json(name, labels, spec) {
  return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":" q(name) ",\"namespace\":" q(ns) \
    ",\"labels\":" labels "},\"spec\":{\"terminationGracePeriodSeconds\":0," spec "}}"
}
function priority_class(r) {
  r = rand()
  return r < 0.4 ? "verify-low" : r < 0.7 ? "verify-mid" : ""
}

# Existing pods on node i until its CPU is filled to a random share of 25..97 %: best-effort ones, some
# with an init container larger than their container, some with pod (anti-)affinity of their own.
function fill_node(i, target, c, m, app, name, labels, spec, init, extra, pc, n) {
  target = node_cpu[i] * (0.25 + rand() * 0.72)
  n = 0
  while (used_pods[i] < node_pods[i] - 1) {
    if (chance(0.1)) { c = 0; m = 0 } else {
      # Shares of the node, so that big nodes hold a few big pods rather than very many small ones.
      c = int(node_cpu[i] * pick("0.02 0.04 0.06 0.08 0.1 0.12 0.15 0.2 0.25 0.3") / 10) * 10
      m = int(node_mem[i] * pick("0.02 0.04 0.06 0.08 0.1 0.15 0.2 0.25") / 16) * 16
    }
    if (used_cpu[i] + c > target || used_mem[i] + m > node_mem[i] * 0.9) break
    app = pick("web web api api db cache batch queue")
    name = sprintf("e-%03d-%02d-%s", i, n++, app)
    labels = pod_labels(app, chance(0.3) ? "," kv("pod-template-hash", "h" rnd(3)) : "")
    pc = priority_class()
    spec = "\"nodeName\":" q(node_name[i]) ",\"tolerations\":" tolerations("")
    if (pc != "") spec = spec ",\"priorityClassName\":" q(pc)
    init = ""
    if (chance(0.15)) {
      init = ",\"initContainers\":[" container("init", img_repo[11] ":" img_tag[11], requests(c * 2, m, "")) "]"
    }
    extra = ""
    if (app == "cache" && chance(0.4)) {
      extra = ",\"affinity\":{\"podAntiAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[" \
        "{\"labelSelector\":{\"matchLabels\":{" kv("app", "cache") "}},\"topologyKey\":\"kubernetes.io/hostname\"}]}}"
    } else if (chance(0.08)) {
      extra = ",\"affinity\":{\"podAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":[{\"weight\":" \
        (10 + rnd(90)) ",\"podAffinityTerm\":{\"labelSelector\":{\"matchLabels\":{" kv("app", pick("web api")) \
        "}},\"topologyKey\":\"topology.kubernetes.io/zone\"}}]}}"
    }
    spec = spec extra init ",\"containers\":[" container("c", pod_image(1 + rnd(img_count)), requests(c, m, "")) "]"
    printf "%s%s", (pods_written++ ? "," : ""), pod_json(name, labels, spec) > (out "/pods.json")
    # Distinct start times, the oldest first: MoreImportantPod breaks priority ties on them.
    start_seq++
    print "/api/v1/namespaces/" ns "/pods/" name "/status\t{\"status\":{\"phase\":\"Running\",\"startTime\":" \
      q(ago(100000 - start_seq * 37)) resized(c, m) "}}" > (out "/patches.tsv")
    used_cpu[i] += c; used_mem[i] += m; used_pods[i]++
    if (app == "db") db_pods++
  }
}

# One pod in eight of those with requests runs resized up: its container status reports 1.5 times the
# spec's requests as allocated and in force, as a kubelet does after an in-place resize. kube-scheduler
# counts the larger from 1.33 (InPlacePodVerticalScaling beta), the spec before.
function resized(c, m, rc, rm) {
  if (c == 0 || !chance(0.125)) return ""
  rc = int(c * 1.5 / 10) * 10; rm = int(m * 1.5 / 16) * 16
  return ",\"containerStatuses\":[{" kv("name", "c") "," kv("image", "img") "," kv("imageID", "") \
    ",\"ready\":true,\"restartCount\":0,\"state\":{\"running\":{}},\"allocatedResources\":{" kv("cpu", cpu(rc)) "," \
    kv("memory", mem(rm)) "},\"resources\":" requests(rc, rm, "") "}]"
}

# RFC 3339 time S seconds before `now_epoch`.
function ago(s, t) {
  t = now_epoch - s
  return strftime_utc(t)
}
# mawk has no strftime: days from the civil calendar (Howard Hinnant's days_from_civil, inverted).
function strftime_utc(t, days, secs, z, era, doe, yoe, y, doy, mp, d, m) {
  days = int(t / 86400); secs = t - days * 86400
  z = days + 719468; era = int(z / 146097); doe = z - era * 146097
  yoe = int((doe - int(doe / 1460) + int(doe / 36524) - int(doe / 146096)) / 365)
  y = yoe + era * 400; doy = doe - (365 * yoe + int(yoe / 4) - int(yoe / 100))
  mp = int((5 * doy + 2) / 153); d = doy - int((153 * mp + 2) / 5) + 1
  m = mp < 10 ? mp + 3 : mp - 9
  if (m <= 2) y++
  return sprintf("%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, d, int(secs / 3600), int(secs % 3600 / 60), secs % 60)
}

function spread(key, when, skew, selector, more) {
  return "{\"maxSkew\":" skew ",\"topologyKey\":" q(key) ",\"whenUnsatisfiable\":" q(when) \
    ",\"labelSelector\":" selector more "}"
}
function match_app(app) { return "{\"matchLabels\":{" kv("app", app) "}}" }

# Test pod t: its shape (what it exercises) cycles through the list, its sizes are drawn.
function make_test(t, shapes, shape, app, c, m, labels, spec, init, aff, tsc, tol, img, pc, res, name, more, more_spec) {
  split("plain besteffort init sidecar spread-zone spread-soft spread-keys node-affinity pod-affinity " \
    "anti-affinity tolerate images service ephemeral big empty-selector pod-level", shapes, " ")
  shape = shapes[t % 17 + 1]
  app = pick("web api db cache batch queue")
  c = pick("100 200 250 500 500 750 1000 1500 2000 3000"); m = pick("128 256 512 512 1024 2048 4096")
  more = ""; more_spec = ""; init = ""; aff = ""; tsc = ""; tol = ""; img = pod_image(1 + rnd(img_count))
  res = requests(c, m, "")
  if (shape == "besteffort") res = "{}"
  if (shape == "init") init = "[" container("init", pod_image(11), requests(c * 3, m * 2, "")) "]"
  if (shape == "sidecar")
    init = "[{" kv("name", "proxy") "," kv("image", pod_image(9)) ",\"restartPolicy\":\"Always\",\"resources\":" \
      requests(500, 256, "") "}]"
  if (shape == "spread-zone") tsc = spread("topology.kubernetes.io/zone", "DoNotSchedule", 1, match_app(app), "")
  if (shape == "spread-soft")
    tsc = spread("kubernetes.io/hostname", "ScheduleAnyway", 1, match_app(app), "") "," \
      spread("topology.kubernetes.io/zone", "ScheduleAnyway", 2, match_app(app), "")
  if (shape == "spread-keys") {
    more = "," kv("pod-template-hash", "h" rnd(3))
    tsc = spread("topology.kubernetes.io/zone", "ScheduleAnyway", 1, match_app(app), ",\"matchLabelKeys\":[\"pod-template-hash\"]")
  }
  if (shape == "empty-selector") tsc = spread("topology.kubernetes.io/zone", "DoNotSchedule", 1, "{}", "")
  if (shape == "node-affinity")
    aff = "\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":{\"nodeSelectorTerms\":[{" \
      "\"matchExpressions\":[{\"key\":\"topology.kubernetes.io/zone\",\"operator\":\"In\",\"values\":[\"zone-a\",\"zone-b\",\"zone-c\"]}]}]}," \
      "\"preferredDuringSchedulingIgnoredDuringExecution\":[{\"weight\":50,\"preference\":{\"matchExpressions\":[" \
      "{\"key\":\"disktype\",\"operator\":\"In\",\"values\":[\"ssd\"]}]}},{\"weight\":" (5 + rnd(30)) \
      ",\"preference\":{\"matchExpressions\":[{\"key\":\"topology.kubernetes.io/zone\",\"operator\":\"In\",\"values\":[" \
      q(pick("zone-a zone-b zone-c zone-d")) "]}]}}]}"
  if (shape == "pod-affinity")
    aff = "\"podAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[{\"labelSelector\":" match_app("db") \
      ",\"topologyKey\":\"topology.kubernetes.io/zone\"}]},\"podAntiAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":[" \
      "{\"weight\":" (20 + rnd(80)) ",\"podAffinityTerm\":{\"labelSelector\":" match_app("web") ",\"topologyKey\":\"kubernetes.io/hostname\"}}]}"
  if (shape == "anti-affinity") {
    app = "cache"
    aff = "\"podAntiAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[{\"labelSelector\":" match_app("cache") \
      ",\"topologyKey\":\"kubernetes.io/hostname\"}],\"preferredDuringSchedulingIgnoredDuringExecution\":[{\"weight\":60," \
      "\"podAffinityTerm\":{\"labelSelector\":" match_app("db") ",\"topologyKey\":\"topology.kubernetes.io/zone\"}}]}"
  }
  if (shape == "tolerate")
    tol = ",{" kv("key", "dedicated") "," kv("operator", "Equal") "," kv("value", "batch") "," kv("effect", "NoSchedule") "}" \
      ",{" kv("key", "spot") "," kv("operator", "Exists") "," kv("effect", "PreferNoSchedule") "}"
  if (shape == "images") {
    img = pod_image(8)
    init = "[" container("init", pod_image(12), requests(100, 64, "")) "]"
  }
  if (shape == "service") app = pick("web api")
  if (shape == "ephemeral") res = requests(c, m, "," kv("ephemeral-storage", (10 + rnd(120)) "Gi"))
  if (shape == "big") res = requests(6000 + rnd(8) * 1000, 8192 + rnd(4) * 4096, "")
  # Pod-level requests (PodLevelResources, beta from 1.34) above the container's own: 1.34 and later
  # count the pod level, earlier minors the container.
  if (shape == "pod-level") {
    res = requests(100, 128, "")
    more_spec = ",\"resources\":" requests(c * 2, m * 2, "")
  }
  pc = chance(0.3) ? "verify-mid" : ""
  name = sprintf("t%03d-%s", t, shape)
  labels = pod_labels(app, more)
  spec = "\"schedulerName\":" q(scheduler) ",\"nodeSelector\":{" kv("kube-extender.io/e2e", label) "},\"tolerations\":" tolerations(tol)
  if (pc != "") spec = spec ",\"priorityClassName\":" q(pc)
  if (aff != "") spec = spec ",\"affinity\":{" aff "}"
  if (tsc != "") spec = spec ",\"topologySpreadConstraints\":[" tsc "]"
  if (init != "") spec = spec ",\"initContainers\":" init
  spec = spec more_spec ",\"containers\":[" container("c", img, res) "]"
  print pod_json(name, labels, spec) > (out "/test/" sprintf("%03d", ++test_seq) "-" name ".json")
}

# Preemptor p: priority verify-high, held to one zone and one node size, asking more CPU than any such node
# has free now (the test pods only take more), so it fits nowhere without evicting.
# A size whose nodes are all nearly empty is skipped: no eviction could make room there.
function make_preemptor(p, z, zone, type, free, most, i, c, name, spec, tries) {
  z = p % 4; zone = "zone-" substr("abcd", z + 1, 1)
  for (tries = 0; tries < 20; tries++) {
    type = pick("c4 c8 c8 c16")
    free = 0; most = 0
    for (i = 0; i < nodes; i++) {
      if (node_zone[i] != zone || node_type[i] != type) continue
      if (node_cpu[i] - used_cpu[i] > free) free = node_cpu[i] - used_cpu[i]
      if (node_cpu[i] > most) most = node_cpu[i]
    }
    c = int(free / 100) * 100 + 100
    if (c <= most) break
  }
  name = sprintf("p%03d-preempt-%s-%s", p, zone, type)
  spec = "\"schedulerName\":" q(scheduler) ",\"nodeSelector\":{" kv("kube-extender.io/e2e", label) "," \
    kv("topology.kubernetes.io/zone", zone) "," kv("node.kubernetes.io/instance-type", type) "},\"tolerations\":" tolerations("") ",\"priorityClassName\":\"verify-high\"" \
    ",\"containers\":[" container("c", pod_image(1), requests(c, 256, "")) "]"
  print pod_json(name, pod_labels("preemptor", ""), spec) > (out "/test/" sprintf("%03d", ++test_seq) "-" name ".json")
}

BEGIN {
  srand(seed)
  now_epoch = now_epoch + 0
  now = strftime_utc(now_epoch)
  make_images()
  printf "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" > (out "/nodes.json")
  for (i = 0; i < nodes; i++) make_node(i)
  print "]}" > (out "/nodes.json")
  printf "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" > (out "/pods.json")
  for (i = 0; i < nodes; i++) fill_node(i)
  print "]}" > (out "/pods.json")
  # Services select web and api pods: PodTopologySpread's system default constraints apply to them.
  # The PDB covers the db pods; its status (no disruption controller here) is patched to allow 2.
  print "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" \
    "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"web\",\"namespace\":" q(ns) "},\"spec\":{\"selector\":{\"app\":\"web\"},\"ports\":[{\"port\":80}]}}," \
    "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"api\",\"namespace\":" q(ns) "},\"spec\":{\"selector\":{\"app\":\"api\"},\"ports\":[{\"port\":80}]}}," \
    "{\"apiVersion\":\"policy/v1\",\"kind\":\"PodDisruptionBudget\",\"metadata\":{\"name\":\"db\",\"namespace\":" q(ns) "},\"spec\":{\"minAvailable\":1,\"selector\":{\"matchLabels\":{\"app\":\"db\"}}}}]}" > (out "/extras.json")
  print "/apis/policy/v1/namespaces/" ns "/poddisruptionbudgets/db/status\t{\"status\":{\"disruptionsAllowed\":2," \
    "\"currentHealthy\":" db_pods ",\"desiredHealthy\":" (db_pods - 2) ",\"expectedPods\":" db_pods ",\"observedGeneration\":1}}" > (out "/patches.tsv")
  every = preemptors ? int(tests / preemptors) : tests + 1
  p = 0
  for (t = 0; t < tests; t++) {
    make_test(t)
    if ((t + 1) % every == 0 && p < preemptors) make_preemptor(p++)
  }
  while (p < preemptors) make_preemptor(p++)
}
