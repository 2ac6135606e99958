#include "server/spool.hpp"

#include <unistd.h>

#include <cstdlib>

#include "engine/util/error.hpp"

namespace hyrax::server {

namespace {

// Reads a string in place.
class ViewBuffer : public std::streambuf {
 public:
  ViewBuffer(char* begin, char* end) { setg(begin, begin, end); }
};

constexpr size_t kPutArea = 64 * 1024;

}  // namespace

Spool::Spool() {
  put_.resize(kPutArea);
  setp(put_.data(), put_.data() + put_.size());
}

Spool::~Spool() = default;

void Spool::append(std::string_view data) {
  size_ += data.size();
  if (!file_ && memory_.size() + data.size() <= kMemoryLimit) {
    memory_.append(data);
    return;
  }
  if (!file_) {
    const char* dir = std::getenv("TMPDIR");
    std::string path = std::string(dir && *dir ? dir : "/tmp") + "/hyrax_copy_XXXXXX";
    int fd = ::mkstemp(path.data());
    if (fd < 0) throw Error(sqlstate::IoError, "could not create a temporary file for COPY data in " + path);
    ::close(fd);
    file_ = std::make_unique<std::filebuf>();
    bool opened = file_->open(path, std::ios::in | std::ios::out | std::ios::binary | std::ios::trunc) != nullptr;
    ::unlink(path.c_str());  // open or not, the name is not needed again
    if (!opened) throw Error(sqlstate::IoError, "could not open a temporary file for COPY data");
    std::string held;
    held.swap(memory_);  // frees the memory once written
    write(held);
  }
  write(data);
}

void Spool::write(std::string_view data) {
  if (file_->sputn(data.data(), static_cast<std::streamsize>(data.size())) != static_cast<std::streamsize>(data.size()))
    throw Error(sqlstate::IoError, "could not write COPY data to a temporary file (disk full?)");
}

void Spool::flushPut() {
  if (pptr() > pbase()) append(std::string_view(pbase(), static_cast<size_t>(pptr() - pbase())));
  setp(put_.data(), put_.data() + put_.size());
}

Spool::int_type Spool::overflow(int_type c) {
  flushPut();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

int Spool::sync() {
  flushPut();
  return 0;
}

std::streambuf& Spool::reader() {
  flushPut();
  if (file_) {
    file_->pubsync();
    file_->pubseekpos(0, std::ios::in);
    return *file_;
  }
  view_ = std::make_unique<ViewBuffer>(memory_.data(), memory_.data() + memory_.size());
  return *view_;
}

}  // namespace hyrax::server
