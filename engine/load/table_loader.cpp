#include "engine/load/table_loader.hpp"

#include "engine/load/load_batch.hpp"

#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "engine/runtime/sequence_calls.hpp"
#include "engine/storage/table.hpp"
#include "engine/types/string_ref.hpp"
#include "engine/types/utf8.hpp"
#include "engine/types/interval.hpp"
#include "engine/types/text_format.hpp"
#include "engine/types/timestamp.hpp"
#include "engine/util/error.hpp"

namespace hyrax {

namespace {

constexpr uint64_t kProgressEvery = 1u << 20;  // rows between progress reports

std::string where(const LoadTarget& target, const RecordReader& reader) {
  return "COPY " + target.table->name() + ", " + target.source + " line " + std::to_string(reader.line());
}

}  // namespace

void parseFieldValue(std::string_view s, const SqlType& t, void* dst) {
  switch (t.id) {
    case TypeId::Bool: {
      uint8_t b = text::parseBool(s);
      std::memcpy(dst, &b, 1);
      return;
    }
    case TypeId::Int16: {
      auto v = static_cast<int16_t>(text::parseInt(s, t.id));
      std::memcpy(dst, &v, 2);
      return;
    }
    case TypeId::Int32: {
      auto v = static_cast<int32_t>(text::parseInt(s, t.id));
      std::memcpy(dst, &v, 4);
      return;
    }
    case TypeId::Int64: {
      int64_t v = text::parseInt(s, t.id);
      std::memcpy(dst, &v, 8);
      return;
    }
    case TypeId::Decimal: {
      int64_t v = text::parseDecimal(s, t.precision, t.scale);
      std::memcpy(dst, &v, 8);
      return;
    }
    case TypeId::Float32: {
      auto v = static_cast<float>(text::parseDouble(s));
      std::memcpy(dst, &v, 4);
      return;
    }
    case TypeId::Float64: {
      double v = text::parseDouble(s);
      std::memcpy(dst, &v, 8);
      return;
    }
    case TypeId::Date: {
      int32_t v = text::parseDate(s);
      std::memcpy(dst, &v, 4);
      return;
    }
    case TypeId::Timestamp:
    case TypeId::Time: {
      int64_t v = t.id == TypeId::Timestamp ? text::parseTimestamp(s) : text::parseTime(s);
      std::memcpy(dst, &v, 8);
      return;
    }
    case TypeId::Interval: {
      text::Interval v = text::parseInterval(s);
      std::memcpy(dst, &v, sizeof v);
      return;
    }
    case TypeId::Char:
    case TypeId::Varchar:
    case TypeId::Text: {
      if (size_t bad = invalidUtf8At(s); bad != std::string_view::npos)
        throw Error(sqlstate::CharacterNotInRepertoire, invalidUtf8Message(s, bad));
      auto v = text::fitString(s, t.id, t.length, false);  // as INSERT: trailing blanks past n go
      if (!v) throw Error(sqlstate::StringTooLong, "value too long for type " + t.name());
      StringRef r = StringRef::make(*v);  // the table copies long strings into its heap
      std::memcpy(dst, &r, sizeof(r));
      return;
    }
    default: throw Error(sqlstate::FeatureNotSupported, "COPY cannot load columns of type " + t.name());
  }
}

namespace {

// A bounded queue between the parsing thread and the appending one (loadRecords).
class BatchQueue {
 public:
  // false when the consumer has stopped (the producer should too).
  bool push(Batch b) {
    std::unique_lock<std::mutex> lock(m_);
    notFull_.wait(lock, [&] { return q_.size() < kDepth || stopped_; });
    if (stopped_) return false;
    q_.push_back(std::move(b));
    notEmpty_.notify_one();
    return true;
  }
  Batch pop() {
    std::unique_lock<std::mutex> lock(m_);
    notEmpty_.wait(lock, [&] { return !q_.empty(); });
    Batch b = std::move(q_.front());
    q_.pop_front();
    notFull_.notify_one();
    return b;
  }
  void stop() {
    std::lock_guard<std::mutex> lock(m_);
    stopped_ = true;
    notFull_.notify_all();
  }

