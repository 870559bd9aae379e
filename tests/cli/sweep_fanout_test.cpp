// Sweeps and searches spread over processes the way clusters run them:
// `mpirun -np 2` (when simctl was built with MPI) and the Slurm array script
// with a fake array environment. Each must write what one process writes,
// byte for byte.
#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/cli/run_binary.hpp"
#include "tests/study/study_test_files.hpp"

using simctl::testing::read_text;
using simctl::testing::run_simctl;
using simctl::testing::study_temp_dir;
using simctl::testing::write_study;

namespace {

struct Folder {
  std::filesystem::path dir;
  explicit Folder(const std::string& name) : dir(study_temp_dir() / name) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  std::string operator()(const std::string& name) const { return (dir / name).string(); }
};

int shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("the Slurm array script's shards merge to the serial sweep", "[cli][sweep][slurm]") {
  const std::string study = write_study("slurm_tiny.yaml", simctl::testing::kTinyAxes);
  const Folder out("slurm");
  REQUIRE(run_simctl("sweep " + study + " --jobs 1 --json " + out("serial.json") + " --csv " + out("serial.csv"))
              .exit_code == 0);
  for (int task = 4; task <= 6; ++task) {  // an array --array=4-6: shards 1..3 of 3
    const std::string env = "SIMCTL=" + std::string(SIMCTL_BINARY) + " SLURM_ARRAY_TASK_ID=" + std::to_string(task) +
                            " SLURM_ARRAY_TASK_MIN=4 SLURM_ARRAY_TASK_COUNT=3 SLURM_CPUS_PER_TASK=1";
    REQUIRE(shell(env + " " + SIMCTL_SOURCE_DIR + "/scripts/slurm_sweep.sbatch " + study + " " + out("shards") +
                  " >/dev/null") == 0);
  }
  REQUIRE(
      run_simctl("sweep merge " + out("shards") + " --json " + out("m.json") + " --csv " + out("m.csv")).exit_code ==
      0);
  CHECK(read_text(out("m.json")) == read_text(out("serial.json")));
  CHECK(read_text(out("m.csv")) == read_text(out("serial.csv")));
}

#ifdef SIMCTL_MPIEXEC
TEST_CASE("mpirun -np 2 writes what the serial sweep writes", "[cli][sweep][mpi]") {
  const std::string study = write_study("mpi_tiny.yaml", simctl::testing::kTinyAxes);
  const Folder out("mpi");
  const auto serial =
      run_simctl("sweep " + study + " --jobs 1 --json " + out("serial.json") + " --csv " + out("serial.csv"));
  REQUIRE(serial.exit_code == 0);
  // Root may run the test (CI containers); two ranks on a 2-core machine may
  // exceed its slots, hence --oversubscribe.
  const std::string mpirun = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " +
                             std::string(SIMCTL_MPIEXEC) + " --oversubscribe -np 2 " + SIMCTL_BINARY;
  const std::string args = " sweep " + study + " --json " + out("mpi.json") + " --csv " + out("mpi.csv");
  REQUIRE(shell(mpirun + args + " >" + out("mpi.txt") + " 2>" + out("mpi.err")) == 0);
  INFO(read_text(out("mpi.err")));
  CHECK(read_text(out("mpi.json")) == read_text(out("serial.json")));
  CHECK(read_text(out("mpi.csv")) == read_text(out("serial.csv")));
  // Rank 0 alone prints: one table, not two.
  const std::string printed = read_text(out("mpi.txt"));
  CHECK(printed.find("8 points: ") == printed.rfind("8 points: "));
}

TEST_CASE("mpirun -np 2 searches to the same ranking as one process", "[cli][search][mpi]") {
  const Folder out("mpi_search");
  const std::string config = std::string(SIMCTL_SOURCE_DIR) + "/configs/dgx_a100x8_megatron_22b.yaml";
  const auto serial = run_simctl("search " + config + " --jobs 1 --json " + out("serial.json"));
  REQUIRE(serial.exit_code == 0);
  const std::string mpirun = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " +
                             std::string(SIMCTL_MPIEXEC) + " --oversubscribe -np 2 " + SIMCTL_BINARY;
  REQUIRE(shell(mpirun + " search " + config + " --jobs 1 --json " + out("mpi.json") + " >" + out("mpi.txt") + " 2>" +
                out("mpi.err")) == 0);
  INFO(read_text(out("mpi.err")));
  CHECK(read_text(out("mpi.json")) == read_text(out("serial.json")));
  CHECK(read_text(out("mpi.txt")) == serial.out);
}
#endif
