// loadDelimited: COPY's text and csv input parsed on many threads (table_loader.hpp).
//
// Why chunks of whole records and not blocks: a record's fields can only be parsed from its start,
// so the cut is found first, sequentially and cheaply (record_boundaries.cpp: a backward search
// for an unescaped line break, or a forward quote scan for csv), and everything expensive (the
// field scan, escapes, conversion to the columns' types, checks) runs in parallel. Each chunk
// knows its first line and its offset in the input, so errors and progress read as if one thread
// had parsed it all. Chunks are appended in input order by the calling thread, so rows keep the
// input's order, DEFAULT nextval() numbers rows in order, and the first bad record in the input is
// the one reported even when a later chunk failed first.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>

#include "engine/load/load_batch.hpp"
#include "engine/load/record_boundaries.hpp"
#include "engine/load/table_loader.hpp"
#include "engine/util/worker_pool.hpp"

namespace hyrax {

namespace {

struct Chunk {
  std::string text;  // whole records
  uint64_t firstLine = 1;
  uint64_t offset = 0;  // bytes of the input before it
  bool first = false;   // holds the header line, if the format has one
  std::vector<Batch> batches;
  FieldStatistics stats;  // of its values, when the load gathers statistics
  bool endMarker = false;  // a line `\.` ended the data in this chunk: what follows is not loaded
  std::exception_ptr readError;  // reading the source failed here (cancel, I/O, a record too long)
  bool parsed = false;
};

// Cuts the source into chunks of about `chunkBytes` ending at a record's end; the bytes after the
// cut start the next chunk. A record longer than a chunk makes the chunk grow (doubling) up to
// kMaxRecord, as BlockInput does.
class ChunkCutter {
 public:
  ChunkCutter(RecordReader::Source source, const CopyFormat& format, size_t chunkBytes)
      : source_(std::move(source)), format_(format), chunkBytes_(std::max<size_t>(chunkBytes, 1)) {}

  // The next chunk, false when the input is used up. Throws the source's errors.
  bool next(Chunk& c) {
    if (eof_ && carry_.empty()) return false;
    std::string buf = std::move(carry_);
    carry_.clear();
    size_t want = chunkBytes_;
    RecordCut cut;
    for (;;) {
      size_t have = buf.size();
      if (have < want && !eof_) {
        buf.resize(want);
        while (have < want) {
          size_t got = source_(buf.data() + have, want - have);
          if (got == 0) {
            eof_ = true;
            break;
          }
          have += got;
        }
        buf.resize(have);
      }
      if (eof_) {
        cut.end = buf.size();  // the rest is the last chunk, a final record without line break included
        break;
      }
      cut = lastRecordEnd(buf, format_);
      if (cut.end > 0) break;
      if (want >= kMaxRecord) failRecordTooLong(line_);
      want *= 2;
    }
    if (cut.end == 0) return false;  // the input ended right at the previous cut
    carry_.assign(buf, cut.end, std::string::npos);
    buf.resize(cut.end);
    c.text = std::move(buf);
    c.firstLine = line_;
    c.offset = offset_;
    c.first = offset_ == 0;
    line_ += cut.lines;
    offset_ += cut.end;
    return true;
  }

  uint64_t bytesRead() const { return offset_; }

 private:
  RecordReader::Source source_;
  const CopyFormat& format_;
  const size_t chunkBytes_;
  std::string carry_;  // the start of a record the last chunk did not complete
  uint64_t line_ = 1, offset_ = 0;
  bool eof_ = false;
};

// The state the threads share: chunks in input order, from cut to appended.
class ChunkedLoad {
 public:
  ChunkedLoad(const LoadTarget& target, RecordReader::Source source, const CopyFormat& format, uint32_t threads,
              size_t chunkBytes, BatchAppender& appender)
      : target_(target), format_(format), cutter_(std::move(source), format, chunkBytes), appender_(appender),
        maxPending_(2 * static_cast<size_t>(threads) + 2) {}

  // Thread 0 (the caller): appends chunks in order as they are parsed, parsing while it waits.
  void leader() {
    try {
      for (;;) {
        if (appendParsed()) break;
        if (hasRoom()) {
          if (Chunk* c = cutNext()) parse(*c);
          continue;
        }
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return (!pending_.empty() && pending_.front()->parsed) || (pending_.empty() && inputDone_); });
      }
    } catch (...) {
      error_ = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(m_);
    stop_ = true;  // the helpers stop after the chunk they hold
    cv_.notify_all();
  }

