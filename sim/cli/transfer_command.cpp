// `simctl transfer CONFIG FROM TO [--bytes SIZE | --min --max --factor]
// [--host-memory pinned|pageable]`: how long moving N bytes from one part of
// a system to another takes (sim/exec/system_transfer.hpp): the stages the
// bytes cross, then one row per size with the first-byte latency, the total
// time, the effective rate and the stage that bounds it.
#include <cstdio>
#include <stdexcept>

#include "sim/cli/command.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/system_argument.hpp"
#include "sim/config/quantity.hpp"
#include "sim/exec/pageable_staging.hpp"
#include "sim/exec/system_transfer.hpp"

namespace po = boost::program_options;

namespace simctl {
namespace {

Bytes size_value(const po::variables_map& values, const char* name) {
  const std::string text = values[name].as<std::string>();
  const auto bytes = parse_size_bytes(text);
  if (!bytes || *bytes <= 0 || *bytes > 1e18) {
    throw UsageError(std::string("--") + name + ": '" + text + "' is not a size like 64B, 4KiB or 1GiB");
  }
  return static_cast<Bytes>(*bytes);
}

std::string scaled(double value, const char* const units[], int count, double step) {
  int i = 0;
  while (i + 1 < count && value >= step) {
    value /= step;
    ++i;
  }
  char text[48];
  std::snprintf(text, sizeof text, value == static_cast<double>(static_cast<Bytes>(value)) ? "%.0f %s" : "%.2f %s",
                value, units[i]);
  return text;
}

std::string size_text(Bytes b) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  return scaled(static_cast<double>(b), units, 5, 1024.0);
}

std::string time_text(TimePs ps) {
  static const char* const units[] = {"ns", "us", "ms", "s"};
  char text[48];
  double value = static_cast<double>(ps) / 1e3;
  int i = 0;
  while (i < 3 && value >= 1000.0) {
    value /= 1000.0;
    ++i;
  }
  std::snprintf(text, sizeof text, "%.3g %s", value, units[i]);
  return text;
}

std::string rate_text(double bytes_per_s) {
  if (bytes_per_s <= 0) return "-";
  static const char* const units[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
  char text[48];
  int i = 0;
  while (i < 4 && bytes_per_s >= 1000.0) {
    bytes_per_s /= 1000.0;
    ++i;
  }
  std::snprintf(text, sizeof text, "%.3g %s", bytes_per_s, units[i]);
  return text;
}

void print_stages(std::ostream& out, const std::vector<TransferStage>& stages) {
  out << "stages the bytes cross (first-byte latency, streaming rate, granularity):\n";
  for (const TransferStage& s : stages) {
    char line[512];
    std::snprintf(line, sizeof line, "  %-58s %10s %12s %8s\n", s.name.c_str(), time_text(s.latency).c_str(),
                  rate_text(s.bandwidth.bytes_per_s).c_str(), size_text(s.granularity).c_str());
    out << line;
  }
}

// The cache level an end names ("l1" of node0.cpu), if it has a size.
const CacheLevel* sized_level(const System& system, const DeviceCatalogue& catalogue, const TransferEnd& end) {
  if (end.level.empty()) return nullptr;
  const CpuSpec* cpu = catalogue.find_cpu(system.part(end.part).model);
  const CacheLevel* level = cpu ? cpu->level(end.level) : nullptr;
  return level && level->size > 0 ? level : nullptr;
}

// A buffer larger than a cache cannot stay in it: the row is the rate a
// buffer that fits streams at, and says so (a 1 GiB "L1" read at L1's rate
// had misled a lab's reader).
bool overflows(const CacheLevel* level, Bytes bytes) { return level != nullptr && bytes > level->size; }

std::string overflow_footnote(const CacheLevel& level) {
  return "* larger than " + level.level + "'s " + size_text(level.size) + ", so it cannot stay in " + level.level +
         ": the row is the rate of a buffer that fits; a real one spills to the next level\n";
}

void print_row(std::ostream& out, const TransferTime& t, const std::string& note) {
  char line[512];
  std::snprintf(line, sizeof line, "%10s %10s %10s %10s %12s  %s%s\n", size_text(t.bytes).c_str(),
                size_text(t.bytes_moved).c_str(), time_text(t.latency).c_str(), time_text(t.time).c_str(),
                rate_text(t.effective_bytes_per_s()).c_str(), t.bottleneck.c_str(), note.c_str());
  out << line;
}

std::vector<Bytes> sizes(const po::variables_map& values) {
  if (values.count("bytes")) return {size_value(values, "bytes")};
  const Bytes min = size_value(values, "min"), max = size_value(values, "max");
  const double factor = values["factor"].as<double>();
  if (!(factor > 1.0)) throw UsageError("--factor must be greater than 1");
  if (min > max) throw UsageError("--min must not exceed --max");
  std::vector<Bytes> list;
  for (double b = static_cast<double>(min); b <= static_cast<double>(max) * (1 + 1e-9); b *= factor) {
    list.push_back(static_cast<Bytes>(b + 0.5));
  }
  return list;
}

}  // namespace

po::options_description transfer_options() {
  po::options_description named;
  named.add_options()("bytes", po::value<std::string>()->value_name("SIZE"),
                      "move this many bytes only, with a unit (4KiB, 1GiB); default: the --min..--max sweep")(
      "min", po::value<std::string>()->value_name("SIZE")->default_value("64B"), "the smallest size of the sweep")(
      "max", po::value<std::string>()->value_name("SIZE")->default_value("1GiB"), "the largest size of the sweep")(
      "factor", po::value<double>()->value_name("F")->default_value(4.0),
      "each size is F times the previous (a ratio, > 1)")(
      "host-memory", po::value<std::string>()->value_name("KIND")->default_value("pinned"),
      "pinned, or pageable: a host<->GPU copy is staged through a pinned buffer by one CPU core's memcpy");
  return named;
}

int transfer_command_main(const ParsedOptions& options, std::ostream& out) {
  DeviceCatalogue catalogue = DeviceCatalogue::load();
  const System system = load_system_argument(options.positionals[0], catalogue, LinkKindTable::load());
  for (const GpuSpec& variant : system.gpu_variants()) catalogue.add_gpu(variant);
  const std::string memory = options.values["host-memory"].as<std::string>();
  if (memory != "pinned" && memory != "pageable") {
    throw UsageError("--host-memory: '" + memory + "' is not pinned or pageable");
  }
  const bool pageable = memory == "pageable";
  const std::vector<Bytes> list = sizes(options.values);
  try {
    const TransferEnd from = parse_transfer_end(system, catalogue, options.positionals[1]);
    const TransferEnd to = parse_transfer_end(system, catalogue, options.positionals[2]);
    const bool host_copy = is_host_device_copy(system, from, to);
    if (pageable && !host_copy) {
      throw UsageError("--host-memory pageable applies to copies between host memory and a GPU");
    }
    out << "transfer " << options.positionals[1] << " -> " << options.positionals[2] << " on " << system.name()
        << (host_copy ? (pageable ? ", pageable host memory (staged through a pinned buffer by a CPU memcpy, " +
                                        size_text(kStagingChunk) + " chunks overlapping the DMA)"
                                  : ", pinned host memory (DMA)")
                      : "")
        << "\n";
    std::vector<TransferStage> stages = transfer_stages(system, catalogue, from, to);
    if (host_copy && pageable) {
      // The memcpy feeds the DMA chunk by chunk (after it, coming back).
      const EndpointId gpu = system.part(from.part).kind == PartKind::gpu ? from.part : to.part;
      TransferStage memcpy = staging_stage(host_cpu(system, catalogue, gpu));
      memcpy.name = (gpu == to.part ? "first: " : "then: ") + memcpy.name;
      stages.insert(gpu == to.part ? stages.begin() : stages.end(), memcpy);
    }
    print_stages(out, stages);
    out << "\n      size      moved    latency       time    effective  bound by\n";
    const CacheLevel* smaller = sized_level(system, catalogue, from);
    if (const CacheLevel* other = sized_level(system, catalogue, to);
        other && (!smaller || other->size < smaller->size))
      smaller = other;
    for (Bytes b : list)
      print_row(out, system_transfer(system, catalogue, from, to, b, pageable), overflows(smaller, b) ? " *" : "");
    if (overflows(smaller, list.back())) out << overflow_footnote(*smaller);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return 0;
}

}  // namespace simctl
