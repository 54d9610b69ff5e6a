#pragma once
// kube-scheduler's selectHost (pkg/scheduler/schedule_one.go): the node with the highest total score,
// ties broken uniformly at random by reservoir sampling over the nodes in the order they were scored.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <span>

namespace kext::sim {

// The simulator's one source of randomness. std::mt19937_64 because its output sequence for a given
// seed is fixed by the C++ standard ([rand.predef]: the 10000th value is pinned), so a `--seed` gives
// the same run with every standard library and on every platform; a distribution object would not
// (std::uniform_int_distribution's algorithm is implementation-defined), hence uniform_below below.
using Rng = std::mt19937_64;

// A uniformly distributed integer in [0, n), n > 0, as Go's rand.Intn(n): rejection sampling on the
// raw 64-bit output, so that no value is favoured by the modulo and the draw depends only on the
// generator's sequence.
uint64_t uniform_below(Rng& rng, uint64_t n);

// selectHost: the index of the chosen node in `scores` (the nodes' total scores in the order they
// were evaluated), or nullopt if there are none ("empty priorityList"). Walking in order, a higher
// score restarts the count at 1; an equal one increments it and takes that node with probability
// 1/count, which leaves each of the k best nodes chosen with probability 1/k. Draws from `rng` once
// per tie after the first, exactly as many times as kube-scheduler calls rand.Intn.
std::optional<size_t> select_host(std::span<const int64_t> scores, Rng& rng);

// selectHost from 1.35 (schedule_one.go prioritizeNodes and nodeScoreHeap, PR #135231): each node an
// extender scored (`extender_scored`: all of them, else none) draws a Randomizer (rand.Int), and the
// node popped first from the heap of (total, Randomizer), both higher first, is chosen. Nodes without
// a Randomizer tie in the order findNodesThatPassFilters wrote them, which its parallel workers make
// an order of completion rather than the nodes' (kubernetes PR #141024 says as much): a tie among them
// is drawn as select_host draws it. `scores` must not be empty.
size_t select_host_by_randomizer(std::span<const int64_t> scores, bool extender_scored, Rng& rng);

}  // namespace kext::sim
