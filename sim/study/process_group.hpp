#pragma once
// The processes a sweep or a search is spread over: this one alone, or the
// ranks `mpirun -np N simctl ...` started. Each process evaluates its share
// of the points and rank 0 gathers everyone's rows, so the output does not
// depend on how many processes there were.
#include <memory>
#include <string>
#include <vector>

namespace simctl {

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // On rank 0: every rank's text, in rank order. Elsewhere: empty.
  virtual std::vector<std::string> gather(const std::string& mine) = 0;
  // On every rank: every rank's text, in rank order (a search's ranks all
  // need each batch's results to choose the next batch alike).
  virtual std::vector<std::string> all_gather(const std::string& mine) = 0;
};

class SingleProcess final : public ProcessGroup {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::vector<std::string> gather(const std::string& mine) override { return {mine}; }
  std::vector<std::string> all_gather(const std::string& mine) override { return {mine}; }
};

// The positions of `count` work items this process takes: rank, rank +
// size, rank + 2 size, ... (all of them for a single process).
std::vector<std::size_t> share_of(std::size_t count, const ProcessGroup& group);

// Threads a process runs by default: the machine's cores, shared among the
// MPI ranks started on this machine (Open MPI's OMPI_COMM_WORLD_LOCAL_SIZE).
unsigned default_threads_per_process();

// True when built with MPI (CMake option SIMCTL_WITH_MPI).
bool built_with_mpi();

// The MPI world when this process was started by an MPI launcher (mpirun,
// srun with PMI) and simctl was built with MPI; else this process alone.
// MPI is initialised by the first call's object and finalised when it dies,
// so hold it for the command's whole run.
std::unique_ptr<ProcessGroup> launched_process_group();

}  // namespace simctl
