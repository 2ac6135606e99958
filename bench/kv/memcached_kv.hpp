#pragma once
// The workload's gets and puts on memcached (no range selects: it has no tags to select by). A
// key is the decimal text of its number, a put a `set` of the value with tag1 as the item's
// flags (a 32-bit number memcached keeps beside the value); tag2 is not kept.
#include <filesystem>
#include <memory>

#include "bench/kv/kv_workload.hpp"

namespace hyrax::bench::kv {

void loadMemcached(const std::filesystem::path& socket, const Options& o);
std::unique_ptr<Session> connectMemcached(const std::filesystem::path& socket);

}  // namespace hyrax::bench::kv
