#include "engine/load/table_loader.hpp"

#include <cstring>

#include "engine/storage/table.hpp"
#include "engine/types/text_format.hpp"
#include "engine/util/error.hpp"

namespace hyrax {

namespace {

constexpr uint64_t kProgressEvery = 1u << 20;  // rows between progress reports

// The field's value in the column's physical representation (dst holds 16 bytes).
void parseField(std::string_view s, const SqlType& t, void* dst) {
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
    case TypeId::Char:
    case TypeId::Varchar:
    case TypeId::Text: {
      if (t.length && s.size() > t.length)
        throw Error(sqlstate::StringTooLong, "value too long for type " + t.name());
      StringRef r = StringRef::make(s);  // the table copies long strings into its heap
      std::memcpy(dst, &r, sizeof(r));
      return;
    }
    default: throw Error(sqlstate::FeatureNotSupported, "COPY cannot load columns of type " + t.name());
  }
}

std::string where(const LoadTarget& target, const DelimitedReader& reader) {
  return "COPY " + target.table->name() + ", " + target.source + " line " + std::to_string(reader.line());
}

}  // namespace

uint64_t loadRecords(const LoadTarget& target, DelimitedReader& reader, bool skipHeader,
                     const std::function<void(const LoadProgress&)>& progress) {
  Table& table = *target.table;
  const auto& cols = table.columns();
  std::vector<bool> listed(cols.size(), false);
  for (uint32_t c : target.columns) listed[c] = true;
  for (size_t c = 0; c < cols.size(); ++c)
    if (!listed[c] && !cols[c].type.nullable)
      throw Error(sqlstate::NotNullViolation, "null value in column \"" + cols[c].name + "\" of relation \"" +
                                                  table.name() + "\" violates not-null constraint");
  const size_t n = target.columns.size();
  const uint64_t before = table.rowCount();
  uint64_t added = 0;
  std::vector<DelimitedReader::Field> fields;
  uint64_t value[2];
  const uint64_t zero[2] = {0, 0};
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
      uint64_t row = table.beginRow();
      for (size_t i = 0; i < n; ++i) {
        const uint32_t c = target.columns[i];
        const ColumnDef& col = cols[c];
        if (fields[i].null) {
          if (!col.type.nullable) {
            table.truncate(row);  // this row is not complete; the catch below undoes the rest
            throw Error(sqlstate::NotNullViolation, where(target, reader) + ": null value in column \"" + col.name +
                                                        "\" violates not-null constraint");
          }
          table.setValue(row, c, zero, true);
          continue;
        }
        try {
          parseField(fields[i].text, col.type, value);
        } catch (const Error& e) {
          throw Error(e.sqlstate(), where(target, reader) + ", column " + std::to_string(fields[i].column) + " (" +
                                        col.name + "): " + e.message());
        }
        table.setValue(row, c, value, false);
      }
      for (size_t c = 0; c < cols.size(); ++c)
        if (!listed[c]) table.setValue(row, static_cast<uint32_t>(c), zero, true);
      ++added;
      if (progress && added % kProgressEvery == 0) progress({added, reader.bytesRead()});
    }
  } catch (const Error& e) {
    table.truncate(before);
    if (e.message().rfind("COPY ", 0) == 0) throw;
    throw Error(e.sqlstate(), where(target, reader) + ": " + e.message());
  } catch (...) {
    table.truncate(before);
    throw;
  }
  if (progress && added >= kProgressEvery) progress({added, reader.bytesRead()});  // only long loads report
  return added;
}

}  // namespace hyrax
