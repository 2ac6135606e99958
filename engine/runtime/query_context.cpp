#include "engine/runtime/query_context.hpp"

#include "engine/types/timestamp.hpp"

#include "engine/runtime/hash_table.hpp"
#include "engine/runtime/row_buffer.hpp"
#include "engine/util/huge_page_slabs.hpp"

namespace hyrax {

namespace {
// The first chunk of a statement is small: most statements of a transaction make a row or a few.
constexpr uint64_t kFirstChunkRows = 64;
}  // namespace

// In a snapshot's worker, blocks up to HugePageSlabs::kMaxBlock are cut from huge-page slabs (a
// fresh process faults them in 2 MiB at a time, not 4 KiB as from malloc); elsewhere, and for
// bigger strings, new[]. `fromSlab` says which, for freeBlock.
char* Arena::newBlock(size_t size, bool& fromSlab) {
  fromSlab = size <= HugePageSlabs::kMaxBlock && HugePageSlabs::preferred();
  if (fromSlab) return HugePageSlabs::take(size, false);  // written before read
  return new char[size];
}

void Arena::freeBlock(const Block& b) {
  if (b.fromSlab) HugePageSlabs::give(b.p, b.size);
  else delete[] b.p;
}

char* Arena::allocate(size_t n) {
  n = (n + 7) & ~size_t{7};
  if (used_ + n > capacity_) {
    size_t size = n > (1 << 16) ? n : (1 << 16);
    if (budget_) budget_->charge(size);
    try {
      blocks_.reserve(blocks_.size() + 1);
      bool fromSlab = false;
      char* p = newBlock(size, fromSlab);
      blocks_.push_back({p, size, fromSlab});
    } catch (...) {
      if (budget_) budget_->release(size);
      throw;
    }
    used_ = 0;
    capacity_ = size;
  }
  char* p = blocks_.back().p + used_;
  used_ += n;
  return p;
}

void Arena::clear() {
  while (blocks_.size() > 1) {
    if (budget_) budget_->release(blocks_.back().size);
    freeBlock(blocks_.back());
    blocks_.pop_back();
  }
  used_ = 0;
  capacity_ = blocks_.empty() ? 0 : blocks_[0].size;
}

void Arena::clearAll() {
  clear();
  if (!blocks_.empty()) {
    if (budget_) budget_->release(blocks_[0].size);
    freeBlock(blocks_[0]);
  }
  blocks_.clear();
  capacity_ = 0;
}

QueryContext::QueryContext(std::vector<SqlType> resultTypes, const std::atomic<bool>* cancel)
    : transactionTime_(text::clockMicros()), cancel_(cancel), ownTypes_(std::move(resultTypes)) {}

QueryContext::~QueryContext() = default;

void QueryContext::resetSlow() {
  // Before a procedure's statement when the one before left something (its rows, hash tables,
  // an error); most (SELECT INTO, assignments) leave nothing.
  clearError();
  hashTables_.clear();
  rowBuffers_.clear();
  results_.clear();
  workers_.clear();
  budget_.release(resultsCharged_);
  resultsCharged_ = 0;
  current_.reset();
  dirty_ = false;
}

void QueryContext::resetForCall(const std::atomic<bool>* cancel) {
  resetSlow();
  notices_.clear();
  resultTypes_ = &ownTypes_;
  arena_.clear();
  cancel_ = cancel;
  budget_.setLimit(MemoryBudget::currentLimit());  // the limit of the session that calls now
}

void QueryContext::recycle(std::vector<std::unique_ptr<ResultChunk>>& chunks) {
  constexpr size_t kSpares = 8;
  for (auto& c : chunks)
    if (c && c->view().capacity == kFirstChunkRows && spares_.size() < kSpares) spares_.push_back(std::move(c));
  chunks.clear();
}

void QueryContext::takeResults(std::vector<std::unique_ptr<ResultChunk>>& out) {
  if (current_ && current_->rowCount()) results_.push_back(std::move(current_));
  current_.reset();
  out.clear();
  std::swap(out, results_);
  budget_.release(resultsCharged_);  // the caller's now
  resultsCharged_ = 0;
}

void QueryContext::clearError() {
  errorState_.clear();
  errorMessage_.clear();
  errorDetail_.clear();
  errorNotices_.clear();
}

void QueryContext::setError(const char* sqlstate, std::string message) {
  dirty_ = true;
  if (!errorState_.empty()) return;  // the first error wins
  errorState_ = sqlstate;
  errorMessage_ = std::move(message);
}

void QueryContext::setError(const Error& e) {
  if (failed()) return;
  setError(e.sqlstate().c_str(), e.message());
  errorDetail_ = e.detail();
  errorNotices_ = e.notices();
}

HashTable* QueryContext::newHashTable(uint32_t entrySize, uint64_t expectedEntries) {
  dirty_ = true;
  hashTables_.push_back(std::make_unique<HashTable>(entrySize, expectedEntries, &budget_));
  return hashTables_.back().get();
}

RowBuffer* QueryContext::newRowBuffer(uint32_t rowSize) {
  dirty_ = true;
  rowBuffers_.push_back(std::make_unique<RowBuffer>(rowSize, &budget_));
  return rowBuffers_.back().get();
}

ResultChunkView* QueryContext::currentResult() {
  dirty_ = true;
  // The first chunk is small (most statements of a transaction make a row or a few); the
  // following ones have the full capacity.
  if (!current_) {
    uint64_t capacity = results_.empty() ? kFirstChunkRows : ResultChunk::kCapacity;
    // A spare made for these very types first (a procedure's statement runs again), then one
    // whose memory fits them.
    auto take = [&](auto it) {
      current_ = std::move(*it);
      spares_.erase(it);
    };
    for (auto it = spares_.begin(); it != spares_.end(); ++it)
      if ((*it)->owner() == resultTypes_ && (*it)->view().capacity == capacity) {
        take(it);
        current_->view().count = 0;
        return &current_->view();
      }
    for (auto it = spares_.begin(); it != spares_.end(); ++it)
      if ((*it)->fits(*resultTypes_, capacity)) {
        take(it);
        current_->reuseFor(*resultTypes_, resultTypes_);
        return &current_->view();
      }
    current_ = std::make_unique<ResultChunk>(*resultTypes_, capacity, resultTypes_);
  }
  return &current_->view();
}

void QueryContext::flushResult() {
  dirty_ = true;
  if (current_ && current_->rowCount()) {
    budget_.charge(current_->bytes());  // rows held until the statement ends count as its memory
    resultsCharged_ += current_->bytes();
    results_.push_back(std::move(current_));
  }
  current_ = std::make_unique<ResultChunk>(*resultTypes_);
}

std::unique_ptr<QueryContext> QueryContext::makeWorker() {
  auto w = std::make_unique<QueryContext>(std::vector<SqlType>{}, cancel_);
  w->resultTypes_ = resultTypes_;
  w->parameters_ = parameters_;
  w->transactionTime_ = transactionTime_;
  w->undo_ = undo_;
  w->budget_.shareWith(budget_);  // one memory_limit for all the statement's threads
  return w;
}

void QueryContext::adoptWorker(std::unique_ptr<QueryContext> worker) {
  dirty_ = true;
  std::vector<std::unique_ptr<ResultChunk>> rows;
  worker->takeResults(rows);
  appendResults(rows);
  workers_.push_back(std::move(worker));
}

size_t QueryContext::sealResults() {
  if (current_ && current_->rowCount()) flushResult();
  return results_.size();
}

void QueryContext::appendResults(std::vector<std::unique_ptr<ResultChunk>>& rows) {
  if (rows.empty()) return;
  dirty_ = true;
  // Ours first: the chunk being filled joins the full ones, and the next row starts a new one.
  if (current_ && current_->rowCount()) {
    budget_.charge(current_->bytes());
    resultsCharged_ += current_->bytes();
    results_.push_back(std::move(current_));
  }
  current_.reset();
  for (auto& c : rows) {
    budget_.charge(c->bytes());
    resultsCharged_ += c->bytes();
    results_.push_back(std::move(c));
  }
  rows.clear();
}

std::vector<std::unique_ptr<ResultChunk>> QueryContext::takeResults() {
  std::vector<std::unique_ptr<ResultChunk>> out;
  takeResults(out);
  return out;
}

ResultChunk::ResultChunk(const std::vector<SqlType>& types, uint64_t capacity, const void* owner)
    : types_(types), owner_(owner) {
  // One allocation, not zeroed: every row up to `count` is written before it is read. Columns
  // start 16-byte aligned, as separate allocations would (128-bit values).
  size_t bytes = 0;
  for (auto& t : types_) bytes += (capacity * t.byteWidth() + 15) & ~size_t{15};
  bytes_ = bytes + capacity * types_.size();
  memory_ = std::make_unique_for_overwrite<uint8_t[]>(bytes_);
  uint8_t* p = memory_.get();
  for (auto& t : types_) {
    columnPtrs_.push_back(p);
    p += (capacity * t.byteWidth() + 15) & ~size_t{15};
  }
  for (size_t c = 0; c < types_.size(); ++c, p += capacity) nullPtrs_.push_back(p);
  view_.count = 0;
  view_.capacity = capacity;
  view_.columns = columnPtrs_.data();
  view_.nulls = nullPtrs_.data();
}

bool ResultChunk::fits(const std::vector<SqlType>& types, uint64_t capacity) const {
  if (capacity != view_.capacity || types.size() != types_.size()) return false;
  for (size_t c = 0; c < types.size(); ++c)
    if (types[c].byteWidth() != types_[c].byteWidth()) return false;
  return true;
}

void ResultChunk::reuseFor(const std::vector<SqlType>& types, const void* owner) {
  types_ = types;
  owner_ = owner;
  view_.count = 0;
}

}  // namespace hyrax
