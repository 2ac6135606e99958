#pragma once
// The rows a Sort collects (and other materialisations): fixed-size rows in stable memory, read in
// an order the sort sets. With a limit (ORDER BY ... LIMIT k), it keeps only the first k rows
// in the sort's order as rows come: whenever the rows reach k plus a batch, it sorts them and
// drops the rest, so memory stays O(k) however many rows the input has (top-k); from then on a
// row that does not come before the k-th kept one is dropped as soon as it is complete.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/runtime/block_storage.hpp"
#include "engine/runtime/row_sort.hpp"

namespace hyrax {

class RowBuffer {
 public:
  using Compare = RowCompare;

  explicit RowBuffer(uint32_t rowSize, MemoryBudget* budget = nullptr)
      : rowSize_(rowSize), budget_(budget), rows_(rowSize, budget) {}
  ~RowBuffer() {
    if (budget_) budget_->release(orderCharged_);
  }
  RowBuffer(const RowBuffer&) = delete;
  RowBuffer& operator=(const RowBuffer&) = delete;

  // A zeroed row; throws Error 53200 past the budget.
  void* append() {
    // Top-k with k rows kept: the row appended last (complete now) is dropped at once, its place
    // reused, when it does not come before the k-th kept row: a later row equal to it comes after
    // it in the stable order too. Most rows of a long input then cost one comparison instead of
    // a place in the next batch's sort (TPC-H Q3's top 10 of 11,620 groups: the pipeline that fills
    // the buffer 1.5-1.8 ms with a sort of 1,034 rows every 1,024, 0.26-0.41 ms so).
    if (cutoff_ && order_.size() > limit_ && cmp_(order_.back(), cutoff_) >= 0) {
      void* p = order_.back();
      std::memset(p, 0, rowSize_);
      return p;
    }
    if (order_.size() == compactAt_) keepFirstRows();
    if (order_.size() == order_.capacity()) reserveOrder(1);
    void* p = rows_.append();
    order_.push_back(p);
    return p;
  }
  uint64_t count() const { return order_.size(); }
  void* row(uint64_t i) const { return order_[i]; }
  uint32_t rowSize() const { return rowSize_; }

  // Parallel runs: a helper thread's buffer keeps the first rows as this one does (top-k), and
  // its rows are then taken in here.
  void keepFirstLike(RowBuffer& helper) const {
    if (cmp_) helper.keepFirst(limit_, cmp_);
  }
  // Without a limit they stay in the helper's blocks, which this buffer keeps (their charge is
  // in the statement's one count: its threads' budgets share it); the order takes their places.
  // Copying them on the session's thread took longer than the threads' whole pipeline (100,000
  // rows of 64 bytes: 3-7 ms). A top-k buffer copies the few it keeps (keepFirstRows moves its
  // rows into storage of its own). The helper's copy of a row was freed, as its context lives as
  // long as the statement does, and so did a second copy of every row.
  void absorb(RowBuffer& other) {
    const bool oneCount = budget_ == other.budget_ || (budget_ && budget_->sameCount(other.budget_));
    if (!cmp_ && !other.cmp_ && oneCount && other.rowSize_ == rowSize_) {
      reserveOrder(other.order_.size());
      order_.insert(order_.end(), other.order_.begin(), other.order_.end());
      other.rows_.releaseTo(budget_);
      adopted_.push_back(std::move(other.rows_));
    } else {
      for (void* from : other.order_) std::memcpy(append(), from, rowSize_);
    }
    other.rows_ = BlockStorage(other.rowSize_, other.budget_);
    other.cutoff_ = nullptr;
    std::vector<void*>().swap(other.order_);
    if (other.budget_) other.budget_->release(other.orderCharged_);
    other.orderCharged_ = 0;
  }

