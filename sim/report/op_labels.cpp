#include "sim/report/op_labels.hpp"

namespace simctl {
namespace {

std::string_view direction_name(CopyDirection d) {
  switch (d) {
    case CopyDirection::host_to_device: return "host_to_device";
    case CopyDirection::device_to_host: return "device_to_host";
    case CopyDirection::storage_to_host: return "storage_to_host";
  }
  return "?";
}

}  // namespace

std::string_view stream_name(Stream s) {
  switch (s) {
    case Stream::compute: return "compute";
    case Stream::communication: return "communication";
    case Stream::copy: return "copy";
    case Stream::loader: return "loader";
    case Stream::overlap: return "overlap";
    case Stream::prefetch: return "prefetch";
    case Stream::overlap_send: return "overlap_send";
    case Stream::data_parallel: return "data_parallel";
  }
  return "?";
}

std::string work_kind(const Op& op) {
  if (const auto* c = std::get_if<ComputeWork>(&op.work)) return std::string(to_string(c->kind));
  if (const auto* c = std::get_if<CollectiveCall>(&op.work)) return std::string(to_string(c->op));
  if (const auto* t = std::get_if<PeerTransfer>(&op.work)) {
    return t->side == PeerTransfer::Side::send ? "send" : "receive";
  }
  if (std::holds_alternative<HostWork>(op.work)) return "host";
  return std::string(direction_name(std::get<CopyCall>(op.work).direction));
}

std::string work_dimension(const Op& op) {
  if (const auto* c = std::get_if<CollectiveCall>(&op.work)) return std::string(to_string(c->dimension));
  if (const auto* t = std::get_if<PeerTransfer>(&op.work)) return std::string(to_string(t->dimension));
  return "";
}

double work_bytes(const Op& op) {
  if (const auto* c = std::get_if<ComputeWork>(&op.work)) return c->memory_bytes;
  if (const auto* c = std::get_if<CollectiveCall>(&op.work)) return c->bytes;
  if (const auto* t = std::get_if<PeerTransfer>(&op.work)) return t->bytes;
  if (const auto* h = std::get_if<HostWork>(&op.work)) return h->memory_bytes;
  return std::get<CopyCall>(op.work).bytes;
}

double work_flops(const Op& op) {
  const auto* c = std::get_if<ComputeWork>(&op.work);
  return c != nullptr ? c->flops : 0.0;
}

bool is_host_side(const Op& op) {
  if (std::holds_alternative<HostWork>(op.work)) return true;
  const auto* c = std::get_if<CopyCall>(&op.work);
  return c != nullptr && c->direction == CopyDirection::storage_to_host;
}

}  // namespace simctl
