#pragma once
// Where materialized rows keep their values (hash table entries, sort buffers): each IU gets an
// offset, nullable ones a NULL byte. Natural alignment, so loads stay aligned on ARM too.
#include <cstdint>
#include <vector>

#include "codegen/ir/codegen.hpp"

namespace hyrax::codegen {

class RowLayout {
 public:
  // `start` is where the first field may go (16 for hash table entries, after next + hash).
  explicit RowLayout(uint32_t start = 0) : size_(start) {}

  // Adds a field for a value of type t; returns its index.
  uint32_t add(const SqlType& t);
  uint32_t size() const { return (size_ + 7) & ~7u; }

  void store(CodeGen& cg, llvm::Value* row, uint32_t field, const SqlValue& v) const;
  SqlValue load(CodeGen& cg, llvm::Value* row, uint32_t field) const;
  uint32_t offset(uint32_t field) const { return fields_[field].offset; }
  int32_t nullOffset(uint32_t field) const { return fields_[field].nullOffset; }  // -1: cannot be NULL
  const SqlType& type(uint32_t field) const { return fields_[field].type; }

 private:
  struct Field {
    SqlType type;
    uint32_t offset;
    int32_t nullOffset;  // -1: cannot be NULL
  };
  std::vector<Field> fields_;
  uint32_t size_;
};

}  // namespace hyrax::codegen
