#include "models/network/transfer_time.hpp"

#include <algorithm>
#include <stdexcept>

namespace simctl {

double TransferTime::effective_bytes_per_s() const {
  return time > 0 ? static_cast<double>(bytes) / ps_to_seconds(time) : 0.0;
}

Bytes round_up(Bytes bytes, Bytes granularity) { return (bytes + granularity - 1) / granularity * granularity; }

TransferTime transfer_time(const std::vector<TransferStage>& stages, Bytes bytes) {
  if (bytes < 0) throw std::invalid_argument("a transfer moves a non-negative number of bytes");
  TransferTime t;
  t.bytes = bytes;
  t.bytes_moved = bytes;
  TimePs streaming = 0;
  for (const TransferStage& stage : stages) {
    if (stage.granularity < 1) throw std::invalid_argument("stage '" + stage.name + "' has a granularity below 1 B");
    const Bytes moved = round_up(bytes, stage.granularity);
    if (moved > t.bytes_moved) t.bytes_moved = moved;
    t.latency += stage.latency;
    if (stage.bandwidth.bytes_per_s <= 0) continue;
    const TimePs stream = stage.bandwidth.transfer_time(static_cast<double>(moved));
    if (t.bottleneck.empty() || stream > streaming) {
      streaming = stream;
      t.bottleneck = stage.name;
    }
  }
  t.time = t.latency + streaming;
  return t;
}

TransferTime staged(const TransferTime& first, const TransferTime& second) {
  TransferTime t = second;
  t.bytes = first.bytes;
  t.bytes_moved = std::max(first.bytes_moved, second.bytes_moved);
  t.latency = first.time + second.latency;
  t.time = first.time + second.time;
  const TimePs first_stream = first.time - first.latency;
  const TimePs second_stream = second.time - second.latency;
  t.bottleneck = first_stream >= second_stream ? first.bottleneck : second.bottleneck;
  return t;
}

TransferTime chunked_staging(const TransferTime& memcpy, const TransferTime& dma, Bytes chunk, bool to_device) {
  if (chunk < 1) throw std::invalid_argument("a staged copy's chunk must be at least 1 B");
  const Bytes chunks = std::max<Bytes>(1, (memcpy.bytes + chunk - 1) / chunk);
  const TimePs memcpy_stream = memcpy.time - memcpy.latency;
  const TimePs dma_stream = dma.time - dma.latency;
  const auto per_chunk = [chunks](TimePs stream) { return (stream + chunks - 1) / chunks; };
  TransferTime t = dma;
  t.bytes = memcpy.bytes;
  t.bytes_moved = std::max(memcpy.bytes_moved, dma.bytes_moved);
  t.latency = memcpy.latency + dma.latency + per_chunk(to_device ? memcpy_stream : dma_stream);
  const TimePs unhidden = per_chunk(memcpy_stream);
  t.time = memcpy.latency + dma.latency + unhidden + std::max(memcpy_stream - unhidden, dma_stream);
  t.bottleneck = memcpy_stream >= dma_stream ? memcpy.bottleneck : dma.bottleneck;
  return t;
}

}  // namespace simctl
