// Chakra ETs into a simctl trace (chakra_et.hpp): exactly where simctl wrote
// them, else by the nodes' Chakra fields.
#include <map>
#include <nlohmann/json.hpp>
#include <queue>
#include <set>

#include "sim/config/config_error.hpp"
#include "workloads/chakra/chakra_et.hpp"
#include "workloads/chakra/chakra_io.hpp"
#include "workloads/trace_json.hpp"

namespace simctl {
namespace chakra_detail {
namespace {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;
using json = nlohmann::json;

std::string where(const EtFile& file, const Node& node) {
  return file.path + ": node " + std::to_string(node.id()) + (node.name().empty() ? "" : " ('" + node.name() + "')");
}

bool written_by_simctl(const EtFile& file) {
  if (!find_attr(file.metadata.attr(), "simctl.trace")) return false;
  for (const Node& node : file.nodes) {
    if (!find_attr(node.attr(), "simctl.op")) return false;
  }
  return true;
}

std::int64_t int_attr(const EtFile& file, const Node& node, const std::string& name, bool required) {
  const AttributeProto* a = find_attr(node.attr(), name);
  if (!a) {
    if (required) throw ChakraError(where(file, node) + ": has no '" + name + "' attribute");
    return 0;
  }
  switch (a->value_case()) {
    case AttributeProto::kInt64Val: return a->int64_val();
    case AttributeProto::kInt32Val: return a->int32_val();
    case AttributeProto::kUint64Val: return static_cast<std::int64_t>(a->uint64_val());
    case AttributeProto::kUint32Val: return a->uint32_val();
    default: throw ChakraError(where(file, node) + ": attribute '" + name + "' is not an integer");
  }
}

// --- files simctl wrote: the header and the ops, back as the trace format.

json simctl_document(const std::vector<EtFile>& files) {
  const std::string header = find_attr(files.front().metadata.attr(), "simctl.trace")->string_val();
  json doc = json::parse(header, nullptr, false);
  if (doc.is_discarded()) throw ChakraError(files.front().path + ": its simctl.trace metadata is not valid JSON");
  for (std::size_t r = 0; r < files.size(); ++r) {
    const EtFile& file = files[r];
    if (find_attr(file.metadata.attr(), "simctl.trace")->string_val() != header)
      throw ChakraError(file.path + ": comes from a different trace than " + files.front().path +
                        "; give the ETs of one export");
    const AttributeProto* rank = find_attr(file.metadata.attr(), "simctl.rank");
    const AttributeProto* ranks = find_attr(file.metadata.attr(), "simctl.ranks");
    if (!rank || !ranks || rank->int64_val() != static_cast<std::int64_t>(r) ||
        ranks->int64_val() != static_cast<std::int64_t>(files.size()))
      throw ChakraError(file.path + ": holds rank " + std::to_string(rank ? rank->int64_val() : -1) + " of " +
                        std::to_string(ranks ? ranks->int64_val() : -1) + ", but was given as rank " +
                        std::to_string(r) + " of " + std::to_string(files.size()) +
                        "; give every rank's file, in rank order");
    json ops = json::array();
    for (std::size_t i = 0; i < file.nodes.size(); ++i) {
      const Node& node = file.nodes[i];
      if (node.id() != i) throw ChakraError(where(file, node) + ": simctl writes node ids 0, 1, ... in order");
      json op = json::parse(find_attr(node.attr(), "simctl.op")->string_val(), nullptr, false);
      if (op.is_discarded()) throw ChakraError(where(file, node) + ": its simctl.op attribute is not valid JSON");
      ops.push_back(std::move(op));
    }
    doc["ranks"].push_back(json{{"ops", std::move(ops)}});
  }
  return doc;
}

// --- any other ET: nodes by type, dependencies by id.

// The file's nodes in an order that puts every node after its dependencies,
// ties in file order; simctl's ops name only earlier ops.
std::vector<std::size_t> topological_order(const EtFile& file) {
  std::map<std::uint64_t, std::size_t> position;
  for (std::size_t i = 0; i < file.nodes.size(); ++i) {
    if (!position.emplace(file.nodes[i].id(), i).second)
      throw ChakraError(where(file, file.nodes[i]) + ": a second node with this id; ids must be unique");
  }
  std::vector<std::vector<std::size_t>> children(file.nodes.size());
  std::vector<std::size_t> waiting(file.nodes.size(), 0);
  for (std::size_t i = 0; i < file.nodes.size(); ++i) {
    std::set<std::uint64_t> deps(file.nodes[i].ctrl_deps().begin(), file.nodes[i].ctrl_deps().end());
    deps.insert(file.nodes[i].data_deps().begin(), file.nodes[i].data_deps().end());
    for (std::uint64_t d : deps) {
      auto it = position.find(d);
      if (it == position.end())
        throw ChakraError(where(file, file.nodes[i]) + ": depends on node " + std::to_string(d) +
                          ", which the file does not hold");
      children[it->second].push_back(i);
      ++waiting[i];
    }
  }
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t i = 0; i < waiting.size(); ++i) {
    if (waiting[i] == 0) ready.push(i);
  }
  std::vector<std::size_t> order;
  while (!ready.empty()) {
    const std::size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (std::size_t c : children[i]) {
      if (--waiting[c] == 0) ready.push(c);
    }
  }
  if (order.size() != file.nodes.size()) {
    for (std::size_t i = 0; i < waiting.size(); ++i) {
      if (waiting[i] > 0) throw ChakraError(where(file, file.nodes[i]) + ": its dependencies form a cycle");
    }
  }
  return order;
}

const char* collective_name(const EtFile& file, const Node& node, std::int64_t type) {
  switch (type) {
    case ChakraProtoMsg::ALL_REDUCE: return "all_reduce";
    case ChakraProtoMsg::REDUCE: return "reduce";
    case ChakraProtoMsg::ALL_GATHER: return "all_gather";
    case ChakraProtoMsg::BROADCAST: return "broadcast";
    case ChakraProtoMsg::ALL_TO_ALL: return "all_to_all";
    case ChakraProtoMsg::REDUCE_SCATTER: return "reduce_scatter";
    default:
      throw ChakraError(where(file, node) + ": comm_type " + std::to_string(type) +
                        " is not modelled; simctl runs ALL_REDUCE (0), REDUCE (1), ALL_GATHER (2), BROADCAST (5), "
                        "ALL_TO_ALL (6) and REDUCE_SCATTER (7)");
  }
}

class ForeignImport {
 public:
  ForeignImport(const std::vector<EtFile>& files, const ChakraImportOptions& options)
      : files_(files), options_(options) {
    if (!options.comm_groups_json.empty()) {
      comm_groups_ = json::parse(options.comm_groups_json, nullptr, false);
      if (comm_groups_.is_discarded() || !comm_groups_.is_object())
        throw ChakraError(options.comm_groups_label + ": not a communicator-group file ({\"1\": [0, 1], ...})");
    }
  }

