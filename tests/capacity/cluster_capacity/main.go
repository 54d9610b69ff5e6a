// Command capacity-compare runs kubernetes-sigs/cluster-capacity (v0.30.0, kube-scheduler 1.30.1 with its
// default profile, built from its Go module) and `extender-sim capacity --pod FILE --json
// --kubernetes-version 1.30` on the same random clusters, and reports how often they agree.
//
//	capacity-compare -seeds 50 -max-nodes 500 -sim build/extender-sim -out DIR
//
// Each seed's cluster (a v1 List of Nodes and running Pods, as `kubectl get nodes,pods -A -o json` prints
// it) and the pod asked about are written to DIR/seed-N/ with both answers (sim.json, cc.json).
// cluster-capacity runs in a child process of this binary (-cc-worker): its scheduler goroutines and
// informers are not torn down between runs, and a panic or a hang stays in that seed.
//
// cluster-capacity is driven as its own command drives it (cmd/cluster-capacity/app/server.go):
// utils.BuildKubeSchedulerCompletedConfig(nil) (the v1 default KubeSchedulerConfiguration, its Bind
// replaced by ClusterCapacityBinder), options.ParseAPISpec for the pod file, framework.New with no
// kubeconfig and no limit (maxPods 0), SyncWithClient from a fake clientset holding the cluster file's
// objects, Run, Report. One addition: before Run, the worker waits until the scheduler's cache holds
// every node and pod of the cluster. cluster-capacity only sleeps 100 ms (simulator.go, Run) before the
// first copy, which a cluster of hundreds of nodes and thousands of pods can outlast; a copy scheduled
// against a half-synced cache would be a harness artefact, not an answer of either side.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	fakeclientset "k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler"

	"sigs.k8s.io/cluster-capacity/cmd/cluster-capacity/app/options"
	ccframework "sigs.k8s.io/cluster-capacity/pkg/framework"
	"sigs.k8s.io/cluster-capacity/pkg/utils"
)

const kubernetesVersion = "1.30" // cluster-capacity v0.30.0 is built on k8s.io/kubernetes v1.30.1

func main() {
	seeds := flag.Int("seeds", 50, "random clusters to compare (seeds first-seed .. first-seed+seeds-1)")
	firstSeed := flag.Int("first-seed", 1, "the first seed")
	maxNodes := flag.Int("max-nodes", 500, "each cluster has 10 .. max-nodes nodes")
	sim := flag.String("sim", "build/extender-sim", "the extender-sim binary")
	out := flag.String("out", "", "directory for each seed's cluster, pod and answers (default: a temporary one)")
	timeout := flag.Duration("timeout", 20*time.Minute, "each side's time limit per seed")
	worker := flag.Bool("cc-worker", false, "internal: run cluster-capacity on -cluster and -pod, print its answer as JSON")
	clusterFile := flag.String("cluster", "", "with -cc-worker: the cluster (a v1 List)")
	podFile := flag.String("pod", "", "with -cc-worker: the pod")
	flag.Parse()

	if *worker {
		if err := ccWorker(*clusterFile, *podFile, *timeout); err != nil {
			fmt.Fprintln(os.Stderr, "cc-worker:", err)
			os.Exit(1)
		}
		return
	}
	if *maxNodes < 10 || *seeds < 1 {
		fmt.Fprintln(os.Stderr, "capacity-compare: -max-nodes must be at least 10 and -seeds at least 1")
		os.Exit(2)
	}
	if *out == "" {
		dir, err := os.MkdirTemp("", "capacity-compare-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		*out = dir
	}
	os.Exit(compareAll(*firstSeed, *seeds, *maxNodes, *sim, *out, *timeout))
}

// ---------------------------------------------------------------------------------------------------
// The random clusters.

var zones = []string{"zone-a", "zone-b", "zone-c"}
var pools = []string{"general", "compute", "memory"}

type scenario struct {
	seed    int64
	nodes   []*v1.Node
	pods    []*v1.Pod
	probe   *v1.Pod
	traits  []string // what the probe and the cluster have, for the summary line
	spreads bool     // the probe has required pod anti-affinity or a hard topology spread constraint
}

var epoch = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.Intn(len(xs))] }

