#include "engine/storage/table.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>

#include "engine/index/index.hpp"
#include "engine/storage/string_heap.hpp"
#include "engine/util/error.hpp"
#include "engine/util/huge_page_keeper.hpp"
#include "engine/util/huge_pages.hpp"

namespace hyrax {

void nextSequenceValue(ColumnSequence& seq, const SqlType& t, const std::string& column, void* out) {
  int64_t max = t.id == TypeId::Int16 ? INT16_MAX : t.id == TypeId::Int32 ? INT32_MAX : INT64_MAX;
  if (seq.next > max)
    throw Error("2200H", "nextval: reached maximum value of the sequence of column \"" + column + "\" (" +
                             std::to_string(max) + ")");
  storeInteger(seq.next++, t, out);
}

void storeInteger(int64_t v, const SqlType& t, void* out) {
  if (t.id == TypeId::Int16) {
    auto x = static_cast<int16_t>(v);
    std::memcpy(out, &x, sizeof x);
  } else if (t.id == TypeId::Int32) {
    auto x = static_cast<int32_t>(v);
    std::memcpy(out, &x, sizeof x);
  } else {
    std::memcpy(out, &v, sizeof v);
  }
}

// A chunk's columns (then their NULL bitmaps) are slices of one private anonymous mapping: a
// fork() sees it copy-on-write, and a big aligned mapping can sit on huge pages (a random row
// touches one page per column). Pages are touched only when rows arrive. A table's first chunk
// starts on small pages, so a table of a few rows holds a few pages; when it fills, and for every
// chunk after it, huge pages (engine/util/huge_pages.hpp).
Table::Chunk::Chunk(const std::vector<Layout>& layout, size_t size, bool huge) : bytes(size) {
  mapping = mapAligned(bytes, huge);
  if (huge) keepOnHugePages(mapping, bytes);
  char* at = static_cast<char*>(mapping);
  for (const Layout& l : layout) {
    data.push_back(at + l.offset);
    nulls.push_back(l.nullable ? reinterpret_cast<uint8_t*>(at + l.nullOffset) : nullptr);
  }
}

Table::Chunk::~Chunk() { unmapAligned(mapping, bytes); }

Table::Table(std::string name, std::vector<ColumnDef> columns, std::vector<uint32_t> primaryKey)
    : name_(std::move(name)), columns_(std::move(columns)), primaryKey_(std::move(primaryKey)),
      heap_(std::make_shared<StringHeap>()) {
  for (auto& c : columns_) {
    layout_.push_back({chunkBytes_, 0, c.type.byteWidth(), c.type.isVarBytes(), c.type.nullable});
    chunkBytes_ += static_cast<size_t>(c.type.byteWidth()) * kChunkRows;
  }
  for (Layout& l : layout_)
    if (l.nullable) {
      l.nullOffset = chunkBytes_;
      chunkBytes_ += kChunkRows / 8;
    }
  chunkBytes_ = std::max<size_t>(chunkBytes_, 1);  // a table without columns still has rows
  forgetOrder();
}

StringRef Table::copyToHeap(StringRef s) { return StringRef::make(heap_->add(s.data(), s.len), s.len); }

Table::~Table() = default;

uint64_t Table::beginRow() {
  ++changes_;
  if (chunks_.empty() || chunks_.back()->rows == kChunkRows) {
    if (chunks_.size() == 1) {
      adviseHuge(chunks_[0]->mapping, roundToHugePages(chunks_[0]->bytes));
      keepOnHugePages(chunks_[0]->mapping, chunks_[0]->bytes);
    }
    bool huge = !chunks_.empty();  // a table past its first chunk is a big one
    chunks_.push_back(std::make_unique<Chunk>(layout_, chunkBytes_, huge));
    bases_.push_back(static_cast<char*>(chunks_.back()->mapping));
    chunkBase_ = bases_.data();
    if (huge) prefaultInBackground(chunks_.back()->mapping, roundToHugePages(chunks_.back()->bytes));
  }
  ++chunks_.back()->rows;  // its NULL bits are clear: new memory is zero, and truncate clears them
  return rows_++;
}

void Table::setValue(uint64_t row, uint32_t column, const void* src, bool isNull, bool copyString) {
  put(slotOf(row), column, isNull ? nullptr : src, copyString);
}

void Table::overwriteValue(uint64_t row, uint32_t column, const void* src, bool isNull, bool copyString) {
  overwrite(slotOf(row), column, isNull ? nullptr : src, copyString);
}

void Table::copyRow(uint64_t from, uint64_t to) {
  for (uint32_t c = 0; c < columns_.size(); ++c) overwriteValue(to, c, valuePtr(from, c), isNull(from, c), false);
}

Index* Table::findIndex(const std::string& name) const {
  for (auto& i : indexes_)
    if (i->name() == name) return i.get();
  return nullptr;
}

Index& Table::addIndex(std::unique_ptr<Index> index) {
  indexes_.push_back(std::move(index));
  return *indexes_.back();
}

std::unique_ptr<Index> Table::removeIndex(const std::string& name) {
  for (auto it = indexes_.begin(); it != indexes_.end(); ++it)
    if ((*it)->name() == name) {
      auto i = std::move(*it);
      indexes_.erase(it);
      return i;
    }
  return nullptr;
}

void Table::appendRow(const Value* values) {
  uint64_t row = beginRow();
  for (uint32_t c = 0; c < columns_.size(); ++c) {
    const Value& v = values[c];
    const SqlType& t = columns_[c].type;
    if (v.isNull()) {
      setValue(row, c, nullptr, true);
      continue;
    }
    uint8_t buf[16] = {};
    v.encode(t, buf);
    setValue(row, c, buf, false);
  }
}

void Table::truncate(uint64_t rows) {
  if (rows >= rows_) return;
  ++changes_;
  // The rows that go leave their NULL bits clear for the rows appended there later (beginRow
  // does not clear them); rows of chunks that go entirely go with their memory.
  if (uint32_t first = static_cast<uint32_t>(rows % kChunkRows)) {  // a chunk kept in part
    Chunk& c = *chunks_[rows / kChunkRows];
    for (uint8_t* bitmap : c.nulls)
      for (uint32_t r = first; bitmap && r < c.rows; ++r) bitmap[r >> 3] &= static_cast<uint8_t>(~(1u << (r & 7)));
  }
  size_t keepChunks = static_cast<size_t>((rows + kChunkRows - 1) / kChunkRows);
  chunks_.resize(keepChunks);
  bases_.resize(keepChunks);
  chunkBase_ = bases_.data();
  if (!chunks_.empty()) chunks_.back()->rows = static_cast<uint32_t>(rows - (keepChunks - 1) * uint64_t{kChunkRows});
  rows_ = rows;
}

// Everything replaceColumns changes, so that an undo puts back exactly what was there.
struct Table::Storage {
  std::vector<ColumnDef> columns;
  std::vector<uint32_t> primaryKey;
  std::vector<std::unique_ptr<Chunk>> chunks;
  std::vector<Layout> layout;
  size_t chunkBytes = 0;
  std::vector<char*> bases;
  std::shared_ptr<const TableStatistics> stats;
};

std::shared_ptr<Table::Storage> Table::replaceColumns(std::vector<ColumnDef> columns, std::vector<uint32_t> primaryKey,
                                                      const std::vector<int64_t>& from) {
  assert(from.size() == columns.size());
  Table shape(name_, std::move(columns), std::move(primaryKey));  // the new layout, as CREATE TABLE makes it
  auto before = std::make_shared<Storage>();
  before->columns = std::move(columns_);
  before->primaryKey = std::move(primaryKey_);
  before->chunks = std::move(chunks_);
  before->layout = std::move(layout_);
  before->chunkBytes = chunkBytes_;
  before->bases = std::move(bases_);
  before->stats = std::move(stats_);
  columns_ = std::move(shape.columns_);
  primaryKey_ = std::move(shape.primaryKey_);
  layout_ = std::move(shape.layout_);
  chunkBytes_ = shape.chunkBytes_;
  chunks_.clear();
  bases_.clear();
  for (size_t k = 0; k < before->chunks.size(); ++k) {
    const Chunk& old = *before->chunks[k];
    bool huge = k > 0 || before->chunks.size() > 1;  // as beginRow leaves a table past its first chunk
    chunks_.push_back(std::make_unique<Chunk>(layout_, chunkBytes_, huge));
    Chunk& c = *chunks_.back();
    c.rows = old.rows;
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (from[i] == kNewColumn) continue;  // fresh memory: zeros, NULL bits clear
      auto o = static_cast<size_t>(from[i]);
      std::memcpy(c.data[i], old.data[o], static_cast<size_t>(layout_[i].width) * old.rows);
      if (c.nulls[i] && old.nulls[o]) std::memcpy(c.nulls[i], old.nulls[o], (old.rows + 7) / 8);
    }
    bases_.push_back(static_cast<char*>(c.mapping));
  }
  chunkBase_ = bases_.data();
  ++changes_;
  forgetOrder();
  return before;
}

