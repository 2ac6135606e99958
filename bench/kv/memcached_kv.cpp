#include "bench/kv/memcached_kv.hpp"

#include <stdexcept>

#include "bench/kv/memcached_client.hpp"

namespace hyrax::bench::kv {

namespace {

class MemcachedSession : public Session {
 public:
  explicit MemcachedSession(const std::filesystem::path& socket) : client_(socket) {}
  bool get(uint64_t key, Row& row) override {
    uint32_t flags = 0;
    if (!client_.get(std::to_string(key), row.value, flags)) return false;
    row.key = key;
    row.tag1 = static_cast<int32_t>(flags);
    return true;
  }
  void put(const Row& row) override { client_.set(std::to_string(row.key), row.value, static_cast<uint32_t>(row.tag1)); }
  void range(int32_t, int32_t, std::vector<Row>&) override {
    throw std::logic_error("memcached has no range selects");
  }

 private:
  MemcachedClient client_;
};

}  // namespace

void loadMemcached(const std::filesystem::path& socket, const Options& o) {
  MemcachedClient client(socket);
  for (uint64_t key = 0; key < o.records; ++key)
    if (loadedKey(key)) {
      const Row r = makeRow(key, 0, o);
      client.queueSet(std::to_string(key), r.value, static_cast<uint32_t>(r.tag1));
    }
  client.flush();
}

std::unique_ptr<Session> connectMemcached(const std::filesystem::path& socket) {
  return std::make_unique<MemcachedSession>(socket);
}

}  // namespace hyrax::bench::kv