  // Stable: rows that compare equal keep the order they came in. With threads > 1 and many rows,
  // each thread sorts a run of them and the runs are then merged (stably, earlier runs first).
  // `keys`, when given, are the rows' ORDER BY keys in `cmp`'s order (row_sort.hpp).
  void sort(Compare cmp, uint32_t threads = 1, const SortKeyEncoder* keys = nullptr) {
    cutoff_ = nullptr;  // (the last row need not be the newest any more)
    sortRows(order_, cmp, keys, threads, budget_);
  }
  // After sort(): of each run of rows that `samePartition` calls equal, only the rows from `offset`
  // on, at most `limit` of them, stay (a LIMIT per outer value of a correlated subquery). With
  // `rankAt` >= 0, each kept row gets its place in its run (0, 1 ...) as an int64 at that offset.
  void keepPerPartition(Compare samePartition, uint64_t offset, uint64_t limit, int64_t rankAt = -1) {
    size_t kept = 0;
    uint64_t rank = 0;
    const void* previous = nullptr;
    for (size_t i = 0; i < order_.size(); ++i) {
      void* row = order_[i];
      rank = previous && samePartition(previous, row) == 0 ? rank + 1 : 0;
      previous = row;
      if (rank < offset || rank - offset >= limit) continue;
      if (rankAt >= 0) std::memcpy(static_cast<char*>(row) + rankAt, &rank, sizeof rank);
      order_[kept++] = row;
    }
    order_.resize(kept);
  }
  // After sort(): the bounds window functions need, for each row as four int64 at `at`, positions
  // in the sorted order: where its partition (a run of rows `samePartition` calls equal) starts
  // and ends (one past its last row), and where its peers (rows `samePeers` calls equal: the
  // partition and ORDER BY keys alike) start and end.
  void windowFrames(Compare samePartition, Compare samePeers, int64_t at) {
    const size_t n = order_.size();
    auto bounds = [&](size_t i) { return reinterpret_cast<int64_t*>(static_cast<char*>(order_[i]) + at); };
    int64_t partitionStart = 0, peerStart = 0;
    for (size_t i = 0; i < n; ++i) {
      if (i > 0 && samePartition(order_[i - 1], order_[i]) != 0) partitionStart = peerStart = static_cast<int64_t>(i);
      else if (i > 0 && samePeers(order_[i - 1], order_[i]) != 0) peerStart = static_cast<int64_t>(i);
      int64_t* b = bounds(i);
      b[0] = partitionStart;
      b[2] = peerStart;
    }
    int64_t partitionEnd = static_cast<int64_t>(n), peerEnd = static_cast<int64_t>(n);
    for (size_t i = n; i-- > 0;) {
      int64_t* b = bounds(i);
      b[1] = partitionEnd;
      b[3] = peerEnd;
      if (b[0] == static_cast<int64_t>(i)) partitionEnd = peerEnd = static_cast<int64_t>(i);
      else if (b[2] == static_cast<int64_t>(i)) peerEnd = static_cast<int64_t>(i);
    }
  }
  // From now on only the first `limit` rows in `cmp`'s order matter; the rest may be dropped.
  // (A stable sort then gives the same first rows as sorting everything.)
  void keepFirst(uint64_t limit, Compare cmp) {
    limit_ = limit;
    cmp_ = cmp;
    // Batches of at least kMinBatch rows: each sort costs O((k + batch) log), so a row costs O(log).
    compactAt_ = limit + std::max(limit, kMinBatch);
  }

 private:
  static constexpr uint64_t kMinBatch = 1024;
  // Sorts, keeps the first limit_ rows, and moves them into fresh storage (freeing the rest).
  void keepFirstRows() {
    sort(cmp_);
    order_.resize(limit_);
    BlockStorage kept(rowSize_, budget_);
    for (void*& p : order_) {
      void* q = kept.append();
      std::memcpy(q, p, rowSize_);
      p = q;
    }
    rows_ = std::move(kept);
    cutoff_ = limit_ ? order_.back() : nullptr;
  }

  // Room in the order for `more` rows, at least doubling it; the growth counts too.
  void reserveOrder(size_t more) {
    if (order_.size() + more <= order_.capacity()) return;
    const size_t capacity = std::max({order_.size() + more, 2 * order_.capacity(), size_t{16}});
    if (budget_) {
      const uint64_t bytes = (capacity - order_.capacity()) * sizeof(void*);
      budget_->charge(bytes);
      orderCharged_ += bytes;
    }
    order_.reserve(capacity);
  }

  uint32_t rowSize_;
  MemoryBudget* budget_;
  uint64_t orderCharged_ = 0;
  BlockStorage rows_;
  std::vector<BlockStorage> adopted_;  // helpers' rows (absorb)
  std::vector<void*> order_;
  uint64_t limit_ = 0;
  uint64_t compactAt_ = UINT64_MAX;  // no limit: never
  Compare cmp_ = nullptr;
  const void* cutoff_ = nullptr;  // top-k: the k-th row kept, once the first batch was sorted
};

}  // namespace hyrax
