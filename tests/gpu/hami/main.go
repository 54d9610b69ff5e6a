// hami-compare: HAMi's scheduler and the extender's GPUShare plugin on the same random clusters.
//
// For each seed it generates a cluster of nodes whose cards HAMi's device plugin registered, pods that
// hold shares of them, and probe pods across every resource, selector and policy. It asks HAMi's own
// code which nodes fit each probe and which cards each node would give it (the Filter path of
// pkg/scheduler: onAddPod, getNodesUsage, calcScoreWithOptions, reached through go:linkname since they
// are unexported), asks gpu-fit-driver the same, and counts the answers that agree.
//
//	hami-compare -driver build/gpu-fit-driver -seeds 5 -nodes 120 -probes 60
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/Project-HAMi/HAMi/pkg/device"
	"github.com/Project-HAMi/HAMi/pkg/scheduler"
	"github.com/Project-HAMi/HAMi/pkg/scheduler/config"
	"github.com/Project-HAMi/HAMi/pkg/scheduler/policy"
)

//go:linkname buildTransientNodeInfo github.com/Project-HAMi/HAMi/pkg/scheduler.buildTransientNodeInfo
func buildTransientNodeInfo(node *corev1.Node) (*device.NodeInfo, error)

//go:linkname addNode github.com/Project-HAMi/HAMi/pkg/scheduler.(*nodeManager).addNode
func addNode(m unsafe.Pointer, nodeID string, nodeInfo *device.NodeInfo)

//go:linkname onAddPod github.com/Project-HAMi/HAMi/pkg/scheduler.(*Scheduler).onAddPod
func onAddPod(s *scheduler.Scheduler, obj any)

//go:linkname getNodesUsage github.com/Project-HAMi/HAMi/pkg/scheduler.(*Scheduler).getNodesUsage
func getNodesUsage(s *scheduler.Scheduler, nodes *[]string, task *corev1.Pod) (*map[string]*scheduler.NodeUsage, *map[string]*scheduler.NodeUsage, map[string]string, error)

//go:linkname calcScoreWithOptions github.com/Project-HAMi/HAMi/pkg/scheduler.(*Scheduler).calcScoreWithOptions
func calcScoreWithOptions(s *scheduler.Scheduler, nodes *map[string]*scheduler.NodeUsage, resourceReqs device.PodDeviceRequests, task *corev1.Pod, failedNodes map[string]string, recordEvents bool, detailedFailureReason bool) (*policy.NodeScoreList, error)

// One probe on one node: whether it fits and its cards per container (init containers first).
type answer struct {
	Probe  string     `json:"probe"`
	Node   string     `json:"node"`
	Fits   bool       `json:"fits"`
	Cards  [][]string `json:"cards"`
	Reason string     `json:"reason"`
}

type clusterFile struct {
	Nodes              []*corev1.Node `json:"nodes"`
	Pods               []*corev1.Pod  `json:"pods"`
	Probes             []*corev1.Pod  `json:"probes"`
	GPUSchedulerPolicy string         `json:"gpuSchedulerPolicy"`
}

func main() {
	driver := flag.String("driver", "build/gpu-fit-driver", "the extender's gpu-fit-driver")
	seeds := flag.Int("seeds", 3, "random clusters")
	nodes := flag.Int("nodes", 100, "nodes per cluster")
	probes := flag.Int("probes", 60, "probe pods per cluster")
	keep := flag.String("keep", "", "directory to keep each cluster file in")
	flag.Parse()
	klog.SetOutput(bytes.NewBuffer(nil))
	klog.LogToStderr(false)
	config.InitDefaultDevices()
	device.GPUSchedulerPolicy = "spread"

	var total tally
	for seed := 1; seed <= *seeds; seed++ {
		c := generate(rand.New(rand.NewSource(int64(seed))), *nodes, *probes)
		hami := askHAMi(c)
		ours, err := askDriver(*driver, c, *keep, seed)
		if err != nil {
			fmt.Fprintln(os.Stderr, "hami-compare:", err)
			os.Exit(1)
		}
		t := compare(hami, ours, c)
		fmt.Printf("seed %d: %s\n", seed, t)
		total.add(t)
	}
	fmt.Printf("all: %s\n", total)
	if total.fitDiffers > 0 || total.cardsDiffer > 0 || total.setsDiffer > 0 {
		os.Exit(1)
	}
}