func cpuQ(milli int64) resource.Quantity {
	if milli%1000 == 0 {
		return resource.MustParse(strconv.FormatInt(milli/1000, 10))
	}
	return resource.MustParse(strconv.FormatInt(milli, 10) + "m")
}

// memQ writes mebibytes in the units clusters use: Gi, Mi, and now and then decimal G or plain bytes.
func memQ(r *rand.Rand, mi int64) resource.Quantity {
	switch {
	case mi%1024 == 0 && r.Intn(4) != 0:
		return resource.MustParse(strconv.FormatInt(mi/1024, 10) + "Gi")
	case r.Intn(10) == 0:
		return resource.MustParse(strconv.FormatInt(mi*1024*1024, 10))
	default:
		return resource.MustParse(strconv.FormatInt(mi, 10) + "Mi")
	}
}

func requests(r *rand.Rand, milli, mi int64) v1.ResourceList {
	l := v1.ResourceList{}
	if milli > 0 {
		l[v1.ResourceCPU] = cpuQ(milli)
	}
	if mi > 0 {
		l[v1.ResourceMemory] = memQ(r, mi)
	}
	return l
}

func container(name string, req v1.ResourceList) v1.Container {
	// imagePullPolicy, terminationMessagePolicy: cluster-capacity validates the pod file as the API server
	// does after defaulting.
	return v1.Container{Name: name, Image: "registry.k8s.io/pause:3.9", ImagePullPolicy: v1.PullIfNotPresent,
		TerminationMessagePolicy: v1.TerminationMessageReadFile, Resources: v1.ResourceRequirements{Requests: req}}
}

func requiredAntiAffinity(sel map[string]string, key string) *v1.Affinity {
	return &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: sel},
			TopologyKey:   key,
		}},
	}}
}

