#pragma once
// A hand-built test topology: `n` endpoints, each with one full-duplex link
// to a central switch. Graph edge i joins endpoint i and the switch, so link
// 2i is endpoint i's up link and 2i+1 its down link; route i->j is
// [up(i), down(j)] with one hop latency per link.
#include <vector>

#include "models/network/path.hpp"
#include "sim/core/units.hpp"

namespace simctl::test {

class StarRouter : public Router {
 public:
  StarRouter(int n, TimePs hop_latency) : n_(n) {
    paths_.resize(static_cast<std::size_t>(n) * n);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        Path& p = paths_[static_cast<std::size_t>(i) * n + j];
        if (i == j) continue;  // local copy: no links
        p.links = {up(i), down(j)};
        p.latency = 2 * hop_latency;
      }
    }
  }
  static LinkId up(int i) { return static_cast<LinkId>(2 * i); }
  static LinkId down(int i) { return static_cast<LinkId>(2 * i + 1); }
  int link_count() const { return 2 * n_; }
  const Path& route(EndpointId from, EndpointId to) const override {
    return paths_.at(static_cast<std::size_t>(from) * n_ + to);
  }

 private:
  int n_;
  std::vector<Path> paths_;
};

}  // namespace simctl::test