// askHAMi runs HAMi's Filter path for every probe on a scheduler that has seen every node and pod.
func askHAMi(c clusterFile) map[string]answer {
	s := scheduler.NewScheduler()
	nm := unsafe.Pointer(reflect.ValueOf(s).Elem().FieldByName("nodeManager").Pointer())
	var names []string
	for _, n := range c.Nodes {
		names = append(names, n.Name)
		if info, err := buildTransientNodeInfo(n); err == nil {
			addNode(nm, n.Name, info)
		}
	}
	for _, p := range c.Pods {
		onAddPod(s, p)
	}
	out := map[string]answer{}
	for _, probe := range c.Probes {
		key := probe.Namespace + "/" + probe.Name
		usage, _, failed, err := getNodesUsage(s, &names, probe)
		if err != nil {
			panic(err)
		}
		list, err := calcScoreWithOptions(s, usage, device.Resourcereqs(probe), probe, failed, false, true)
		if err != nil {
			for _, n := range names {
				out[key+" "+n] = answer{Probe: key, Node: n, Reason: err.Error()}
			}
			continue
		}
		for _, n := range names {
			out[key+" "+n] = answer{Probe: key, Node: n, Reason: failed[n]}
		}
		for _, ns := range list.NodeList {
			a := answer{Probe: key, Node: ns.NodeID, Fits: true}
			for _, ctr := range ns.Devices["NVIDIA"] {
				var ids []string
				for _, d := range ctr {
					ids = append(ids, d.UUID)
				}
				a.Cards = append(a.Cards, ids)
			}
			out[key+" "+ns.NodeID] = a
		}
	}
	return out
}

func askDriver(driver string, c clusterFile, keep string, seed int) (map[string]answer, error) {
	dir := keep
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "hami-compare"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
	}
	path := filepath.Join(dir, fmt.Sprintf("cluster-%d.json", seed))
	data, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(driver, path)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", driver, path, err)
	}
	out := map[string]answer{}
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var a answer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			return nil, err
		}
		out[a.Probe+" "+a.Node] = a
	}
	return out, sc.Err()
}

type tally struct {
	pairs, fitBoth, fitDiffers, cardsEqual, cardsDiffer, sets, setsDiffer int
	examples                                                              []string
}

func (t tally) String() string {
	return fmt.Sprintf("filter sets equal %d/%d; fit equal on %d/%d pod-node pairs; cards equal on %d/%d nodes that fit both",
		t.sets-t.setsDiffer, t.sets, t.pairs-t.fitDiffers, t.pairs, t.cardsEqual, t.fitBoth) + examples(t.examples)
}

func examples(e []string) string {
	if len(e) == 0 {
		return ""
	}
	if len(e) > 8 {
		e = e[:8]
	}
	return "\n  " + strings.Join(e, "\n  ")
}

func (t *tally) add(o tally) {
	t.pairs += o.pairs
	t.fitBoth += o.fitBoth
	t.fitDiffers += o.fitDiffers
	t.cardsEqual += o.cardsEqual
	t.cardsDiffer += o.cardsDiffer
	t.sets += o.sets
	t.setsDiffer += o.setsDiffer
}

func compare(hami, ours map[string]answer, c clusterFile) tally {
	var t tally
	for _, p := range c.Probes {
		key := p.Namespace + "/" + p.Name
		t.sets++
		setDiffers := false
		for _, n := range c.Nodes {
			h, o := hami[key+" "+n.Name], ours[key+" "+n.Name]
			t.pairs++
			if h.Fits != o.Fits {
				t.fitDiffers++
				setDiffers = true
				t.examples = append(t.examples, fmt.Sprintf("%s on %s: HAMi fits=%v (%s), extender fits=%v (%s)",
					key, n.Name, h.Fits, h.Reason, o.Fits, o.Reason))
				continue
			}
			if !h.Fits {
				continue
			}
			t.fitBoth++
			if reflect.DeepEqual(nonEmpty(h.Cards), nonEmpty(o.Cards)) {
				t.cardsEqual++
			} else {
				t.cardsDiffer++
				t.examples = append(t.examples, fmt.Sprintf("%s on %s: HAMi %v, extender %v", key, n.Name, h.Cards, o.Cards))
			}
		}
		if setDiffers {
			t.setsDiffer++
		}
	}
	sort.Strings(t.examples)
	return t
}