 private:
  static constexpr size_t kDepth = 4;
  std::mutex m_;
  std::condition_variable notEmpty_, notFull_;
  std::deque<Batch> q_;
  bool stopped_ = false;
};

}  // namespace

void storeDefaultSequenceValue(const ColumnDef& column, void* out) {
  int64_t v = nextvalForSession(column.defaultSequence);
  const SqlType& t = column.type;
  if ((t.id == TypeId::Int16 && (v < INT16_MIN || v > INT16_MAX)) || (t.id == TypeId::Int32 && (v < INT32_MIN || v > INT32_MAX)))
    throw Error(sqlstate::NumericOutOfRange, t.id == TypeId::Int16 ? "smallint out of range" : "integer out of range");
  storeInteger(v, t, out);
}

void parseRecords(const LoadTarget& target, RecordReader& reader, bool skipHeader,
                  const std::function<bool(Batch&&)>& emit, FieldStatistics* stats) {
  const auto& cols = target.table->columns();
  const size_t n = target.columns.size();
  std::vector<RecordReader::Field> fields;
  Batch batch;
  auto fresh = [&] {
    batch = Batch{};
    batch.values.reset(new uint64_t[Batch::kRows * n * 2]);
    batch.nulls.reset(new uint8_t[Batch::kRows * n]);
  };
  fresh();
  try {
    if (skipHeader) reader.next(fields);
    while (reader.next(fields)) {
      if (fields.size() == n + 1 && fields.back().text.empty() && !fields.back().null) fields.pop_back();
      if (fields.size() < n)
        throw Error(sqlstate::BadCopyFormat, where(target, reader) + ": missing data for column \"" +
                                                 cols[target.columns[fields.size()]].name + "\"");
      if (fields.size() > n)
        throw Error(sqlstate::BadCopyFormat, where(target, reader) + ", column " +
                                                 std::to_string(fields[n].column) + ": extra data after last expected column");
      for (size_t i = 0; i < n; ++i) {
        const ColumnDef& col = cols[target.columns[i]];
        const size_t v = batch.rows * n + i, at = v * 2;
        batch.nulls[v] = fields[i].null;
        if (fields[i].null) {
          if (stats) (*stats)[i].add(nullptr, true);
          if (!col.type.nullable)
            throw Error(sqlstate::NotNullViolation, where(target, reader) + ": null value in column \"" + col.name +
                                                        "\" violates not-null constraint");
          continue;
        }
        try {
          parseFieldValue(fields[i].text, col.type, &batch.values[at]);
        } catch (const Error& e) {
          throw Error(e.sqlstate(), where(target, reader) + ", column " + std::to_string(fields[i].column) + " (" +
                                        col.name + "): " + e.message());
        }
        if (stats) (*stats)[i].add(&batch.values[at], false);  // a string still points into the reader's buffer
        if (col.type.isString() && fields[i].text.size() > StringRef::kInlineMax) {
          batch.longStrings.push_back({at, batch.strings.size()});
          batch.strings.append(fields[i].text);
        }
      }
      if (++batch.rows == Batch::kRows) {
        batch.bytesRead = reader.bytesRead();
        if (!emit(std::move(batch))) return;
        fresh();
      }
    }
  } catch (const Error& e) {
    batch.error = e.message().rfind("COPY ", 0) == 0
                      ? std::current_exception()
                      : std::make_exception_ptr(Error(e.sqlstate(), where(target, reader) + ": " + e.message()));
  } catch (...) {
    batch.error = std::current_exception();
  }
  batch.bytesRead = reader.bytesRead();
  batch.last = true;
  emit(std::move(batch));
}

// Unlisted columns get their DEFAULT, or NULL.
struct BatchAppender::Unlisted {
  uint32_t column;
  uint64_t value[2] = {0, 0};
  bool isNull = true;
  ColumnSequence* sequence = nullptr;  // SERIAL / IDENTITY: numbered row by row
  const ColumnDef* defaultSequence = nullptr;  // DEFAULT nextval('s'): too
};

BatchAppender::BatchAppender(const LoadTarget& target, const std::function<void(const LoadProgress&)>& progress)
    : target_(target), progress_(progress), nextReport_(kProgressEvery) {
  Table& table = *target.table;
  const auto& cols = table.columns();
  std::vector<bool> listed(cols.size(), false);
  for (uint32_t c : target.columns) listed[c] = true;
  for (uint32_t c = 0; c < cols.size(); ++c) {
    if (listed[c]) continue;
    Unlisted u{c};
    if (cols[c].defaultValue) {
      cols[c].defaultValue->encode(cols[c].type, u.value);  // strings point into the ColumnDef's Value
      u.isNull = false;
    }
    if (cols[c].defaultNow) {
      text::encodeTimeAs(cols[c].type.id, target.transactionTime, u.value);
      u.isNull = false;
    }
    if (cols[c].defaultSequence) {
      u.defaultSequence = &cols[c];
      u.isNull = false;
    }
    if (cols[c].sequence) {
      u.sequence = cols[c].sequence.get();
      u.isNull = false;
    }
    unlisted_.push_back(u);
  }
  for (size_t c = 0; c < cols.size(); ++c)
    if (!listed[c] && !cols[c].type.nullable && !cols[c].defaultValue && !cols[c].defaultNow && !cols[c].sequence &&
        !cols[c].defaultSequence)
      throw Error(sqlstate::NotNullViolation, "null value in column \"" + cols[c].name + "\" of relation \"" +
                                                  table.name() + "\" violates not-null constraint");
  before_ = table.rowCount();
  // Statistics of a table loaded from empty are gathered from the values as they are appended,
  // while other threads parse; a table that had rows is scanned once afterwards.
  if (before_ == 0)
    for (auto& c : cols) stats_.emplace_back(c.type);
}

BatchAppender::~BatchAppender() = default;

void BatchAppender::append(Batch& b) {
  Table& table = *target_.table;
  const auto& cols = table.columns();
  const size_t n = target_.columns.size();
  for (auto& [index, offset] : b.longStrings) {  // point long strings at the batch's copy
    StringRef r;
    std::memcpy(static_cast<void*>(&r), &b.values[index], sizeof(r));
    r = StringRef::make(b.strings.data() + offset, r.len);
    std::memcpy(&b.values[index], &r, sizeof(r));
  }
  for (uint32_t row = 0; row < b.rows; ++row) {
    uint64_t r = table.beginRow();
    for (size_t i = 0; i < n; ++i) {
      size_t v = row * n + i;
      table.setValue(r, target_.columns[i], &b.values[v * 2], b.nulls[v] != 0);
    }
    for (Unlisted& u : unlisted_) {
      if (u.sequence) nextSequenceValue(*u.sequence, cols[u.column].type, cols[u.column].name, u.value);
      if (u.defaultSequence) storeDefaultSequenceValue(*u.defaultSequence, u.value);
      table.setValue(r, u.column, u.value, u.isNull);
      if (!stats_.empty()) stats_[u.column].add(u.value, u.isNull);
    }
  }
  added_ += b.rows;
  if (progress_ && added_ >= nextReport_) {
    progress_({added_, b.bytesRead});
    nextReport_ += kProgressEvery;
  }
  if (b.error) std::rethrow_exception(b.error);
}

FieldStatistics BatchAppender::newFieldStatistics() const {
  FieldStatistics fields;
  for (uint32_t c : target_.columns) fields.emplace_back(target_.table->columns()[c].type);
  return fields;
}

void BatchAppender::mergeStatistics(const FieldStatistics& fields) {
  for (size_t i = 0; i < fields.size(); ++i) stats_[target_.columns[i]].merge(fields[i]);
}

uint64_t BatchAppender::finish(uint64_t bytesRead) {
  Table& table = *target_.table;
  if (progress_ && added_ >= kProgressEvery) progress_({added_, bytesRead});  // only long loads report
  if (stats_.empty()) {
    table.setStatistics(gatherStatistics(table));
  } else {
    TableStatistics ts;
    ts.rows = table.rowCount();
    for (auto& s : stats_) ts.columns.push_back(s.finish(ts.rows));
    table.setStatistics(std::move(ts));
  }
  return added_;
}

void BatchAppender::rollback() { target_.table->truncate(before_); }  // all or nothing

uint64_t loadRecords(const LoadTarget& target, RecordReader& reader, bool skipHeader,
                     const std::function<void(const LoadProgress&)>& progress) {
  BatchAppender appender(target, progress);
  // One thread reads and parses, this one appends: the two halves of the work overlap.
  BatchQueue queue;
  FieldStatistics stats = appender.newFieldStatistics();
  std::thread parser([&] {
    parseRecords(target, reader, skipHeader, [&](Batch&& b) { return queue.push(std::move(b)); },
                 appender.gathersStatistics() ? &stats : nullptr);
  });
  try {
    for (;;) {
      Batch b = queue.pop();
      appender.append(b);
      if (b.last) break;
    }
  } catch (...) {
    queue.stop();
    parser.join();
    appender.rollback();
    throw;
  }
  parser.join();
  if (appender.gathersStatistics()) appender.mergeStatistics(stats);
  return appender.finish(reader.bytesRead());
}

}  // namespace hyrax