  // Threads 1..n-1: parse the next chunk while there is input and room for it.
  void helper() {
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return stop_ || inputDone_ || pending_.size() < maxPending_; });
        if (stop_ || inputDone_) return;
      }
      Chunk* c = cutNext();
      if (!c) return;
      parse(*c);
    }
  }

  std::exception_ptr error() const { return error_; }
  uint64_t bytesRead() const { return cutter_.bytesRead(); }

 private:
  bool hasRoom() {
    std::lock_guard<std::mutex> lock(m_);
    return !inputDone_ && pending_.size() < maxPending_;
  }

  // Cuts the next chunk and queues it; null when there is nothing to parse (input done, stopped,
  // or the read failed: the failure is queued in order, for the leader to throw).
  Chunk* cutNext() {
    std::lock_guard<std::mutex> cutting(cutM_);  // one cutter at a time; chunks queue in input order
    {
      std::lock_guard<std::mutex> lock(m_);
      if (stop_ || inputDone_) return nullptr;
    }
    auto c = std::make_unique<Chunk>();
    bool got = false;
    try {
      got = cutter_.next(*c);
    } catch (...) {
      c->readError = std::current_exception();
      c->parsed = true;
    }
    std::lock_guard<std::mutex> lock(m_);
    if (!got) inputDone_ = true;
    if (!got && !c->readError) {
      cv_.notify_all();
      return nullptr;
    }
    Chunk* p = c.get();
    pending_.push_back(std::move(c));
    cv_.notify_all();
    return p->readError ? nullptr : p;
  }

  void parse(Chunk& c) {
    DelimitedReader reader(std::move(c.text), format_, c.firstLine);
    if (appender_.gathersStatistics()) c.stats = appender_.newFieldStatistics();
    parseRecords(
        target_, reader, c.first && format_.header,
        [&](Batch&& b) {
          b.bytesRead += c.offset;
          c.batches.push_back(std::move(b));
          return !stop_.load(std::memory_order_relaxed);
        },
        c.stats.empty() ? nullptr : &c.stats);
    c.endMarker = reader.endedByMarker();
    std::lock_guard<std::mutex> lock(m_);
    c.parsed = true;
    cv_.notify_all();
  }

  // Appends the parsed chunks at the front of the queue. True when the load is complete.
  bool appendParsed() {
    for (;;) {
      std::unique_ptr<Chunk> c;
      {
        std::lock_guard<std::mutex> lock(m_);
        if (pending_.empty()) return inputDone_;
        if (!pending_.front()->parsed) return false;
        c = std::move(pending_.front());
        pending_.pop_front();
        cv_.notify_all();
      }
      if (c->readError) std::rethrow_exception(c->readError);
      for (Batch& b : c->batches) appender_.append(b);  // throws a batch's error after its rows
      if (!c->stats.empty()) appender_.mergeStatistics(c->stats);
      if (c->endMarker) return true;
    }
  }

  const LoadTarget& target_;
  const CopyFormat& format_;
  ChunkCutter cutter_;  // under cutM_
  BatchAppender& appender_;
  const size_t maxPending_;  // chunks cut and not yet appended: bounds the memory in flight
  std::mutex cutM_, m_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<Chunk>> pending_;  // under m_
  bool inputDone_ = false;                      // under m_
  std::atomic<bool> stop_{false};               // set under m_
  std::exception_ptr error_;
};

}  // namespace

uint64_t loadDelimited(const LoadTarget& target, RecordReader::Source source, const CopyFormat& format,
                       uint32_t threads, const std::function<void(const LoadProgress&)>& progress, size_t chunkBytes) {
  if (threads <= 1) {
    DelimitedReader reader(std::move(source), format);
    return loadRecords(target, reader, format.header, progress);
  }
  BatchAppender appender(target, progress);
  ChunkedLoad load(target, std::move(source), format, threads, chunkBytes, appender);
  runOnWorkers(threads, [&](uint32_t t) {
    if (t == 0) load.leader();
    else load.helper();
  });
  if (load.error()) {
    appender.rollback();
    std::rethrow_exception(load.error());
  }
  return appender.finish(load.bytesRead());
}

}  // namespace hyrax
