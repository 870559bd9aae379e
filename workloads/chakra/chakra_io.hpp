#pragma once
// Reading and writing ET files: a GlobalMetadata message and then Node
// messages, each prefixed by its length as a varint (chakra's protolib).
#include <string>
#include <vector>

#include "et_def.pb.h"

namespace simctl::chakra_detail {

struct EtFile {
  std::string path;
  ChakraProtoMsg::GlobalMetadata metadata;
  std::vector<ChakraProtoMsg::Node> nodes;
};

// Plain or gzipped (chakra's protolib reads both). ChakraError names the
// file and the byte where a message does not parse.
EtFile read_et_file(const std::string& path);
void write_et_file(const std::string& path, const ChakraProtoMsg::GlobalMetadata& metadata,
                   const std::vector<ChakraProtoMsg::Node>& nodes);

// The attribute named `name`, or nullptr.
const ChakraProtoMsg::AttributeProto* find_attr(
    const google::protobuf::RepeatedPtrField<ChakraProtoMsg::AttributeProto>& attrs, const std::string& name);

}  // namespace simctl::chakra_detail