// The containers that got cards, in order (HAMi keeps an empty entry per container without any).
func nonEmpty(cards [][]string) [][]string {
	var out [][]string
	for _, c := range cards {
		if len(c) > 0 {
			out = append(out, c)
		}
	}
	return out
}

var (
	cardTypes = []string{"NVIDIA-Tesla T4", "NVIDIA-A100-SXM4-40GB", "NVIDIA-H100 80GB HBM3", "NVIDIA-L40S"}
	memories  = []int32{15360, 40960, 81920, 46080}
)

// generate: nodes of 1 to 8 cards, half of them with pods holding shares, and probes of every kind.
func generate(r *rand.Rand, nodeCount, probeCount int) clusterFile {
	c := clusterFile{GPUSchedulerPolicy: "spread"}
	type card struct {
		id                 string
		count, mem, cores  int32
		usedSlots, usedMem int32
		usedCores          int32
	}
	for i := 0; i < nodeCount; i++ {
		name := fmt.Sprintf("gpu-node-%03d", i)
		kind := r.Intn(len(cardTypes))
		mode := "hami-core"
		if r.Intn(8) == 0 {
			mode = "mps"
		}
		n := 1 + r.Intn(8)
		var devs []map[string]any
		var cards []*card
		var scores []map[string]any
		for j := 0; j < n; j++ {
			id := fmt.Sprintf("GPU-%03d-%d", i, j)
			cd := &card{id: id, count: []int32{4, 10}[r.Intn(2)], mem: memories[kind], cores: 100}
			cards = append(cards, cd)
			devs = append(devs, map[string]any{"id": id, "index": j, "count": cd.count, "devmem": cd.mem,
				"devcore": cd.cores, "type": cardTypes[kind], "numa": j * 2 / n, "health": r.Intn(12) != 0,
				"mode": mode})
		}
		for j := 0; j < n; j++ {
			pair := map[string]int{}
			for k := 0; k < n; k++ {
				if k != j {
					pair[cards[k].id] = 10 + 90*boolInt(j/2 == k/2) + r.Intn(3)
				}
			}
			scores = append(scores, map[string]any{"uuid": cards[j].id, "score": pair})
		}
		reg, _ := json.Marshal(devs)
		sc, _ := json.Marshal(scores)
		ann := map[string]string{"hami.io/node-nvidia-register": string(reg), "hami.io/node-nvidia-score": string(sc)}
		if r.Intn(10) == 0 {
			ann["hami.io/device-cordon"] = cards[r.Intn(n)].id
		}
		c.Nodes = append(c.Nodes, &corev1.Node{
			TypeMeta:   metav1.TypeMeta{Kind: "Node", APIVersion: "v1"},
			ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: ann},
			Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
				"cpu": resource.MustParse("64"), "memory": resource.MustParse("512Gi"),
				"nvidia.com/gpu": *resource.NewQuantity(int64(n*10), resource.DecimalSI)}},
		})
		if i%2 == 1 {
			continue
		}
		// Holders: shares that never exceed a card.
		for k := 0; k < 1+r.Intn(6); k++ {
			cd := cards[r.Intn(n)]
			mem := int32(r.Intn(int(cd.mem/4))) + 1
			cores := int32(r.Intn(40))
			if cd.usedSlots >= cd.count || cd.usedMem+mem > cd.mem || cd.usedCores+cores > cd.cores {
				continue
			}
			cd.usedSlots++
			cd.usedMem += mem
			cd.usedCores += cores
			pod := podWith(fmt.Sprintf("holder-%03d-%d", i, k), []corev1.Container{gpuContainer("c", 1, int64(mem), int64(cores), 0)}, nil)
			pod.Spec.NodeName = name
			pod.Status.Phase = corev1.PodRunning
			pod.Annotations = map[string]string{
				"hami.io/vgpu-node":              name,
				"hami.io/vgpu-devices-allocated": fmt.Sprintf("%s,NVIDIA,%d,%d:;", cd.id, mem, cores),
			}
			c.Pods = append(c.Pods, pod)
		}
	}
	for i := 0; i < probeCount; i++ {
		c.Probes = append(c.Probes, probe(r, i, c.Nodes))
	}
	return c
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// probe: a pod across the resources (count, memory, percentage, cores), an init container, the
// selectors and the policies.
func probe(r *rand.Rand, i int, nodes []*corev1.Node) *corev1.Pod {
	ctr := func(name string) corev1.Container {
		var mem, pct, cores int64
		switch r.Intn(3) {
		case 0:
			mem = int64(1000 * (1 + r.Intn(40)))
		case 1:
			pct = int64(10 * (1 + r.Intn(10)))
		}
		if r.Intn(2) == 0 {
			cores = int64([]int{10, 30, 50, 100}[r.Intn(4)])
		}
		return gpuContainer(name, int64(1+r.Intn(4)), mem, cores, pct)
	}
	containers := []corev1.Container{ctr("main")}
	if r.Intn(4) == 0 {
		containers = append(containers, ctr("side"))
	}
	var inits []corev1.Container
	if r.Intn(5) == 0 {
		inits = []corev1.Container{ctr("init")}
	}
	pod := podWith(fmt.Sprintf("probe-%03d", i), containers, inits)
	ann := map[string]string{}
	policies := []string{"", "binpack", "spread", "topology-aware", "mutex", "binpack,numa", "numa"}
	if p := policies[r.Intn(len(policies))]; p != "" {
		ann["hami.io/gpu-scheduler-policy"] = p
	}
	switch r.Intn(8) {
	case 0:
		ann["nvidia.com/use-gputype"] = []string{"A100", "h100,l40s", "t4"}[r.Intn(3)]
	case 1:
		ann["nvidia.com/nouse-gputype"] = "T4"
	case 2:
		ann["nvidia.com/numa-bind"] = "true"
	case 3:
		n := nodes[r.Intn(len(nodes))]
		ann["nvidia.com/nouse-gpuuuid"] = strings.Replace(n.Name, "gpu-node-", "GPU-", 1) + "-0"
	case 4:
		ann["hami.io/device-scoring-weights"] = fmt.Sprintf("slot=%d,core=%d,memory=%d", r.Intn(3), 1+r.Intn(3), r.Intn(3))
	case 5:
		id := strings.Replace(nodes[r.Intn(len(nodes))].Name, "gpu-node-", "GPU-", 1)
		ann["nvidia.com/use-gpuuuid"] = id + "-0," + id + "-1"
	case 6:
		ann["nvidia.com/vgpu-mode"] = []string{"mps", "hami-core"}[r.Intn(2)]
	}
	pod.Annotations = ann
	return pod
}

func podWith(name string, containers, inits []corev1.Container) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name)},
		Spec:       corev1.PodSpec{Containers: containers, InitContainers: inits},
		Status:     corev1.PodStatus{Phase: corev1.PodPending},
	}
}

func gpuContainer(name string, cards, mem, cores, pct int64) corev1.Container {
	rl := corev1.ResourceList{"nvidia.com/gpu": *resource.NewQuantity(cards, resource.DecimalSI)}
	if mem > 0 {
		rl["nvidia.com/gpumem"] = *resource.NewQuantity(mem, resource.DecimalSI)
	}
	if cores > 0 {
		rl["nvidia.com/gpucores"] = *resource.NewQuantity(cores, resource.DecimalSI)
	}
	if pct > 0 {
		rl["nvidia.com/gpumem-percentage"] = *resource.NewQuantity(pct, resource.DecimalSI)
	}
	return corev1.Container{Name: name, Image: "cuda", Resources: corev1.ResourceRequirements{Limits: rl, Requests: rl}}
}
