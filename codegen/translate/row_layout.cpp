#include "codegen/translate/row_layout.hpp"

namespace hyrax::codegen {

uint32_t RowLayout::add(const SqlType& t) {
  uint32_t w = t.byteWidth();
  uint32_t align = t.isTwoWords() ? 8 : w;
  size_ = (size_ + align - 1) / align * align;
  Field f{t, size_, -1};
  size_ += w;
  if (t.nullable) f.nullOffset = static_cast<int32_t>(size_++);
  fields_.push_back(f);
  return static_cast<uint32_t>(fields_.size() - 1);
}

void RowLayout::store(CodeGen& cg, llvm::Value* row, uint32_t field, const SqlValue& v) const {
  const Field& f = fields_[field];
  SqlValue typed = v;
  typed.type = f.type;
  cg.storeValue(cg.gep(row, f.offset), typed);
  if (f.nullOffset >= 0) {
    llvm::Value* n = v.type.id == TypeId::Null ? cg.cTrue() : (v.null ? v.null : cg.cFalse());
    cg.b.CreateStore(cg.b.CreateZExt(n, cg.i8()), cg.gep(row, f.nullOffset));
  }
}

SqlValue RowLayout::load(CodeGen& cg, llvm::Value* row, uint32_t field) const {
  const Field& f = fields_[field];
  SqlValue v = cg.loadValue(cg.gep(row, f.offset), f.type);
  v.type = f.type;
  if (f.nullOffset >= 0) v.null = cg.b.CreateICmpNE(cg.b.CreateLoad(cg.i8(), cg.gep(row, f.nullOffset)), cg.c8(0));
  return v;
}

}  // namespace hyrax::codegen
