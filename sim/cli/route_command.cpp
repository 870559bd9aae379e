// `simctl route CONFIG SRC DST [--flow KEY]`: the path a transfer takes, hop
// by hop, with each link's kind, rate and latency, and the path's totals.
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "sim/cli/command.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/system_argument.hpp"
#include "sim/config/config_node.hpp"
#include "sim/core/format_number.hpp"
#include "sim/topology/part_lookup.hpp"
#include "sim/topology/system_config.hpp"

namespace po = boost::program_options;

namespace simctl {
namespace {

std::string latency_text(TimePs ps) { return format_number("%.0f ns", static_cast<double>(ps) / 1e3); }

void print_hop(std::ostream& out, const System& s, std::size_t n, LinkId link, EndpointId source, EndpointId to,
               std::optional<double> share) {
  const LinkSpec& spec = s.link_spec(link);
  const EndpointId from = s.link_source(link);
  // A bundle (adaptive routing) is its tier's links pooled: no choice left.
  const std::size_t choices = s.is_bundle(link) ? 1 : s.route_choices(source, from, to);
  const std::string from_text = s.is_bundle(link) ? s.bundle(link).name : s.part(from).name;
  const std::string to_text = s.is_bundle(link) ? std::to_string(s.bundle(link).members.size()) + " links, even spread"
                                                : s.part(s.link_target(link)).name;
  char line[512];
  std::snprintf(line, sizeof line, "%4zu  %-22s -> %-22s %-15s %9.1f %9.1f %9s %7zu", n, from_text.c_str(),
                to_text.c_str(), std::string(to_string(spec.kind)).c_str(), spec.bandwidth.gb_per_s(),
                spec.effective().gb_per_s(), latency_text(spec.latency).c_str(), choices);
  out << line;
  if (share) out << format_number(" %7.1f %%", 100.0 * *share);
  out << "\n";
}

// A spread connection's bottleneck is the link with the least rate per
// share of it: what the connection moves when that link is full.
void print_totals(std::ostream& out, const System& s, const Path& path) {
  const auto per_share = [&](std::size_t i) {
    return s.link_spec(path.links[i]).effective().gb_per_s() / path.share(i);
  };
  std::size_t slowest = 0;
  for (std::size_t i = 1; i < path.links.size(); ++i) {
    if (per_share(i) < per_share(slowest)) slowest = i;
  }
  const LinkSpec& spec = s.link_spec(path.links[slowest]);
  const char* unit = path.shares.empty() ? " hop" : " link";
  out << "total: " << path.links.size() << unit << (path.links.size() == 1 ? ", " : "s, ") << latency_text(path.latency)
      << " latency; bottleneck " << format_number("%.1f", spec.bandwidth.gb_per_s()) << " GB/s per direction ("
      << format_number("%.1f", spec.effective().gb_per_s()) << " GB/s effective";
  if (!path.shares.empty()) {
    out << ", carrying " << format_number("%.1f", 100.0 * path.share(slowest))
        << " % of the connection: " << format_number("%.1f", per_share(slowest)) << " GB/s for it";
  }
  out << ") on " << s.link_name(path.links[slowest]) << "\n";
}

EndpointId part_arg(const System& s, const std::string& text) {
  try {
    return resolve_part(s, text);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

// How the printed path was chosen: a static fabric picks by destination
// whatever the flow, so its key then matters only inside nodes.
std::string route_label(const System& s, std::optional<std::uint64_t> flow) {
  if (s.fabric_routing() == FabricRouting::adaptive) {
    return "adaptive fabric routing: each tier's links shared evenly" +
           (flow ? ", flow key " + std::to_string(*flow) + " inside nodes" : std::string());
  }
  if (s.fabric_routing() == FabricRouting::by_destination) {
    return "static fabric routing: the destination's path" +
           (flow ? ", flow key " + std::to_string(*flow) + " inside nodes" : std::string());
  }
  if (flow && s.queue_pairs().spread()) {
    return "ECMP, " + std::to_string(s.queue_pairs().per_connection) +
           " queue pairs per connection hashed apart: every link any of them crosses, with its share; the same for "
           "every flow key";
  }
  return flow ? "ECMP, flow key " + std::to_string(*flow) : "default path; --flow KEY for a flow's ECMP path";
}

}  // namespace

po::options_description route_options() {
  po::options_description named;
  named.add_options()("flow", po::value<std::uint64_t>()->value_name("KEY"),
                      "show the ECMP path of the flow with this key (an integer) instead of the default path");
  return named;
}

int route_command_main(const ParsedOptions& options, std::ostream& out) {
  const System s = load_system_argument(options.positionals[0], DeviceCatalogue::load(), LinkKindTable::load());
  const EndpointId from = part_arg(s, options.positionals[1]);
  const EndpointId to = part_arg(s, options.positionals[2]);
  const bool ecmp = options.values.count("flow") > 0;
  const Path* path = nullptr;
  try {
    path = ecmp ? &s.route(from, to, options.values["flow"].as<std::uint64_t>()) : &s.route(from, to);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  out << "route " << s.part(from).name << " -> " << s.part(to).name << " in " << s.name() << " ("
      << route_label(s, ecmp ? std::optional(options.values["flow"].as<std::uint64_t>()) : std::nullopt) << ")\n";
  if (path->links.empty()) {
    out << "total: 0 hops (source and destination are the same part)\n";
    return 0;
  }
  const bool spread = !path->shares.empty();
  out << (spread ? "link" : " hop") << "  from                      to                     link             GB/s/dir "
      << "effective   latency choices" << (spread ? "   share" : "") << "\n";
  for (std::size_t i = 0; i < path->links.size(); ++i) {
    print_hop(out, s, i + 1, path->links[i], from, to, spread ? std::optional(path->share(i)) : std::nullopt);
  }
  print_totals(out, s, *path);
  return 0;
}

}  // namespace simctl