func generate(seed int64, maxNodes int) *scenario {
	r := rand.New(rand.NewSource(seed))
	s := &scenario{seed: seed}
	n := 10 + r.Intn(maxNodes-10+1)
	probeNS := pick(r, []string{"default", "default", "team-a"})
	probeLabels := map[string]string{"app": "probe", "seed": strconv.FormatInt(seed, 10)}

	// Kinds of nodes: (cpu millis, memory Mi, pods).
	type shape struct{ cpu, mem, pods int64 }
	shapes := []shape{
		{1930, 3 * 1024, 110}, {3920, 14 * 1024, 110}, {7910, 30 * 1024, 110}, {15890, 60 * 1024, 110},
		{31850, 124 * 1024, 250}, {63770, 250 * 1024, 250}, {3920, 30 * 1024, 16}, {7910, 62 * 1024, 32},
		{15890, 120 * 1024, 58}, {47800, 180 * 1024, 110},
	}
	taintKinds := []v1.Taint{
		{Key: "dedicated", Value: "gpu", Effect: v1.TaintEffectNoSchedule},
		{Key: "dedicated", Value: "infra", Effect: v1.TaintEffectNoSchedule},
		{Key: "spot", Value: "true", Effect: v1.TaintEffectNoSchedule},
		{Key: "maintenance", Effect: v1.TaintEffectPreferNoSchedule}, // a score, never a filter
	}
	taintShare := []float64{0, 0.05, 0.15, 0.3}[r.Intn(4)]
	fullShare := []float64{0, 0.2, 0.5, 0.8}[r.Intn(4)]
	guarded := r.Intn(5) == 0        // some running pods keep the probe off their node (or zone)
	labelled := r.Intn(3) == 0       // some running pods carry the probe's labels
	unlabelledZone := r.Intn(6) == 0 // a few nodes have no zone label
	var uid int
	nextUID := func() types.UID { uid++; return types.UID(fmt.Sprintf("uid-%d-%06d", seed, uid)) }

	for i := 0; i < n; i++ {
		sh := pick(r, shapes)
		name := fmt.Sprintf("node-%03d", i)
		labels := map[string]string{
			"kubernetes.io/hostname":      name,
			"kubernetes.io/os":            "linux",
			"kubernetes.io/arch":          "amd64",
			"topology.kubernetes.io/zone": pick(r, zones),
			"pool":                        pick(r, pools),
		}
		if unlabelledZone && r.Intn(20) == 0 {
			delete(labels, "topology.kubernetes.io/zone")
		}
		alloc := v1.ResourceList{
			v1.ResourceCPU:              cpuQ(sh.cpu),
			v1.ResourceMemory:           memQ(r, sh.mem),
			v1.ResourcePods:             *resource.NewQuantity(sh.pods, resource.DecimalSI),
			v1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
		}
		node := &v1.Node{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: nextUID(), Labels: labels, CreationTimestamp: metav1.NewTime(epoch)},
			Status: v1.NodeStatus{
				Capacity:    alloc.DeepCopy(),
				Allocatable: alloc,
				Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
			},
		}
		if r.Float64() < taintShare {
			t := pick(r, taintKinds)
			node.Spec.Taints = append(node.Spec.Taints, t)
			if t.Key == "dedicated" {
				labels["pool"] = t.Value
			}
		}
		if r.Intn(40) == 0 {
			node.Spec.Unschedulable = true
			node.Spec.Taints = append(node.Spec.Taints, v1.Taint{Key: "node.kubernetes.io/unschedulable", Effect: v1.TaintEffectNoSchedule})
		}
		s.nodes = append(s.nodes, node)

		// Running pods: nearly full nodes, or some share of the node.
		target := r.Float64() * 0.7
		if r.Float64() < fullShare {
			target = 0.85 + r.Float64()*0.15
		}
		var usedCPU, usedMem, count int64
		for k := 0; count < sh.pods-1; k++ {
			cpu := pick(r, []int64{0, 50, 100, 250, 500, 1000, 1500, 2000, 4000})
			mem := pick(r, []int64{0, 64, 128, 256, 512, 1024, 2048, 4096, 8192})
			if float64(usedCPU+cpu) > target*float64(sh.cpu) || float64(usedMem+mem) > target*float64(sh.mem) {
				if r.Intn(3) == 0 {
					break
				}
				continue
			}
			if k > 400 {
				break
			}
			usedCPU += cpu
			usedMem += mem
			count++
			ns := pick(r, []string{"default", "team-a", "team-b", "kube-system"})
			app := pick(r, []string{"web", "db", "cache", "batch"})
			podLabels := map[string]string{"app": app}
			if labelled && r.Intn(8) == 0 {
				ns = probeNS
				podLabels = map[string]string{"app": "probe", "seed": strconv.FormatInt(seed, 10)}
			}
			pod := &v1.Pod{
				TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
				ObjectMeta: metav1.ObjectMeta{
					Name: fmt.Sprintf("run-%03d-%d", i, k), Namespace: ns, UID: nextUID(), Labels: podLabels,
					CreationTimestamp: metav1.NewTime(epoch),
				},
				Spec: v1.PodSpec{
					NodeName:      name,
					SchedulerName: v1.DefaultSchedulerName,
					Containers:    []v1.Container{container("c", requests(r, cpu, mem))},
				},
				Status: v1.PodStatus{Phase: v1.PodRunning, StartTime: &metav1.Time{Time: epoch.Add(time.Minute)}},
			}
			s.pods = append(s.pods, pod)
		}
	}
	if guarded && len(s.pods) > 0 {
		// A few running pods whose required anti-affinity matches the probe's labels (in the probe's
		// namespace): the probe's copies may not join them (symmetry of InterPodAffinity), on their node
		// or, now and then, in their whole zone.
		for g := 1 + r.Intn(6); g > 0; g-- {
			pod := s.pods[r.Intn(len(s.pods))]
			pod.Namespace = probeNS
			key := "kubernetes.io/hostname"
			if r.Intn(8) == 0 {
				key = "topology.kubernetes.io/zone"
			}
			pod.Spec.Affinity = requiredAntiAffinity(map[string]string{"app": "probe"}, key)
			pod.Name = "guard-" + strings.TrimPrefix(pod.Name, "run-")
		}
	}

	// The pod asked about.
	cpu := pick(r, []int64{100, 250, 500, 500, 750, 1000, 1000, 1500, 2000, 3000, 4000})
	mem := pick(r, []int64{0, 128, 256, 512, 1024, 1024, 2048, 4096, 8192})
	if r.Intn(10) == 0 {
		cpu = 0 // memory only
		if mem == 0 {
			mem = 1024
		}
	}
	probe := &v1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: probeNS, Labels: probeLabels},
		Spec: v1.PodSpec{
			SchedulerName: v1.DefaultSchedulerName,
			Containers:    []v1.Container{container("main", requests(r, cpu, mem))},
		},
	}
	s.traits = append(s.traits, fmt.Sprintf("cpu=%dm mem=%dMi", cpu, mem))
	if r.Intn(4) == 0 { // a sidecar: the requests add up
		probe.Spec.Containers = append(probe.Spec.Containers, container("sidecar", requests(r, 100, 128)))
		s.traits = append(s.traits, "sidecar")
	}
	if r.Intn(8) == 0 { // an init container asking for more than the others together
		probe.Spec.InitContainers = []v1.Container{container("init", requests(r, cpu+2000, mem+1024))}
		s.traits = append(s.traits, "init")
	}
	if r.Intn(3) == 0 {
		switch r.Intn(3) {
		case 0:
			probe.Spec.Tolerations = []v1.Toleration{{Key: "dedicated", Operator: v1.TolerationOpEqual, Value: "gpu", Effect: v1.TaintEffectNoSchedule}}
		case 1:
			probe.Spec.Tolerations = []v1.Toleration{{Key: "dedicated", Operator: v1.TolerationOpExists}}
		default:
			probe.Spec.Tolerations = []v1.Toleration{{Key: "spot", Operator: v1.TolerationOpEqual, Value: "true", Effect: v1.TaintEffectNoSchedule}}
		}
		s.traits = append(s.traits, "tolerations")
	}
	switch r.Intn(6) {
	case 0:
		probe.Spec.NodeSelector = map[string]string{"pool": pick(r, []string{"compute", "memory", "gpu"})}
		s.traits = append(s.traits, "nodeSelector")
	case 1:
		probe.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchExpressions: []v1.NodeSelectorRequirement{{Key: "topology.kubernetes.io/zone", Operator: v1.NodeSelectorOpIn, Values: []string{"zone-a", "zone-b"}}},
			}}},
		}}
		s.traits = append(s.traits, "nodeAffinity(zone In a,b)")
	case 2:
		probe.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
				{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "pool", Operator: v1.NodeSelectorOpNotIn, Values: []string{"memory"}}}},
				{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "topology.kubernetes.io/zone", Operator: v1.NodeSelectorOpIn, Values: []string{"zone-c"}}}},
			}},
		}}
		s.traits = append(s.traits, "nodeAffinity(pool NotIn memory | zone-c)")
	}
	switch x := r.Intn(10); {
	case x < 2:
		if probe.Spec.Affinity == nil {
			probe.Spec.Affinity = &v1.Affinity{}
		}
		probe.Spec.Affinity.PodAntiAffinity = requiredAntiAffinity(map[string]string{"app": "probe"}, "kubernetes.io/hostname").PodAntiAffinity
		s.traits = append(s.traits, "podAntiAffinity(hostname)")
		s.spreads = true
	case x < 4:
		probe.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: v1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "probe"}},
		}}
		s.traits = append(s.traits, "topologySpread(zone, maxSkew 1)")
		s.spreads = true
	}
	if guarded {
		s.traits = append(s.traits, "guards")
	}
	if labelled {
		s.traits = append(s.traits, "probe-labelled pods")
	}
	s.probe = probe
	return s
}

