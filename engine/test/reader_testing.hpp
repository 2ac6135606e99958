#pragma once
// For the readers' tests: a source that hands out the input `step` bytes at a time, so records
// straddle every refill, and a reader's records as strings ("<null>" for NULL).
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "engine/load/record_reader.hpp"

namespace hyrax {

inline RecordReader::Source trickle(const std::string& data, size_t step) {
  auto pos = std::make_shared<size_t>(0);
  return [data, step, pos](char* buf, size_t n) {
    size_t k = std::min({n, step, data.size() - *pos});
    std::memcpy(buf, data.data() + *pos, k);
    *pos += k;
    return k;
  };
}

inline std::vector<std::vector<std::string>> recordsOf(RecordReader& r) {
  std::vector<RecordReader::Field> fields;
  std::vector<std::vector<std::string>> out;
  while (r.next(fields)) {
    out.emplace_back();
    for (auto& f : fields) out.back().push_back(f.null ? "<null>" : std::string(f.text));
  }
  return out;
}

}  // namespace hyrax
