#include "sim/topology/pairing.hpp"

#include <stdexcept>
#include <string>

namespace simctl {
namespace {

using Pairs = std::vector<std::pair<EndpointId, EndpointId>>;

std::string counts(std::size_t a, std::size_t b) { return std::to_string(a) + " parts with " + std::to_string(b); }

Pairs one_to_one(const std::vector<EndpointId>& a, const std::vector<EndpointId>& b) {
  if (a.size() != b.size()) {
    throw std::invalid_argument("one_to_one pairing needs equally many parts on both sides, got " +
                                counts(a.size(), b.size()));
  }
  Pairs out;
  for (std::size_t i = 0; i < a.size(); ++i) out.emplace_back(a[i], b[i]);
  return out;
}

// `shorter_of(i)` picks the shorter side's partner of the longer side's part i.
template <class PartnerOf>
Pairs spread(const std::vector<EndpointId>& a, const std::vector<EndpointId>& b, PartnerOf shorter_of) {
  Pairs out;
  const bool a_longer = a.size() >= b.size();
  const auto& longer = a_longer ? a : b;
  const auto& shorter = a_longer ? b : a;
  for (std::size_t i = 0; i < longer.size(); ++i) {
    const EndpointId partner = shorter[shorter_of(i, longer.size(), shorter.size())];
    out.emplace_back(a_longer ? longer[i] : partner, a_longer ? partner : longer[i]);
  }
  return out;
}

Pairs block(const std::vector<EndpointId>& a, const std::vector<EndpointId>& b) {
  const auto longer = std::max(a.size(), b.size());
  const auto shorter = std::min(a.size(), b.size());
  if (longer % shorter != 0) {
    throw std::invalid_argument("block pairing needs one side's count to divide the other's, got " +
                                counts(a.size(), b.size()) + "; choose pairing one_to_one, round_robin or all_to_all");
  }
  return spread(a, b, [](std::size_t i, std::size_t l, std::size_t s) { return i / (l / s); });
}

Pairs round_robin(const std::vector<EndpointId>& a, const std::vector<EndpointId>& b) {
  return spread(a, b, [](std::size_t i, std::size_t, std::size_t s) { return i % s; });
}

Pairs all_to_all(const std::vector<EndpointId>& a, const std::vector<EndpointId>& b) {
  Pairs out;
  for (EndpointId x : a) {
    for (EndpointId y : b) out.emplace_back(x, y);
  }
  return out;
}

// A full mesh names one group on both sides (`between: ["gpu[*]",
// "gpu[*]"]`): each pair of its parts gets one cable. Two different lists
// would make a partial mesh, which is not what a mesh platform has.
Pairs mesh(const std::vector<EndpointId>& a, const std::vector<EndpointId>& b) {
  if (a != b) {
    throw std::invalid_argument(
        "mesh pairing cables every pair of one group's parts, so both sides must name the same parts (got " +
        counts(a.size(), b.size()) +
        ", not the same); write the group twice (between: [\"gpu[*]\", \"gpu[*]\"]), or use all_to_all "
        "between two different groups");
  }
  if (a.size() < 2)
    throw std::invalid_argument("mesh pairing needs at least two parts, got " + std::to_string(a.size()));
  Pairs out;
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t j = i + 1; j < a.size(); ++j) out.emplace_back(a[i], a[j]);
  }
  return out;
}

// all_to_all between lists that share a part would cable it to itself.
void check_disjoint(const std::vector<EndpointId>& a, const std::vector<EndpointId>& b) {
  for (EndpointId x : a) {
    for (EndpointId y : b) {
      if (x == y) {
        throw std::invalid_argument(
            "all_to_all would cable a part to itself, as both sides name it; for a full mesh inside one group use "
            "pairing: mesh");
      }
    }
  }
}

}  // namespace

std::optional<Pairing> pairing_from_string(std::string_view text) {
  if (text == "one_to_one") return Pairing::one_to_one;
  if (text == "block") return Pairing::block;
  if (text == "round_robin") return Pairing::round_robin;
  if (text == "all_to_all") return Pairing::all_to_all;
  if (text == "mesh") return Pairing::mesh;
  return std::nullopt;
}

namespace {
constexpr std::size_t kMaxCablesPerLink = 1'000'000;  // a full mesh of 1000 parts
}  // namespace

std::vector<std::pair<EndpointId, EndpointId>> pair_parts(const std::vector<EndpointId>& a,
                                                          const std::vector<EndpointId>& b, Pairing pairing) {
  if (a.empty() || b.empty()) throw std::invalid_argument("a link needs at least one part on each side");
  switch (pairing) {
    case Pairing::automatic: return a.size() == b.size() ? one_to_one(a, b) : block(a, b);
    case Pairing::one_to_one: return one_to_one(a, b);
    case Pairing::block: return block(a, b);
    case Pairing::round_robin: return round_robin(a, b);
    case Pairing::all_to_all:
      if (a.size() * b.size() > kMaxCablesPerLink) {
        throw std::invalid_argument("all_to_all between " + std::to_string(a.size()) + " and " +
                                    std::to_string(b.size()) + " parts would make " +
                                    std::to_string(a.size() * b.size()) + " cables, more than the " +
                                    std::to_string(kMaxCablesPerLink) + " one link may make");
      }
      check_disjoint(a, b);
      return all_to_all(a, b);
    case Pairing::mesh:
      if (a.size() * a.size() > 2 * kMaxCablesPerLink) {
        throw std::invalid_argument("a mesh of " + std::to_string(a.size()) + " parts would make more than the " +
                                    std::to_string(kMaxCablesPerLink) + " cables one link may make");
      }
      return mesh(a, b);
  }
  return {};
}

}  // namespace simctl