func writeScenario(s *scenario, dir string) (clusterFile, podFile string, err error) {
	if err = os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	items := make([]any, 0, len(s.nodes)+len(s.pods))
	for _, n := range s.nodes {
		items = append(items, n)
	}
	for _, p := range s.pods {
		items = append(items, p)
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}, "items": items}
	clusterFile = filepath.Join(dir, "cluster.json")
	podFile = filepath.Join(dir, "pod.json")
	if err = writeJSON(clusterFile, list); err != nil {
		return
	}
	err = writeJSON(podFile, s.probe)
	return
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ---------------------------------------------------------------------------------------------------
// cluster-capacity's side, in a child process.

// ccAnswer is what the worker prints: cluster-capacity's report, reduced.
type ccAnswer struct {
	Fit         int            `json:"fit"`
	PerNode     map[string]int `json:"perNode"`
	FailType    string         `json:"failType"`
	FailMessage string         `json:"failMessage"`
	StopReason  string         `json:"stopReason"`
	Seconds     float64        `json:"seconds"`
}

func readCluster(path string) ([]runtime.Object, int, int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, 0, err
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, 0, 0, err
	}
	var objs []runtime.Object
	var nodes, pods int
	for _, raw := range list.Items {
		var tm metav1.TypeMeta
		if err := json.Unmarshal(raw, &tm); err != nil {
			return nil, 0, 0, err
		}
		switch tm.Kind {
		case "Node":
			n := &v1.Node{}
			if err := json.Unmarshal(raw, n); err != nil {
				return nil, 0, 0, err
			}
			objs = append(objs, n)
			nodes++
		case "Pod":
			p := &v1.Pod{}
			if err := json.Unmarshal(raw, p); err != nil {
				return nil, 0, 0, err
			}
			objs = append(objs, p)
			if p.Spec.NodeName != "" && p.Status.Phase != v1.PodSucceeded && p.Status.Phase != v1.PodFailed {
				pods++
			}
		default:
			return nil, 0, 0, fmt.Errorf("%s: kind %q is not compared", path, tm.Kind)
		}
	}
	return objs, nodes, pods, nil
}