  json document() {
    json ranks = json::array();
    for (const EtFile& file : files_) ranks.push_back(json{{"ops", rank_ops(file)}});
    json doc{{"format", kTraceFormatName},
             {"version", kTraceFormatVersion},
             {"compute_dtype", "bf16"},
             {"description", "Chakra ET " + files_.front().path + (files_.size() > 1 ? " ..." : "")},
             {"totals", {{"model_flops", 0}, {"tokens", 0}, {"samples", 0}, {"parameters", 0}}},
             {"gpu_of_rank", json::array()},
             {"groups", groups_},
             {"ranks", std::move(ranks)}};
    if (measured_) doc["measured_on"] = options_.measured_on;
    return doc;
  }

 private:
  json rank_ops(const EtFile& file) {
    const std::vector<std::size_t> order = topological_order(file);
    std::map<std::uint64_t, std::size_t> index_of;
    for (std::size_t k = 0; k < order.size(); ++k) index_of[file.nodes[order[k]].id()] = k;
    json ops = json::array();
    for (std::size_t k : order) {
      const Node& node = file.nodes[k];
      json op = node_op(file, node);
      std::set<std::size_t> deps;
      for (std::uint64_t d : node.ctrl_deps()) deps.insert(index_of.at(d));
      for (std::uint64_t d : node.data_deps()) deps.insert(index_of.at(d));
      op["name"] = node.name();
      op["deps"] = std::vector<std::size_t>(deps.begin(), deps.end());
      ops.push_back(std::move(op));
    }
    return ops;
  }

  json node_op(const EtFile& file, const Node& node) {
    const double bytes = static_cast<double>(int_attr(file, node, "tensor_size", false));
    switch (node.type()) {
      case ChakraProtoMsg::COMP_NODE: return compute_op(file, node, bytes);
      case ChakraProtoMsg::COMM_COLL_NODE:
        return json{{"kind", "collective"},
                    {"collective", collective_name(file, node, int_attr(file, node, "comm_type", true))},
                    {"bytes", int_attr(file, node, "comm_size", true)},
                    {"group", group_of(file, node)}};
      case ChakraProtoMsg::COMM_SEND_NODE:
        return json{{"kind", "send"},
                    {"peer", int_attr(file, node, "comm_dst", true)},
                    {"bytes", int_attr(file, node, "comm_size", true)}};
      case ChakraProtoMsg::COMM_RECV_NODE:
        return json{{"kind", "recv"},
                    {"peer", int_attr(file, node, "comm_src", true)},
                    {"bytes", int_attr(file, node, "comm_size", true)}};
      case ChakraProtoMsg::MEM_LOAD_NODE:
        return json{{"kind", "copy"}, {"direction", "host_to_device"}, {"bytes", bytes}};
      case ChakraProtoMsg::MEM_STORE_NODE:
        return json{{"kind", "copy"}, {"direction", "device_to_host"}, {"bytes", bytes}};
      case ChakraProtoMsg::METADATA_NODE: return json{{"kind", "host"}, {"seconds", 0.0}};
      default:
        throw ChakraError(where(file, node) + ": node type " + std::to_string(node.type()) +
                          " is not one Chakra defines (METADATA 1 ... COMM_COLL 7)");
    }
  }

