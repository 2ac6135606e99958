// Arrays' runtime functions (runtime.hpp lists them): an array is its canonical text
// (engine/types/array_text.hpp), parsed and written again here. Results go to the query's arena.
#include <algorithm>
#include <charconv>
#include <cstring>

#include "engine/runtime/query_context.hpp"
#include "engine/runtime/runtime.hpp"
#include "engine/runtime/runtime_guard.hpp"
#include "engine/types/array_text.hpp"
#include "engine/types/string_ref.hpp"

using namespace hyrax;

namespace {

bool elementsOf(QueryContext* ctx, uint64_t lo, uint64_t hi, text::ArrayElements& out) {
  StringRef s = StringRef::fromHalves(lo, hi);
  std::string error;
  bool unsupported = false;
  if (text::parseArray(s.view(), out, error, unsupported)) return true;
  ctx->setError(unsupported ? sqlstate::FeatureNotSupported : sqlstate::InvalidText, error);
  return false;
}

// Copies `v` into the arena and writes its StringRef halves to out: 0, or 1 with the error set.
int32_t put(QueryContext* ctx, const std::string& v, uint64_t* out) {
  if (v.size() > (uint64_t{1} << 30) - 1) return hyrax_rt_error(ctx, HYRAX_ERR_LENGTH_TOO_LARGE);
  return arenaString(ctx, v, out);
}

bool isInteger(int32_t elementType) {
  auto t = static_cast<TypeId>(elementType);
  return t == TypeId::Int16 || t == TypeId::Int32 || t == TypeId::Int64;
}

// -1, 0, 1: integers by value, text by bytes (collation C, as strings compare everywhere here).
int compareElements(int32_t elementType, std::string_view a, std::string_view b) {
  if (isInteger(elementType)) {
    int64_t x = 0, y = 0;
    std::from_chars(a.data(), a.data() + a.size(), x);
    std::from_chars(b.data(), b.data() + b.size(), y);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  int c = a.compare(b);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

}  // namespace

int32_t hyrax_rt_array_in(QueryContext* ctx, uint64_t lo, uint64_t hi, int32_t elementType, uint64_t* out) {
  return guarded(ctx, int32_t{1}, [&]() -> int32_t {
    text::ArrayElements e;
    if (!elementsOf(ctx, lo, hi, e)) return 1;
    for (auto& x : e) {
      if (!x) continue;
      std::string canonical, error;
      const char* state = nullptr;
      if (!text::canonicalElement(static_cast<TypeId>(elementType), *x, canonical, error, state)) {
        ctx->setError(state, error);
        return 1;
      }
      x = std::move(canonical);
    }
    return put(ctx, text::formatArray(e), out);
  });
}

int32_t hyrax_rt_array_append(QueryContext* ctx, uint64_t alo, uint64_t ahi, uint64_t elo, uint64_t ehi, int32_t flags,
                              uint64_t* out) {
  const bool arrayNull = flags & kArrayNull, elementNull = flags & kElementNull, prepend = flags & kPrepend;
  return guarded(ctx, int32_t{1}, [&]() -> int32_t {
    StringRef a = StringRef::fromHalves(alo, ahi), e = StringRef::fromHalves(elo, ehi);
    std::string_view body = arrayNull ? std::string_view("{}") : a.view();
    std::string element;
    if (elementNull) element = "NULL";
    else text::appendArrayElement(element, e.view());
    std::string r;
    const bool empty = body.size() <= 2;  // "{}": the canonical text of an empty array
    if (prepend) r = "{" + element + (empty ? "" : ",") + std::string(body.substr(1));
    else r = std::string(body.substr(0, body.size() - 1)) + (empty ? "" : ",") + element + "}";
    return put(ctx, r, out);
  });
}

namespace {

// `open` (array_agg's open text) with `tail` after it: in place where its buffer has room (a long
// text made here has its capacity in the 8 bytes before it), else in a buffer twice the size.
int32_t appendOpen(QueryContext* ctx, StringRef open, std::string_view tail, uint64_t* out) {
  const uint64_t n = uint64_t{open.len} + tail.size();
  if (n > (uint64_t{1} << 30) - 1) return hyrax_rt_error(ctx, HYRAX_ERR_LENGTH_TOO_LARGE);
  if (n <= StringRef::kInlineMax) return arenaString(ctx, std::string(open.view()) + std::string(tail), out);
  char* data = nullptr;
  if (!open.isInline()) {
    uint64_t capacity;
    std::memcpy(&capacity, open.u.ptr - 8, 8);
    if (n <= capacity) data = const_cast<char*>(open.u.ptr);
  }
  if (!data) {
    const uint64_t capacity = std::max<uint64_t>(64, 2 * n);
    char* buf = guarded(ctx, static_cast<char*>(nullptr), [&] { return ctx->arena().allocate(capacity + 8); });
    if (!buf) return 1;
    std::memcpy(buf, &capacity, 8);
    data = buf + 8;
    std::memcpy(data, open.data(), open.len);
  }
  std::memcpy(data + open.len, tail.data(), tail.size());
  StringRef r = StringRef::make(data, static_cast<uint32_t>(n));
  out[0] = r.lo();
  out[1] = r.hi();
  return 0;
}

}  // namespace

int32_t hyrax_rt_array_agg_add(QueryContext* ctx, uint64_t alo, uint64_t ahi, uint64_t elo, uint64_t ehi, int32_t flags,
                               uint64_t* out) {
  return guarded(ctx, int32_t{1}, [&]() -> int32_t {
    const bool first = flags & kArrayNull;
    std::string tail = first ? "{" : ",";
    if (flags & kElementNull) tail += "NULL";
    else text::appendArrayElement(tail, StringRef::fromHalves(elo, ehi).view());
    return appendOpen(ctx, first ? StringRef() : StringRef::fromHalves(alo, ahi), tail, out);
  });
}

int32_t hyrax_rt_array_agg_merge(QueryContext* ctx, uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi, uint64_t* out) {
  return guarded(ctx, int32_t{1}, [&]() -> int32_t {
    const StringRef b = StringRef::fromHalves(blo, bhi);
    return appendOpen(ctx, StringRef::fromHalves(alo, ahi), "," + std::string(b.view().substr(1)), out);
  });
}

int32_t hyrax_rt_array_agg_close(QueryContext* ctx, uint64_t alo, uint64_t ahi, uint64_t* out) {
  return guarded(ctx, int32_t{1}, [&]() -> int32_t {
    return put(ctx, std::string(StringRef::fromHalves(alo, ahi).view()) + "}", out);
  });
}

int32_t hyrax_rt_array_cat(QueryContext* ctx, uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi, uint64_t* out) {
  return guarded(ctx, int32_t{1}, [&]() -> int32_t {
    const StringRef aref = StringRef::fromHalves(alo, ahi), bref = StringRef::fromHalves(blo, bhi);  // short ones hold their bytes
    std::string_view a = aref.view(), b = bref.view();
    if (a.size() <= 2) return put(ctx, std::string(b), out);
    if (b.size() <= 2) return put(ctx, std::string(a), out);
    return put(ctx, std::string(a.substr(0, a.size() - 1)) + "," + std::string(b.substr(1)), out);
  });
}

int32_t hyrax_rt_array_to_string(QueryContext* ctx, uint64_t alo, uint64_t ahi, uint64_t slo, uint64_t shi,
                                 uint64_t nlo, uint64_t nhi, uint64_t* out) {
  const bool hasNullString = nlo != kNoString;
  return guarded(ctx, int32_t{1}, [&]() -> int32_t {
    text::ArrayElements e;
    if (!elementsOf(ctx, alo, ahi, e)) return 1;
    StringRef sep = StringRef::fromHalves(slo, shi), nulls = hasNullString ? StringRef::fromHalves(nlo, nhi) : StringRef();
    std::string r;
    bool first = true;
    for (auto& x : e) {
      if (!x && !hasNullString) continue;  // NULL elements are left out, separators too
      if (!first) r.append(sep.view());
      first = false;
      r.append(x ? std::string_view(*x) : nulls.view());
    }
    return put(ctx, r, out);
  });
}

int32_t hyrax_rt_array_element(QueryContext* ctx, uint64_t alo, uint64_t ahi, int64_t index, uint64_t* out,
                               int8_t* isNull) {
  return guarded(ctx, int32_t{1}, [&]() -> int32_t {
    text::ArrayElements e;
    if (!elementsOf(ctx, alo, ahi, e)) return 1;
    *isNull = 1;
    if (index < 1 || index > static_cast<int64_t>(e.size()) || !e[index - 1]) return 0;
    *isNull = 0;
    return put(ctx, *e[index - 1], out);
  });
}

int32_t hyrax_rt_array_count(QueryContext* ctx, uint64_t alo, uint64_t ahi, int32_t* out) {
  return guarded(ctx, int32_t{1}, [&]() -> int32_t {
    text::ArrayElements e;
    if (!elementsOf(ctx, alo, ahi, e)) return 1;
    *out = static_cast<int32_t>(e.size());
    return 0;
  });
}

int32_t hyrax_rt_array_any(QueryContext* ctx, uint64_t alo, uint64_t ahi, uint64_t xlo, uint64_t xhi, int32_t mode,
                           int8_t* out) {
  const int32_t elementType = mode & 0xFF, cmp = (mode >> 8) & 0xFF, all = (mode >> 16) & 1, xNull = (mode >> 17) & 1;
  return guarded(ctx, int32_t{1}, [&]() -> int32_t {
    text::ArrayElements e;
    if (!elementsOf(ctx, alo, ahi, e)) return 1;
    if (xNull) {  // NULL against every element: NULL, unless there is none (ANY false, ALL true)
      *out = e.empty() ? static_cast<int8_t>(all) : 2;
      return 0;
    }
    StringRef x = StringRef::fromHalves(xlo, xhi);
    // SQL's three values over the elements: ANY is true on a true one, else NULL on a NULL one;
    // ALL is false on a false one, else NULL on a NULL one; an empty array: ANY false, ALL true.
    bool sawNull = false;
    for (auto& y : e) {
      if (!y) {
        sawNull = true;
        continue;
      }
      int c = compareElements(elementType, x.view(), *y);
      bool r = cmp == 0 ? c == 0 : cmp == 1 ? c != 0 : cmp == 2 ? c < 0 : cmp == 3 ? c <= 0 : cmp == 4 ? c > 0 : c >= 0;
      if (r != static_cast<bool>(all)) {
        *out = r ? 1 : 0;
        return 0;
      }
    }
    *out = sawNull ? 2 : all ? 1 : 0;
    return 0;
  });
}

int32_t hyrax_rt_array_sort(QueryContext* ctx, uint64_t alo, uint64_t ahi, int32_t elementType, int32_t descending,
                            int32_t nullsFirst, uint64_t* out) {
  return guarded(ctx, int32_t{1}, [&]() -> int32_t {
    text::ArrayElements e;
    if (!elementsOf(ctx, alo, ahi, e)) return 1;
    std::stable_sort(e.begin(), e.end(), [&](const auto& a, const auto& b) {
      if (!a || !b) return !a && b ? nullsFirst != 0 : a && !b ? nullsFirst == 0 : false;
      int c = compareElements(elementType, *a, *b);
      return descending ? c > 0 : c < 0;
    });
    return put(ctx, text::formatArray(e), out);
  });
}
