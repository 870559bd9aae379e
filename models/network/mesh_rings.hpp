#pragma once
// RCCL's rings on a full mesh. On MI300X-class nodes every GPU has its own
// xGMI link to each other GPU, and RCCL's channels run several rings that
// share no link: with NCCL_ALGO=Ring 8 MI325X reach 317 GB/s of all-reduce
// busbw, seven links' worth, where one ring reaches one link's (47 GB/s).
// Those rings are arc-disjoint directed Hamiltonian cycles of the complete
// digraph on the group: n - 1 of them use every link once in each direction
// (they exist for every n but 4 and 6; Tillson 1980).
#include <cstddef>
#include <vector>

#include "models/network/path.hpp"

namespace simctl {

// Rings over `members` (each starting at members[0]) that share no directed
// pair: n - 1 where a deterministic search finds them within its budget,
// else as many as it found (never fewer than the one ring in member order).
std::vector<std::vector<EndpointId>> mesh_rings(const std::vector<EndpointId>& members);

// How many rings mesh_rings finds for a group of `n`.
std::size_t mesh_ring_count(std::size_t n);

// Rings over `members` (each starting at members[0]) on GPUs joined by some
// direct links, not all (DGX-1's NVLink hybrid cube-mesh): each ring takes
// only hops i -> j with capacity[i * n + j] > 0, and no hop more often than
// that. NCCL's graph search builds its rings this way, from NVLink alone, so
// none crosses PCIe. As many as the same deterministic search finds within
// its budget, up to the most the capacities allow; empty where none exists.
std::vector<std::vector<EndpointId>> link_rings(const std::vector<EndpointId>& members,
                                                const std::vector<int>& capacity);

// Across nodes each ring crosses every node on a Hamiltonian path, entering
// on one GPU's NIC and leaving on another's; NCCL's order (local ranks e,
// e+1, ..., e-1) would put all m rings on the same m links of a mesh. A
// path through local ranks e + a_0, e + a_1, ..., e + a_{m-1} (mod m), where
// the steps a_{j+1} - a_j are 1 ... m-1 each once (a sequencing of Z_m:
// 0, 1, m-1, 2, m-2, ...; Gordon 1961, exists for every even m), shifted
// by e = 0 ... m-1, gives m paths that share no link: each takes every
// difference once, so each pair of GPUs once per direction. The offsets
// a_0 ... a_{m-1}; empty for odd m (no sequencing exists).
std::vector<int> mesh_path_offsets(int m);

}  // namespace simctl
