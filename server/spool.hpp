#pragma once
// Bytes held between the client and a statement: in memory while small, then in an unlinked
// temporary file (so a large COPY costs disk, not memory, and leaves no file behind). COPY's data
// passes through one, so that the executor thread never waits on a client's socket.
#include <fstream>
#include <memory>
#include <streambuf>
#include <string>
#include <string_view>

namespace hyrax::server {

class Spool : public std::streambuf {
 public:
  static constexpr size_t kMemoryLimit = 1 << 20;
  Spool();
  ~Spool() override;
  void append(std::string_view data);
  // Reads it back from the start through `reader()`; no append after that.
  std::streambuf& reader();
  uint64_t size() const { return size_; }

 protected:
  int_type overflow(int_type c) override;  // as a streambuf: writing appends
  int sync() override;

 private:
  void flushPut();
  void write(std::string_view data);  // to the file
  std::string memory_;
  std::unique_ptr<std::filebuf> file_;
  std::unique_ptr<std::streambuf> view_;  // reads memory_
  std::string put_;                       // the put area when written as a streambuf
  uint64_t size_ = 0;
};

}  // namespace hyrax::server
