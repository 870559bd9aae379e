#pragma once
// Short words for an op's work, shared by the CSV tables and the trace.
#include <string>

#include "workloads/trace.hpp"

namespace simctl {

std::string_view stream_name(Stream s);
std::string work_kind(const Op& op);       // "gemm", "all_reduce", "send", "host_to_device"...
std::string work_dimension(const Op& op);  // parallel dimension of communication, else ""
double work_bytes(const Op& op);           // bytes moved (communication, copies) or touched (compute)
double work_flops(const Op& op);           // compute ops only, else 0
bool is_host_side(const Op& op);           // storage -> host reads: the host's work, not the GPU's

}  // namespace simctl
