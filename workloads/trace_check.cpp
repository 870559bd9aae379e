#include "workloads/trace_check.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "sim/config/config_error.hpp"

namespace simctl {
namespace {

std::string op_path(std::uint32_t rank, std::size_t op) {
  return "ranks[" + std::to_string(rank) + "].ops[" + std::to_string(op) + "]";
}

std::string list(const std::vector<std::uint32_t>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size(); ++i) out += (i ? ", " : "") + std::to_string(ranks[i]);
  return out;
}

// "1 send", "2 sends".
std::string count(std::size_t n, const std::string& what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

class Checker {
 public:
  Checker(const Trace& trace, std::string file) : t_(trace), file_(std::move(file)) {}

  void run() const {
    check_placement();
    for (std::size_t g = 0; g < t_.groups.size(); ++g) check_group(g);
    for (std::uint32_t r = 0; r < t_.ranks.size(); ++r) {
      for (std::size_t i = 0; i < t_.ops(r).size(); ++i) check_op(r, i);
    }
    check_collective_calls();
    check_peer_pairs();
  }

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& problem) const {
    throw ConfigError(SourceLocation{file_, 0, 0}, path, problem);
  }

  std::uint32_t rank_count() const { return static_cast<std::uint32_t>(t_.ranks.size()); }
  std::string valid_ranks() const { return "ranks 0.." + std::to_string(rank_count() - 1); }

  void check_placement() const {
    if (t_.ranks.empty()) fail("ranks", "the trace has no ranks; list at least one {\"ops\": [...]}");
    const auto& gpus = t_.gpu_of_rank;
    if (!gpus.empty() && gpus.size() != t_.ranks.size()) {
      fail("gpu_of_rank", "lists " + std::to_string(gpus.size()) + " GPUs for " + std::to_string(rank_count()) +
                              " ranks; give one GPU per rank, or [] for rank r on GPU r");
    }
    std::set<std::uint32_t> seen;
    for (std::size_t r = 0; r < gpus.size(); ++r) {
      if (!seen.insert(gpus[r]).second)
        fail("gpu_of_rank[" + std::to_string(r) + "]", "GPU " + std::to_string(gpus[r]) + " already has a rank");
    }
  }

  void check_group(std::size_t g) const {
    const std::string path = "groups[" + std::to_string(g) + "]";
    if (t_.groups[g].empty()) fail(path, "a group needs at least one member rank");
    std::set<std::uint32_t> seen;
    for (std::size_t i = 0; i < t_.groups[g].size(); ++i) {
      const std::uint32_t member = t_.groups[g][i];
      const std::string at = path + "[" + std::to_string(i) + "]";
      if (member >= rank_count()) fail(at, "rank " + std::to_string(member) + " does not exist; use " + valid_ranks());
      if (!seen.insert(member).second) fail(at, "rank " + std::to_string(member) + " is listed twice");
    }
  }

  void check_op(std::uint32_t r, std::size_t i) const {
    const Op& op = t_.ops(r)[i];
    for (std::size_t d = 0; d < op.deps.size(); ++d) check_dep(r, i, d);
    if (const auto* call = std::get_if<CollectiveCall>(&op.work)) check_collective(r, i, *call);
    if (const auto* transfer = std::get_if<PeerTransfer>(&op.work)) check_peer(r, i, *transfer);
  }

  void check_dep(std::uint32_t r, std::size_t i, std::size_t d) const {
    const OpIndex dep = t_.ops(r)[i].deps[d];
    if (dep < i) return;
    const std::string what = dep == i                 ? "op " + std::to_string(i) + " depends on itself"
                             : dep < t_.ops(r).size() ? "op " + std::to_string(dep) + " comes later"
                                                      : "op " + std::to_string(dep) + " does not exist";
    const std::string valid =
        i == 0 ? "the first op of a rank can have no dependencies"
               : "an op may depend only on earlier ops of its rank (0.." + std::to_string(i - 1) + ")";
    fail(op_path(r, i) + ".deps[" + std::to_string(d) + "]", what + "; " + valid);
  }

  void check_collective(std::uint32_t r, std::size_t i, const CollectiveCall& call) const {
    const std::string path = op_path(r, i) + ".group";
    if (call.group >= t_.groups.size()) {
      fail(path,
           "group " + std::to_string(call.group) + " does not exist; the trace has " +
               (t_.groups.empty() ? std::string("no groups") : "groups 0.." + std::to_string(t_.groups.size() - 1)));
    }
    const auto& members = t_.groups[call.group];
    if (std::find(members.begin(), members.end(), r) == members.end()) {
      fail(path, "rank " + std::to_string(r) + " is not in group " + std::to_string(call.group) + " (ranks " +
                     list(members) + "); use a group that lists rank " + std::to_string(r));
    }
  }

  void check_peer(std::uint32_t r, std::size_t i, const PeerTransfer& transfer) const {
    const std::string path = op_path(r, i) + ".peer";
    if (transfer.peer >= rank_count())
      fail(path, "rank " + std::to_string(transfer.peer) + " does not exist; use " + valid_ranks());
    if (transfer.peer == r) fail(path, "a rank cannot send to or receive from itself; use another rank");
  }

  // Every member of a group makes the same collective calls on it in the
  // same order; otherwise a collective waits forever for a member.
  void check_collective_calls() const {
    std::vector<std::map<std::uint32_t, std::vector<std::size_t>>> calls(t_.groups.size());  // group -> rank -> ops
    for (std::uint32_t r = 0; r < rank_count(); ++r) {
      for (std::size_t i = 0; i < t_.ops(r).size(); ++i) {
        if (const auto* call = std::get_if<CollectiveCall>(&t_.ops(r)[i].work)) calls[call->group][r].push_back(i);
      }
    }
    for (std::size_t g = 0; g < t_.groups.size(); ++g) {
      const std::uint32_t first = t_.groups[g].front();
      for (std::uint32_t member : t_.groups[g]) compare_calls(g, first, calls[g][first], member, calls[g][member]);
    }
  }

  void compare_calls(std::size_t g, std::uint32_t a, const std::vector<std::size_t>& a_ops, std::uint32_t b,
                     const std::vector<std::size_t>& b_ops) const {
    const std::string group = "group " + std::to_string(g);
    if (a_ops.size() != b_ops.size()) {
      const bool a_more = a_ops.size() > b_ops.size();
      const std::uint32_t extra_rank = a_more ? a : b;
      const std::size_t extra_op = (a_more ? a_ops : b_ops)[std::min(a_ops.size(), b_ops.size())];
      fail(op_path(extra_rank, extra_op), "rank " + std::to_string(a) + " makes " +
                                              count(a_ops.size(), "collective call") + " on " + group + " but rank " +
                                              std::to_string(b) + " makes " + std::to_string(b_ops.size()) +
                                              "; every member must make the same calls in the same order");
    }
    for (std::size_t k = 0; k < a_ops.size(); ++k) {
      const auto& x = std::get<CollectiveCall>(t_.ops(a)[a_ops[k]].work);
      const auto& y = std::get<CollectiveCall>(t_.ops(b)[b_ops[k]].work);
      if (x.op != y.op) {
        fail(op_path(b, b_ops[k]) + ".collective",
             "call " + std::to_string(k) + " on " + group + " is " + std::string(to_string(y.op)) + " on rank " +
                 std::to_string(b) + " but " + std::string(to_string(x.op)) + " on rank " + std::to_string(a) +
                 "; every member must make the same calls in the same order");
      }
    }
  }

  // The k-th send from A to B pairs with the k-th receive on B from A.
  void check_peer_pairs() const {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::array<std::vector<std::size_t>, 2>> pairs;
    for (std::uint32_t r = 0; r < rank_count(); ++r) {
      for (std::size_t i = 0; i < t_.ops(r).size(); ++i) {
        const auto* p = std::get_if<PeerTransfer>(&t_.ops(r)[i].work);
        if (p == nullptr) continue;
        const bool send = p->side == PeerTransfer::Side::send;
        pairs[send ? std::pair{r, p->peer} : std::pair{p->peer, r}][send ? 0 : 1].push_back(i);
      }
    }
    for (const auto& [ends, ops] : pairs) {
      const auto [sender, receiver] = ends;
      const auto& [sends, receives] = ops;
      if (sends.size() == receives.size()) continue;
      const std::string counts = "rank " + std::to_string(sender) + " has " + count(sends.size(), "send") +
                                 " to rank " + std::to_string(receiver) + " but rank " + std::to_string(receiver) +
                                 " has " + count(receives.size(), "recv") + " from rank " + std::to_string(sender);
      if (sends.size() > receives.size()) {
        fail(op_path(sender, sends[receives.size()]),
             counts + "; add a matching {\"kind\": \"recv\", \"peer\": " + std::to_string(sender) + "} to rank " +
                 std::to_string(receiver) + " or remove this send");
      }
      fail(op_path(receiver, receives[sends.size()]),
           counts + "; add a matching {\"kind\": \"send\", \"peer\": " + std::to_string(receiver) + "} to rank " +
               std::to_string(sender) + " or remove this recv");
    }
  }

  const Trace& t_;
  std::string file_;
};

}  // namespace

void check_trace(const Trace& trace, const std::string& file_label) { Checker(trace, file_label).run(); }

}  // namespace simctl
