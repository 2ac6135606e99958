#include <algorithm>
#include <cstring>

#include "engine/load/record_reader.hpp"
#include "engine/util/error.hpp"

namespace hyrax {

void failRecordTooLong(uint64_t line) {
  throw Error(sqlstate::ProgramLimitExceeded, "record at line " + std::to_string(line) + " is longer than " +
                                                  std::to_string(kMaxRecord >> 20) + " MB (is the input a text file?)");
}

BlockInput::BlockInput(RecordReader::Source s, size_t block) : source(std::move(s)) {
  buf.resize(std::max<size_t>(block, 1));
}

bool BlockInput::fill(uint64_t line) {
  if (eof) return false;
  // Keep the unread tail; grow when one record is larger than the buffer.
  if (pos > 0) {
    std::memmove(buf.data(), buf.data() + pos, size - pos);
    size -= pos;
    pos = 0;
  }
  if (size == buf.size()) {
    if (buf.size() >= kMaxRecord) failRecordTooLong(line);
    buf.resize(buf.size() * 2);
  }
  // Read until the buffer is full or the input ends. A source that hands out a little at a time
  // (a pipe, a network stream, the fuzzer's) would otherwise have a long record parsed again from
  // its start after every read: quadratic in its length (found by fuzzing: 4 KB one byte at a time
  // took 170 ms). Full buffers double, so a record is parsed O(log length) times.
  size_t got = 0;
  while (size < buf.size()) {
    size_t n = source(buf.data() + size, buf.size() - size);
    if (n == 0) {
      eof = true;
      break;
    }
    size += n;
    got += n;
  }
  return got > 0;
}

}  // namespace hyrax