  // A GPU node with a duration keeps it as a measured kernel (on
  // --gpu's model); without one it is priced from num_ops and tensor_size
  // as a tensor-core kernel of unknown shape, as ASTRA-sim's roofline does.
  json compute_op(const EtFile& file, const Node& node, double bytes) {
    const AttributeProto* cpu = find_attr(node.attr(), "is_cpu_op");
    const double seconds = static_cast<double>(node.duration_micros()) * 1e-6;
    if (cpu && cpu->bool_val()) return json{{"kind", "host"}, {"seconds", seconds}};
    const double flops = static_cast<double>(int_attr(file, node, "num_ops", false));
    json op{{"kind", "compute"},
            {"kernel", flops > 0.0 ? "gemm" : "other"},
            {"flops", flops},
            {"bytes", bytes},
            {"sustained", true}};
    if (seconds > 0.0) {
      if (options_.measured_on.empty())
        throw ChakraError(where(file, node) + ": has a duration (" + std::to_string(node.duration_micros()) +
                          " us); say which catalogue GPU it was measured on with --gpu MODEL");
      op["measured_seconds"] = seconds;
      measured_ = true;
    } else if (flops <= 0.0 && bytes <= 0.0) {
      throw ChakraError(where(file, node) +
                        ": a GPU node with no duration_micros, num_ops or tensor_size; nothing says what it costs");
    }
    return op;
  }

  // ASTRA-sim's convention: pg_name "" or "0" is every rank; another names
  // a group of the communicator-group file.
  std::size_t group_of(const EtFile& file, const Node& node) {
    const AttributeProto* pg = find_attr(node.attr(), "pg_name");
    const std::string name = pg ? pg->string_val() : "";
    if (auto it = group_index_.find(name); it != group_index_.end()) return it->second;
    std::vector<std::uint32_t> members;
    if (name.empty() || name == "0") {
      for (std::uint32_t r = 0; r < files_.size(); ++r) members.push_back(r);
    } else {
      if (options_.comm_groups_json.empty())
        throw ChakraError(where(file, node) + ": pg_name '" + name +
                          "' names a communicator group; give the groups with --comm-groups FILE (ASTRA-sim's "
                          "{\"" +
                          name + "\": [ranks...]})");
      if (!comm_groups_.contains(name))
        throw ChakraError(where(file, node) + ": pg_name '" + name + "' is not a group of " +
                          options_.comm_groups_label);
      members = comm_groups_[name].get<std::vector<std::uint32_t>>();
    }
    groups_.push_back(members);
    return group_index_[name] = groups_.size() - 1;
  }

  const std::vector<EtFile>& files_;
  const ChakraImportOptions& options_;
  json comm_groups_;
  json groups_ = json::array();
  std::map<std::string, std::size_t> group_index_;
  bool measured_ = false;
};

}  // namespace
}  // namespace chakra_detail

ChakraImport import_chakra(const std::vector<std::string>& paths, const ChakraImportOptions& options) {
  using namespace chakra_detail;
  if (paths.empty()) throw ChakraError("no Chakra ET files given");
  std::vector<EtFile> files;
  for (const std::string& path : paths) files.push_back(read_et_file(path));
  bool simctl_written = true;
  for (const EtFile& file : files) simctl_written = simctl_written && written_by_simctl(file);
  const std::string label = "Chakra ETs " + paths.front() + (paths.size() > 1 ? " ..." : "");
  try {
    // A group file's members that are not rank numbers, say, end as a JSON
    // type error here.
    const nlohmann::json doc = simctl_written ? simctl_document(files) : ForeignImport(files, options).document();
    TraceFile parsed = parse_trace_json(doc.dump(), label);
    return ChakraImport{std::move(parsed.trace), std::move(parsed.description), simctl_written};
  } catch (const ConfigError& e) {
    throw ChakraError(std::string(e.what()) + " (the trace the ETs make; ranks[i] is file i)");
  } catch (const nlohmann::json::exception& e) {
    throw ChakraError(label + ": " + e.what());
  }
}

}  // namespace simctl