// schedulerOf reads ClusterCapacity's unexported schedulers map: only to wait for its cache to sync.
func schedulerOf(cc *ccframework.ClusterCapacity) *scheduler.Scheduler {
	f := reflect.ValueOf(cc).Elem().FieldByName("schedulers")
	m := *(*map[string]*scheduler.Scheduler)(unsafe.Pointer(f.UnsafeAddr()))
	return m[v1.DefaultSchedulerName]
}

func ccWorker(clusterFile, podFile string, timeout time.Duration) error {
	// cluster-capacity's scheduler logs through klog; its answer is the report.
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)

	objs, nodes, pods, err := readCluster(clusterFile)
	if err != nil {
		return err
	}
	// The pod file as cluster-capacity's command reads it (defaults, validation).
	conf := options.NewClusterCapacityConfig(&options.ClusterCapacityOptions{PodSpecFile: podFile})
	if err := conf.ParseAPISpec(v1.DefaultSchedulerName); err != nil {
		return err
	}
	schedConf, err := utils.BuildKubeSchedulerCompletedConfig(nil)
	if err != nil {
		return err
	}
	cc, err := ccframework.New(schedConf, nil, conf.Pod, 0, nil)
	if err != nil {
		return err
	}
	if err := cc.SyncWithClient(fakeclientset.NewSimpleClientset(objs...)); err != nil {
		return err
	}
	sched := schedulerOf(cc)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		podCount, _ := sched.Cache.PodCount()
		if sched.Cache.NodeCount() == nodes && podCount == pods {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the scheduler's cache holds %d nodes and %d pods of %d and %d after 2 minutes",
				sched.Cache.NodeCount(), podCount, nodes, pods)
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- cc.Run() }()
	select {
	case err := <-done:
		if err != nil {
			return err
		}
	case <-time.After(timeout):
		return fmt.Errorf("cluster-capacity did not finish in %v (%d copies placed)", timeout, len(cc.ScheduledPods()))
	}
	elapsed := time.Since(start).Seconds()
	rep := cc.Report()
	a := ccAnswer{Fit: int(rep.Status.Replicas), PerNode: map[string]int{}, Seconds: elapsed}
	if rep.Status.FailReason != nil {
		a.FailType, a.FailMessage = rep.Status.FailReason.FailType, rep.Status.FailReason.FailMessage
	}
	for _, res := range rep.Status.Pods {
		for _, on := range res.ReplicasOnNodes {
			a.PerNode[on.NodeName] += on.Replicas
		}
	}
	a.StopReason = a.FailType + ": " + a.FailMessage
	return json.NewEncoder(os.Stdout).Encode(a)
}

// ---------------------------------------------------------------------------------------------------
// extender-sim's side.

type simAnswer struct {
	Pod          string `json:"pod"`
	Fit          int    `json:"fit"`
	StoppedAtMax bool   `json:"stoppedAtMax"`
	PerNode      []struct {
		Node string `json:"node"`
		Pods int    `json:"pods"`
	} `json:"perNode"`
	Reasons map[string]int `json:"reasons"`
	Message string         `json:"message"`
}

