#pragma once
// A small memcached client for the bench: the text protocol's `get` and `set` over a Unix stream
// socket, one request at a time (a synchronous client, like the libpqxx clients of the SQL
// engines), and pipelined sets for loading. A protocol error or a closed socket throws.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace hyrax::bench {

class MemcachedClient {
 public:
  explicit MemcachedClient(const std::filesystem::path& socket);
  ~MemcachedClient();
  MemcachedClient(const MemcachedClient&) = delete;
  MemcachedClient& operator=(const MemcachedClient&) = delete;

  // The value stored under `key` into `value` and its flags into `flags`; false on a miss.
  bool get(std::string_view key, std::string& value, uint32_t& flags);
  void set(std::string_view key, std::string_view value, uint32_t flags);
  // Queues a set without waiting for its answer; flush() sends the queue and reads every answer.
  void queueSet(std::string_view key, std::string_view value, uint32_t flags);
  void flush();

 private:
  void appendSet(std::string_view key, std::string_view value, uint32_t flags);
  void sendAll();
  std::string_view readLine();  // up to "\r\n" (not included); valid until the next read
  void readExact(size_t n, std::string& into);
  void fill();

  int fd_ = -1;
  std::string out_;                 // requests not sent yet
  size_t queued_ = 0;               // sets in out_ whose answers are still to be read
  std::string in_;                  // bytes received, from inPos_ on not consumed yet
  size_t inPos_ = 0;
};

}  // namespace hyrax::bench
