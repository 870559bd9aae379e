#include "sim/study/process_group.hpp"

#include <algorithm>
#include <cstdlib>
#include <thread>

#ifdef SIMCTL_WITH_MPI
#include <mpi.h>

#include <stdexcept>
#endif

namespace simctl {
namespace {

// The variables Open MPI's, PMIx's and MPICH's launchers set in each rank.
bool started_by_mpi_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

#ifdef SIMCTL_WITH_MPI
class MpiWorld final : public ProcessGroup {
 public:
  MpiWorld() {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) MPI_Init(nullptr, nullptr);
    owns_ = !initialised;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  ~MpiWorld() override {
    if (owns_) MPI_Finalize();
  }
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::vector<std::string> gather(const std::string& mine) override { return exchange(mine, false); }
  std::vector<std::string> all_gather(const std::string& mine) override { return exchange(mine, true); }

 private:
  // Every rank's text, on rank 0 alone or on all of them.
  std::vector<std::string> exchange(const std::string& mine, bool to_all) {
    if (mine.size() > static_cast<std::size_t>(INT32_MAX)) throw std::runtime_error("a rank's rows exceed 2 GiB");
    const int length = static_cast<int>(mine.size());
    const bool receives = to_all || rank_ == 0;
    std::vector<int> lengths(receives ? size_ : 0);
    if (to_all) {
      MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, MPI_COMM_WORLD);
    } else {
      MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    std::vector<int> offsets(lengths.size());
    std::size_t total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      offsets[r] = static_cast<int>(total);
      total += static_cast<std::size_t>(lengths[r]);
    }
    if (total > static_cast<std::size_t>(INT32_MAX)) throw std::runtime_error("the gathered rows exceed 2 GiB");
    std::string all(total, '\0');
    if (to_all) {
      MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                     MPI_COMM_WORLD);
    } else {
      MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                  MPI_COMM_WORLD);
    }
    std::vector<std::string> out;
    for (std::size_t r = 0; r < lengths.size(); ++r) out.push_back(all.substr(offsets[r], lengths[r]));
    return out;
  }

  int rank_ = 0;
  int size_ = 1;
  bool owns_ = false;
};
#endif

}  // namespace

std::vector<std::size_t> share_of(std::size_t count, const ProcessGroup& group) {
  std::vector<std::size_t> mine;
  for (auto i = static_cast<std::size_t>(group.rank()); i < count; i += static_cast<std::size_t>(group.size())) {
    mine.push_back(i);
  }
  return mine;
}

unsigned default_threads_per_process() {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const char* local_ranks = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const int sharing = local_ranks != nullptr ? std::max(1, std::atoi(local_ranks)) : 1;
  return std::max(1u, cores / static_cast<unsigned>(sharing));
}

bool built_with_mpi() {
#ifdef SIMCTL_WITH_MPI
  return true;
#else
  return false;
#endif
}

std::unique_ptr<ProcessGroup> launched_process_group() {
#ifdef SIMCTL_WITH_MPI
  if (started_by_mpi_launcher()) return std::make_unique<MpiWorld>();
#else
  (void)started_by_mpi_launcher;
#endif
  return std::make_unique<SingleProcess>();
}

}  // namespace simctl