func runCmd(timeout time.Duration, stdoutFile string, name string, args ...string) ([]byte, time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start)
	_ = os.WriteFile(stdoutFile, stdout.Bytes(), 0o644)
	if ctx.Err() != nil {
		return nil, elapsed, fmt.Errorf("%s: timed out after %v", filepath.Base(name), timeout)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = msg[len(msg)-2000:]
		}
		return nil, elapsed, fmt.Errorf("%s: %v: %s", filepath.Base(name), err, msg)
	}
	return stdout.Bytes(), elapsed, nil
}

// ---------------------------------------------------------------------------------------------------
// The comparison.

// firstSentence splits FitError's text: "0/N nodes are available: <reasons>." and what follows it
// (" preemption: ..."), and counts the reasons.
func firstSentence(msg string) (string, map[string]int, string) {
	const marker = "nodes are available:"
	i := strings.Index(msg, marker)
	if i < 0 {
		return msg, nil, ""
	}
	body := msg[i+len(marker):]
	end := strings.Index(body, ". ")
	rest := ""
	if end >= 0 {
		rest = strings.TrimSpace(body[end+1:])
		body = body[:end+1]
	}
	sentence := msg[:i+len(marker)] + body
	reasons := map[string]int{}
	for _, part := range strings.Split(strings.TrimSuffix(strings.TrimSpace(body), "."), ", ") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		sp := strings.IndexByte(part, ' ')
		if k, err := strconv.Atoi(part[:max(sp, 0)]); sp > 0 && err == nil {
			reasons[part[sp+1:]] += k
		} else {
			reasons[part]++
		}
	}
	return sentence, reasons, rest
}

func sameCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func formatCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%q: %d", k, m[k]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// nodeLine describes a node for a human comparing the answers: what it offers and what its pods ask.
func nodeLine(s *scenario, name string) string {
	for _, n := range s.nodes {
		if n.Name != name {
			continue
		}
		var cpu, mem resource.Quantity
		count := 0
		for _, p := range s.pods {
			if p.Spec.NodeName != name {
				continue
			}
			count++
			for _, c := range p.Spec.Containers {
				cpu.Add(c.Resources.Requests[v1.ResourceCPU])
				mem.Add(c.Resources.Requests[v1.ResourceMemory])
			}
		}
		a := n.Status.Allocatable
		return fmt.Sprintf("allocatable cpu %s memory %s pods %s; running %d pods requesting cpu %dm memory %dMi; zone %q pool %q taints %v unschedulable %v",
			a.Cpu().String(), a.Memory().String(), a.Pods().String(), count, cpu.MilliValue(), mem.Value()>>20,
			n.Labels["topology.kubernetes.io/zone"], n.Labels["pool"], n.Spec.Taints, n.Spec.Unschedulable)
	}
	return "(no such node)"
}

type tally struct {
	seeds, totalsEqual                     int
	detPods, detEqual                      int
	spreadPods, spreadEqual                int
	reasonsEqual, messagesEqual, runErrors int
	failed                                 bool
}

func compareAll(first, seeds, maxNodes int, sim, out string, timeout time.Duration) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Printf("cluster-capacity v0.30.0 (kube-scheduler 1.30.1, default profile) vs %s capacity --kubernetes-version %s; seeds %d..%d, 10..%d nodes; files in %s\n",
		sim, kubernetesVersion, first, first+seeds-1, maxNodes, out)
	var t tally
	for seed := first; seed < first+seeds; seed++ {
		compareSeed(int64(seed), maxNodes, sim, self, out, timeout, &t)
	}
	fmt.Printf("\ntotals equal %d/%d; per-node equal %d/%d (deterministic pods); per-node equal %d/%d (anti-affinity/spread pods); reasons equal %d/%d\n",
		t.totalsEqual, t.seeds, t.detEqual, t.detPods, t.spreadEqual, t.spreadPods, t.reasonsEqual, t.seeds)
	fmt.Printf("(full failure messages, the preemption part included, equal %d/%d; runs that failed %d)\n", t.messagesEqual, t.seeds, t.runErrors)
	if t.failed {
		return 1
	}
	return 0
}

