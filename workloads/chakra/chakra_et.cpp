// ET files and the export of a simctl trace (chakra_et.hpp).
#include "workloads/chakra/chakra_et.hpp"

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "sim/config/gzip_file.hpp"
#include "workloads/chakra/chakra_io.hpp"
#include "workloads/trace_json.hpp"

namespace simctl {
namespace chakra_detail {

namespace {

// A varint of at most 5 bytes (a message length); false at a clean end.
bool read_varint32(const std::string& bytes, std::size_t& at, std::uint32_t& value, const std::string& path) {
  if (at == bytes.size()) return false;
  value = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    if (at == bytes.size())
      throw ChakraError(path + ": byte " + std::to_string(at) + ": the file ends inside a length");
    const auto b = static_cast<unsigned char>(bytes[at++]);
    value |= static_cast<std::uint32_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  throw ChakraError(path + ": byte " + std::to_string(at) + ": a message length longer than 5 bytes; not a Chakra ET");
}

void append_varint32(std::string& out, std::uint32_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

template <typename Message>
void parse_message(const std::string& bytes, std::size_t& at, std::uint32_t size, Message& message,
                   const std::string& path, const std::string& what) {
  if (size > bytes.size() - at)
    throw ChakraError(path + ": byte " + std::to_string(at) + ": " + what + " claims " + std::to_string(size) +
                      " bytes but the file holds " + std::to_string(bytes.size() - at) +
                      " more; it is cut short, or not a Chakra ET");
  if (!message.ParseFromArray(bytes.data() + at, static_cast<int>(size)))
    throw ChakraError(path + ": byte " + std::to_string(at) + ": " + what + " does not parse; not a Chakra ET");
  at += size;
}

}  // namespace

EtFile read_et_file(const std::string& path) {
  std::string bytes;
  try {
    bytes = read_possibly_gzipped(path);
  } catch (const FileReadError& e) {
    throw ChakraError(e.what());
  }
  EtFile file{path, {}, {}};
  std::size_t at = 0;
  std::uint32_t size = 0;
  if (!read_varint32(bytes, at, size, path)) throw ChakraError(path + ": empty; a Chakra ET starts with its metadata");
  parse_message(bytes, at, size, file.metadata, path, "the GlobalMetadata message");
  while (read_varint32(bytes, at, size, path)) {
    file.nodes.emplace_back();
    parse_message(bytes, at, size, file.nodes.back(), path, "node message " + std::to_string(file.nodes.size()));
  }
  return file;
}

void write_et_file(const std::string& path, const ChakraProtoMsg::GlobalMetadata& metadata,
                   const std::vector<ChakraProtoMsg::Node>& nodes) {
  std::string out;
  const auto append = [&out](const google::protobuf::Message& m) {
    const std::string bytes = m.SerializeAsString();
    append_varint32(out, static_cast<std::uint32_t>(bytes.size()));
    out += bytes;
  };
  append(metadata);
  for (const auto& node : nodes) append(node);
  std::ofstream file(path, std::ios::binary);
  file.write(out.data(), static_cast<std::streamsize>(out.size()));
  if (!file) throw ChakraError(path + ": cannot write the file");
}

const ChakraProtoMsg::AttributeProto* find_attr(
    const google::protobuf::RepeatedPtrField<ChakraProtoMsg::AttributeProto>& attrs, const std::string& name) {
  for (const auto& a : attrs) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

}  // namespace chakra_detail

namespace {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

AttributeProto* add_attr(Node& node, const std::string& name) {
  AttributeProto* a = node.add_attr();
  a->set_name(name);
  return a;
}

std::int64_t whole(double value) { return static_cast<std::int64_t>(std::llround(value)); }

ChakraProtoMsg::CollectiveCommType comm_type(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce: return ChakraProtoMsg::ALL_REDUCE;
    case CollectiveOp::all_gather: return ChakraProtoMsg::ALL_GATHER;
    case CollectiveOp::reduce_scatter: return ChakraProtoMsg::REDUCE_SCATTER;
    case CollectiveOp::broadcast: return ChakraProtoMsg::BROADCAST;
    case CollectiveOp::reduce: return ChakraProtoMsg::REDUCE;
    case CollectiveOp::all_to_all: return ChakraProtoMsg::ALL_TO_ALL;
  }
  return ChakraProtoMsg::ALL_REDUCE;
}

// Chakra's own fields, which ASTRA-sim reads: the node's type, sizes, and
// its communicator group ("1" is simctl's group 0; "" and "0" mean every
// rank to ASTRA-sim) or peer. `tags` counts transfers per (src, dst) pair,
// so the k-th send and the k-th receive share a tag, as simctl pairs them.
void set_chakra_fields(Node& node, const Op& op, std::uint32_t rank,
                       std::map<std::pair<std::uint32_t, std::uint32_t>, std::int32_t>& tags) {
  if (const auto* w = std::get_if<ComputeWork>(&op.work)) {
    node.set_type(ChakraProtoMsg::COMP_NODE);
    add_attr(node, "is_cpu_op")->set_bool_val(false);
    add_attr(node, "num_ops")->set_int64_val(whole(w->flops));
    add_attr(node, "tensor_size")->set_uint64_val(static_cast<std::uint64_t>(whole(w->memory_bytes)));
    if (w->measured_seconds > 0.0)
      node.set_duration_micros(static_cast<std::uint64_t>(whole(w->measured_seconds * 1e6)));
  } else if (const auto* c = std::get_if<CollectiveCall>(&op.work)) {
    node.set_type(ChakraProtoMsg::COMM_COLL_NODE);
    add_attr(node, "is_cpu_op")->set_bool_val(false);
    add_attr(node, "comm_type")->set_int64_val(comm_type(c->op));
    add_attr(node, "comm_size")->set_int64_val(whole(c->bytes));
    add_attr(node, "pg_name")->set_string_val(std::to_string(c->group + 1));
  } else if (const auto* t = std::get_if<PeerTransfer>(&op.work)) {
    const bool send = t->side == PeerTransfer::Side::send;
    const std::uint32_t src = send ? rank : t->peer, dst = send ? t->peer : rank;
    node.set_type(send ? ChakraProtoMsg::COMM_SEND_NODE : ChakraProtoMsg::COMM_RECV_NODE);
    add_attr(node, "is_cpu_op")->set_bool_val(false);
    add_attr(node, "comm_src")->set_int32_val(static_cast<std::int32_t>(src));
    add_attr(node, "comm_dst")->set_int32_val(static_cast<std::int32_t>(dst));
    add_attr(node, "comm_size")->set_int64_val(whole(t->bytes));
    add_attr(node, "comm_tag")->set_int32_val(tags[{src, dst}]++);
  } else if (const auto* copy = std::get_if<CopyCall>(&op.work)) {
    node.set_type(copy->direction == CopyDirection::device_to_host ? ChakraProtoMsg::MEM_STORE_NODE
                                                                   : ChakraProtoMsg::MEM_LOAD_NODE);
    add_attr(node, "tensor_size")->set_uint64_val(static_cast<std::uint64_t>(whole(copy->bytes)));
  } else if (const auto* host = std::get_if<HostWork>(&op.work)) {
    node.set_type(ChakraProtoMsg::COMP_NODE);
    add_attr(node, "is_cpu_op")->set_bool_val(true);
    node.set_duration_micros(static_cast<std::uint64_t>(whole(host->seconds * 1e6)));
  }
}

// One rank's nodes: data_deps are the op's dependencies, ctrl_deps the op
// before it on its stream (simctl runs a stream's ops in order; ASTRA-sim
// reads only the edges), and the attribute simctl.op the op as the trace
// format writes it, which importing reads back.
std::vector<Node> rank_nodes(const Trace& trace, std::uint32_t rank, const nlohmann::json& ops_json) {
  const std::vector<Op> ops = resolved_ops(trace, rank);
  std::vector<Node> nodes(ops.size());
  std::map<Stream, OpIndex> last_on_stream;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::int32_t> tags;
  for (OpIndex i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    Node& node = nodes[i];
    node.set_id(i);
    node.set_name(op.name);
    for (OpIndex d : op.deps) node.add_data_deps(d);
    if (auto it = last_on_stream.find(op.stream); it != last_on_stream.end()) node.add_ctrl_deps(it->second);
    last_on_stream[op.stream] = i;
    set_chakra_fields(node, op, rank, tags);
    add_attr(node, "simctl.op")->set_string_val(ops_json[i].dump());
  }
  return nodes;
}

std::string comm_groups_json(const Trace& trace) {
  nlohmann::ordered_json groups = nlohmann::ordered_json::object();
  for (std::size_t g = 0; g < trace.groups.size(); ++g) groups[std::to_string(g + 1)] = trace.groups[g];
  return groups.dump() + "\n";
}

}  // namespace

ChakraExport export_chakra(const Trace& trace, const std::string& description, const std::string& dir,
                           const std::string& prefix) {
  nlohmann::json doc = nlohmann::json::parse(trace_to_json(trace, description));
  nlohmann::json header = doc;
  header["ranks"] = nlohmann::json::array();
  ChakraProtoMsg::GlobalMetadata metadata;
  metadata.set_version("0.0.4");
  auto* header_attr = metadata.add_attr();
  header_attr->set_name("simctl.trace");
  header_attr->set_string_val(header.dump());
  auto* ranks_attr = metadata.add_attr();
  ranks_attr->set_name("simctl.ranks");
  ranks_attr->set_int64_val(trace.rank_count());
  auto* rank_attr = metadata.add_attr();
  rank_attr->set_name("simctl.rank");

  ChakraExport result;
  for (std::uint32_t r = 0; r < trace.rank_count(); ++r) {
    rank_attr->set_int64_val(r);
    const std::string path = dir + "/" + prefix + "." + std::to_string(r) + ".et";
    chakra_detail::write_et_file(path, metadata, rank_nodes(trace, r, doc["ranks"][r]["ops"]));
    result.et_paths.push_back(path);
  }
  result.comm_groups_path = dir + "/" + prefix + ".comm_groups.json";
  std::ofstream groups(result.comm_groups_path);
  groups << comm_groups_json(trace);
  if (!groups) throw ChakraError(result.comm_groups_path + ": cannot write the file");
  return result;
}

}  // namespace simctl