void Table::restoreStorage(const std::shared_ptr<Storage>& before) {
  columns_ = std::move(before->columns);
  primaryKey_ = std::move(before->primaryKey);
  chunks_ = std::move(before->chunks);
  layout_ = std::move(before->layout);
  chunkBytes_ = before->chunkBytes;
  bases_ = std::move(before->bases);
  chunkBase_ = bases_.data();
  stats_ = std::move(before->stats);
  rows_ = 0;
  for (auto& c : chunks_) rows_ += c->rows;
  ++changes_;
  forgetOrder();
}

void Table::setColumnDefault(uint32_t column, const ColumnDef& withDefault) {
  ColumnDef& c = columns_[column];
  c.defaultValue = withDefault.defaultValue;
  c.defaultNow = withDefault.defaultNow;
  c.defaultSequence = withDefault.defaultSequence;
}

std::vector<std::unique_ptr<Index>> Table::swapIndexes(std::vector<std::unique_ptr<Index>> indexes) {
  std::swap(indexes, indexes_);
  return indexes;
}

Value Table::getValue(uint64_t row, uint32_t column) const {
  const SqlType& t = columns_[column].type;
  return isNull(row, column) ? Value::null(t) : Value::decode(t, valuePtr(row, column));
}

}  // namespace hyrax