func compareSeed(seed int64, maxNodes int, sim, self, out string, timeout time.Duration, t *tally) {
	t.seeds++
	s := generate(seed, maxNodes)
	dir := filepath.Join(out, fmt.Sprintf("seed-%d", seed))
	clusterFile, podFile, err := writeScenario(s, dir)
	head := fmt.Sprintf("seed %d: %d nodes, %d pods; probe %s", seed, len(s.nodes), len(s.pods), strings.Join(s.traits, ", "))
	if err != nil {
		fmt.Printf("%s\n  ERROR writing the scenario: %v\n", head, err)
		t.runErrors++
		t.failed = true
		return
	}
	simOut, simTime, simErr := runCmd(timeout, filepath.Join(dir, "sim.json"), sim, "capacity", "--cluster", clusterFile,
		"--pod", podFile, "--json", "--kubernetes-version", kubernetesVersion)
	ccOut, ccTime, ccErr := runCmd(timeout+time.Minute, filepath.Join(dir, "cc.json"), self, "-cc-worker", "-cluster", clusterFile,
		"-pod", podFile, "-timeout", timeout.String())
	var sa simAnswer
	var ca ccAnswer
	if simErr == nil {
		simErr = json.Unmarshal(simOut, &sa)
	}
	if ccErr == nil {
		ccErr = json.Unmarshal(ccOut, &ca)
	}
	if simErr != nil || ccErr != nil {
		fmt.Printf("%s\n  ERROR: extender-sim: %v; cluster-capacity: %v\n", head, simErr, ccErr)
		t.runErrors++
		t.failed = true
		return
	}

	simNodes := map[string]int{}
	for _, n := range sa.PerNode {
		simNodes[n.Node] += n.Pods
	}
	totalOK := sa.Fit == ca.Fit && !sa.StoppedAtMax
	perNodeOK := sameCounts(simNodes, ca.PerNode)
	simSentence, _, simRest := firstSentence(sa.Message)
	ccSentence, ccReasons, ccRest := firstSentence(ca.FailMessage)
	reasonsOK := ca.FailType == "Unschedulable" && sameCounts(sa.Reasons, ccReasons) && simSentence == ccSentence
	messageOK := sa.Message == ca.FailMessage

	if totalOK {
		t.totalsEqual++
	} else {
		t.failed = true
	}
	kind := "deterministic"
	if s.spreads {
		kind = "anti-affinity/spread"
		t.spreadPods++
		if perNodeOK {
			t.spreadEqual++
		}
	} else {
		t.detPods++
		if perNodeOK {
			t.detEqual++
		} else {
			t.failed = true
		}
	}
	if reasonsOK {
		t.reasonsEqual++
	}
	if messageOK {
		t.messagesEqual++
	}
	verdict := func(ok bool) string {
		if ok {
			return "equal"
		}
		return "DIFFER"
	}
	fmt.Printf("%s\n  fit cluster-capacity %d, extender-sim %d: %s; per-node (%s) %s; reasons %s (cc %.1fs, sim %.2fs)\n",
		head, ca.Fit, sa.Fit, verdict(totalOK), kind, verdict(perNodeOK), verdict(reasonsOK), ccTime.Seconds(), simTime.Seconds())

	if !totalOK || !perNodeOK {
		names := map[string]bool{}
		for k := range simNodes {
			names[k] = true
		}
		for k := range ca.PerNode {
			names[k] = true
		}
		var diff []string
		for k := range names {
			if simNodes[k] != ca.PerNode[k] {
				diff = append(diff, k)
			}
		}
		sort.Strings(diff)
		fmt.Printf("    %d nodes differ (cluster-capacity vs extender-sim copies):\n", len(diff))
		for i, k := range diff {
			if i == 15 {
				fmt.Printf("    ... (%s/cc.json and sim.json have them all)\n", dir)
				break
			}
			fmt.Printf("    %s: cc %d, sim %d; %s\n", k, ca.PerNode[k], simNodes[k], nodeLine(s, k))
		}
	}
	if !totalOK || !reasonsOK {
		fmt.Printf("    cluster-capacity: %s: %s\n      reasons %s\n", ca.FailType, ca.FailMessage, formatCounts(ccReasons))
		fmt.Printf("    extender-sim:     %s\n      reasons %s\n", sa.Message, formatCounts(sa.Reasons))
		if s.spreads && !perNodeOK {
			fmt.Printf("    (the copies went to other nodes, tie-breaks apart, so the last cycle met other nodes)\n")
		}
	} else if !messageOK {
		// The first sentences agree; the rest is what PostFilter (preemption) said.
		fmt.Printf("    after the reasons: cluster-capacity %q, extender-sim %q\n", ccRest, simRest)
	}
}
