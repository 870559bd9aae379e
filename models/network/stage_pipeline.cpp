#include "models/network/stage_pipeline.hpp"

#include <memory>
#include <stdexcept>

namespace simctl {

namespace {

struct Pipeline : std::enable_shared_from_this<Pipeline> {
  std::vector<std::vector<StageWork>> work;
  std::function<void()> done;
  std::vector<std::size_t> started, finished;
  std::vector<bool> busy;

  std::size_t pieces() const { return work.front().size(); }

  void try_start(std::size_t s) {
    if (s >= work.size() || busy[s] || started[s] == pieces()) return;
    if (s > 0 && finished[s - 1] <= started[s]) return;  // its piece is not out of the stage before
    busy[s] = true;
    StageWork piece = std::move(work[s][started[s]++]);
    piece([self = shared_from_this(), s] { self->finish(s); });
  }

  void finish(std::size_t s) {
    busy[s] = false;
    ++finished[s];
    if (s + 1 == work.size() && finished[s] == pieces()) {
      done();
      return;
    }
    try_start(s);
    try_start(s + 1);
  }
};

}  // namespace

void run_stage_pipeline(std::vector<std::vector<StageWork>> work, std::function<void()> done) {
  if (work.empty() || work.front().empty()) throw std::invalid_argument("stage pipeline: no stages or no pieces");
  for (const auto& stage : work) {
    if (stage.size() != work.front().size()) throw std::invalid_argument("stage pipeline: stages differ in pieces");
  }
  auto p = std::make_shared<Pipeline>();
  const std::size_t stages = work.size();
  p->work = std::move(work);
  p->done = std::move(done);
  p->started.assign(stages, 0);
  p->finished.assign(stages, 0);
  p->busy.assign(stages, false);
  p->try_start(0);
}

}  // namespace simctl
