#include "sim/cli/command.hpp"
#include "sim/cli/options.hpp"

namespace simctl {

using Options = boost::program_options::options_description;

Options run_options();
Options check_options();
Options memory_options();
Options collective_options();
Options route_options();
Options transfer_options();
Options trace_options();
Options sweep_options();
Options sweep_merge_options();
Options search_options();
Options roofline_options();
Options lab_list_options();
Options lab_run_options();
int run_command_main(const ParsedOptions& options, std::ostream& out);
int check_command_main(const ParsedOptions& options, std::ostream& out);
int memory_command_main(const ParsedOptions& options, std::ostream& out);
int collective_command_main(const ParsedOptions& options, std::ostream& out);
int route_command_main(const ParsedOptions& options, std::ostream& out);
int transfer_command_main(const ParsedOptions& options, std::ostream& out);
int trace_command_main(const ParsedOptions& options, std::ostream& out);
Options import_kineto_options();
int import_kineto_command_main(const ParsedOptions& options, std::ostream& out);
Options import_chakra_options();
int import_chakra_command_main(const ParsedOptions& options, std::ostream& out);
Options export_chakra_options();
int export_chakra_command_main(const ParsedOptions& options, std::ostream& out);
int sweep_command_main(const ParsedOptions& options, std::ostream& out);
int sweep_merge_command_main(const ParsedOptions& options, std::ostream& out);
int search_command_main(const ParsedOptions& options, std::ostream& out);
int roofline_command_main(const ParsedOptions& options, std::ostream& out);
int lab_list_command_main(const ParsedOptions& options, std::ostream& out);
int lab_run_command_main(const ParsedOptions& options, std::ostream& out);

const std::vector<Command>& all_commands() {
  static const std::vector<Command> commands{
      {"run", "run CONFIG [options]", "simulate one training step and print the report", 1, run_options,
       run_command_main},
      {"check", "check CONFIG", "validate a config without running it", 1, check_options, check_command_main},
      {"memory", "memory CONFIG", "per-stage memory estimate (GiB) against GPU capacity", 1, memory_options,
       memory_command_main},
      {"roofline", "roofline CONFIG [--device ID ...] [options]",
       "place one rank's ops (grouped by name) on each device's roofline: FLOP/B, ridge, time, bound", 1,
       roofline_options, roofline_command_main},
      {"collective", "collective CONFIG [options]", "nccl-tests twin: time one collective over a range of sizes", 1,
       collective_options, collective_command_main},
      {"route", "route CONFIG SRC DST [--flow KEY]", "print the path between two parts (names or gpu:RANK)", 3,
       route_options, route_command_main},
      {"transfer", "transfer CONFIG FROM TO [--bytes SIZE] [--host-memory pageable]",
       "time to move N bytes between two parts (PART, or CPU@l1|l2|l3|dram): latency, rate, bound", 3, transfer_options,
       transfer_command_main},
      {"trace", "trace CONFIG OUT.json [--ranks M]",
       "write the config's per-rank trace as an editable, replayable file", 2, trace_options, trace_command_main},
      {"import kineto", "import kineto TRACE.json[.gz]... -o OUT.json [--gpu MODEL] [--ranks N] [--step K]",
       "turn PyTorch profiler (Kineto) traces, one per rank, into a replayable trace with the kernels' measured times",
       kOneOrMorePositionals, import_kineto_options, import_kineto_command_main},
      {"import chakra", "import chakra ET... -o OUT.json [--gpu MODEL] [--comm-groups FILE]",
       "turn Chakra execution traces (ASTRA-sim's workload format), one per rank, into a replayable trace",
       kOneOrMorePositionals, import_chakra_options, import_chakra_command_main},
      {"export chakra", "export chakra CONFIG DIR [--prefix NAME]",
       "write the config's per-rank trace as Chakra execution traces, one per rank, for ASTRA-sim", 2,
       export_chakra_options, export_chakra_command_main},
      {"sweep", "sweep STUDY.yaml [options] | sweep RUN.yaml --axis FIELD=VALUES... [options]",
       "simulate every point of a study (axes over a base config: a study file, or a run config and its --axis "
       "options); rows as CSV/JSON, a "
       "table by its objective",
       1, sweep_options, sweep_command_main},
      {"sweep merge", "sweep merge DIR [options]",
       "join the shards `sweep --shard I/N --out DIR` wrote into the outputs of a serial run", 1, sweep_merge_options,
       sweep_merge_command_main},
      {"search", "search CONFIG [options]",
       "find the fastest parallel plan (TP, PP, DP, micro-batch, recompute, ZeRO, EP) for the config's model", 1,
       search_options, search_command_main},
      {"lab list", "lab list", "list the course labs (labs/): number, folder, title and question", 0, lab_list_options,
       lab_list_command_main},
      {"lab run", "lab run N [--plot DIR]",
       "run course lab N's simulations (its labs/NN-name/lab.yaml) and print its key figures; --plot writes its charts",
       1, lab_run_options, lab_run_command_main},
  };
  return commands;
}

}  // namespace simctl
