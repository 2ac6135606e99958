#include "engine/index/art_index.hpp"

#include <bit>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "engine/util/error.hpp"

namespace hyrax {

namespace {
constexpr uint32_t kMaxPrefix = 8;
enum NodeType : uint8_t { kNode4, kNode16, kNode48, kNode256 };
}  // namespace

// 16-byte aligned: a pointer to a node has four free low bits, which hold its tag (see childOf).
struct alignas(16) ArtIndex::Node {
  uint8_t type;
  uint8_t prefixLen = 0;
  uint16_t count = 0;  // children
  uint8_t prefix[kMaxPrefix] = {};
  explicit Node(uint8_t t) : type(t) {}
};

namespace {

using Node = ArtIndex::Node;
using Child = ArtIndex::Child;

// Node4 and Node16 keep their key bytes sorted; Node48 maps a byte to one of 48 slots (0: none).
struct Node4 : Node {
  uint8_t keys[4] = {};
  Child children[4] = {};
  Node4() : Node(kNode4) {}
};
struct Node16 : Node {
  uint8_t keys[16] = {};
  Child children[16] = {};
  Node16() : Node(kNode16) {}
};
struct Node48 : Node {
  uint8_t slot[256] = {};
  Child children[48] = {};
  Node48() : Node(kNode48) {}
};
struct Node256 : Node {
  Child children[256] = {};
  Node256() : Node(kNode256) {}
};

// A child is a leaf (row << 1 | 1) or a tagged pointer to a node: bits 1-2 its type, bit 3 set
// when it has a prefix. A lookup thus goes from a Node256 (or Node48) straight to the child slot
// of its key byte without reading the node's header: in a big index that header is a cache line
// of its own, a miss on each level. The tag is computed from the node whenever a parent slot is
// written (childOf), so it must be written again after a node's prefix changes.
constexpr Child kTagBits = 15;
bool isLeaf(Child c) { return c & 1; }
uint64_t leafRow(Child c) { return static_cast<uint64_t>(c >> 1); }
Child leaf(uint64_t row) { return (static_cast<Child>(row) << 1) | 1; }
Node* nodeOf(Child c) { return reinterpret_cast<Node*>(c & ~kTagBits); }
Child childOf(Node* n) {
  return reinterpret_cast<Child>(n) | (Child{n->type} << 1) | (n->prefixLen ? Child{8} : Child{0});
}
uint8_t typeOf(Child c) { return static_cast<uint8_t>((c >> 1) & 3); }
bool hasPrefix(Child c) { return (c & 8) != 0; }


// Calls fn(byte, child) for each child with a byte in [from, to], in byte order or reverse order;
// stops when fn returns false.
template <typename Fn>
bool forEachChild(Node* n, bool reverse, Fn fn, int from = 0, int to = 255) {
  auto sorted = [&](const uint8_t* keys, Child* children) {
    for (int j = 0; j < n->count; ++j) {
      int i = reverse ? n->count - 1 - j : j;
      if (keys[i] < from || keys[i] > to) continue;
      if (!fn(keys[i], children[i])) return false;
    }
    return true;
  };
  switch (n->type) {
    case kNode4: return sorted(static_cast<Node4*>(n)->keys, static_cast<Node4*>(n)->children);
    case kNode16: return sorted(static_cast<Node16*>(n)->keys, static_cast<Node16*>(n)->children);
    case kNode48: {
      auto* m = static_cast<Node48*>(n);
      for (int j = from; j <= to; ++j) {
        int b = reverse ? from + to - j : j;
        if (m->slot[b] && !fn(static_cast<uint8_t>(b), m->children[m->slot[b] - 1])) return false;
      }
      return true;
    }
    default: {
      auto* m = static_cast<Node256*>(n);
      for (int j = from; j <= to; ++j) {
        int b = reverse ? from + to - j : j;
        if (m->children[b] && !fn(static_cast<uint8_t>(b), m->children[b])) return false;
      }
      return true;
    }
  }
}


[[gnu::always_inline]] inline Child* findChild(Node* n, uint8_t b) {
  switch (n->type) {
    case kNode4: {
      auto* m = static_cast<Node4*>(n);
      for (int i = 0; i < m->count; ++i)
        if (m->keys[i] == b) return &m->children[i];
      return nullptr;
    }
    case kNode16: {
      auto* m = static_cast<Node16*>(n);
#if defined(__SSE2__)
      // All sixteen keys compared at once (the paper's SIMD search).
      __m128i eq = _mm_cmpeq_epi8(_mm_set1_epi8(static_cast<char>(b)), _mm_loadu_si128(reinterpret_cast<const __m128i*>(m->keys)));
      unsigned hits = static_cast<unsigned>(_mm_movemask_epi8(eq)) & ((1u << m->count) - 1);
      return hits ? &m->children[__builtin_ctz(hits)] : nullptr;
#else
      for (int i = 0; i < m->count; ++i)
        if (m->keys[i] == b) return &m->children[i];
      return nullptr;
#endif
    }
    case kNode48: {
      auto* m = static_cast<Node48*>(n);
      return m->slot[b] ? &m->children[m->slot[b] - 1] : nullptr;
    }
    default: {
      auto* m = static_cast<Node256*>(n);
      return m->children[b] ? &m->children[b] : nullptr;
    }
  }
}

// findChild for a tagged child: a Node48's or Node256's header is not read.
[[gnu::always_inline]] inline Child* findChildOf(Child c, uint8_t b) {
  switch (typeOf(c)) {
    case kNode48: {
      auto* m = static_cast<Node48*>(nodeOf(c));
      return m->slot[b] ? &m->children[m->slot[b] - 1] : nullptr;
    }
    case kNode256: {
      auto* m = static_cast<Node256*>(nodeOf(c));
      return m->children[b] ? &m->children[b] : nullptr;
    }
    default: return findChild(nodeOf(c), b);
  }
}

// Compares node c's prefix with the key's bytes from `depth` on (advancing it, up to the key's
// end); false on a mismatch. A node without a prefix is not read.
[[gnu::always_inline]] inline bool matchPrefix(Child c, const uint8_t* key, size_t size, size_t& depth) {
  if (!hasPrefix(c)) return true;
  const Node* n = nodeOf(c);
  if constexpr (std::endian::native == std::endian::little) {
    if (depth + kMaxPrefix <= size) {  // eight key bytes at hand: one compare of the prefix's bytes
      static_assert(sizeof n->prefix == 8);
      uint64_t k, p;
      std::memcpy(&k, key + depth, 8);
      std::memcpy(&p, n->prefix, 8);
      uint64_t mask = n->prefixLen >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n->prefixLen)) - 1;
      if ((k ^ p) & mask) return false;
      depth += n->prefixLen;
      return true;
    }
  }
  for (size_t i = 0; i < n->prefixLen && depth < size; ++i, ++depth)
    if (n->prefix[i] != key[depth]) return false;
  return true;
}

void copyHeader(Node* to, const Node* from) {
  to->prefixLen = from->prefixLen;
  to->count = from->count;
  std::memcpy(to->prefix, from->prefix, kMaxPrefix);
}

template <typename Small>
void insertSorted(Small* m, uint8_t b, Child c) {
  int i = m->count;
  while (i > 0 && m->keys[i - 1] > b) {
    m->keys[i] = m->keys[i - 1];
    m->children[i] = m->children[i - 1];
    --i;
  }
  m->keys[i] = b;
  m->children[i] = c;
  ++m->count;
}

// Adds child `c` under byte `b` (not present yet), growing the node into the next size when full.
void addChild(NodePool& pool, Child& ref, uint8_t b, Child c) {
  Node* n = nodeOf(ref);
  switch (n->type) {
    case kNode4: {
      auto* m = static_cast<Node4*>(n);
      if (m->count < 4) return insertSorted(m, b, c);
      auto* g = pool.make<Node16>(kNode16);
      copyHeader(g, m);
      std::memcpy(g->keys, m->keys, 4);
      std::memcpy(g->children, m->children, sizeof(m->children));
      pool.release(m->type, m);
      ref = childOf(g);
      return insertSorted(g, b, c);
    }
    case kNode16: {
      auto* m = static_cast<Node16*>(n);
      if (m->count < 16) return insertSorted(m, b, c);
      auto* g = pool.make<Node48>(kNode48);
      copyHeader(g, m);
      for (int i = 0; i < 16; ++i) {
        g->children[i] = m->children[i];
        g->slot[m->keys[i]] = static_cast<uint8_t>(i + 1);
      }
      pool.release(m->type, m);
      ref = childOf(g);
      n = g;
      [[fallthrough]];
    }
    case kNode48: {
      auto* m = static_cast<Node48*>(n);
      if (m->count < 48) {
        int i = 0;
        while (m->children[i]) ++i;
        m->children[i] = c;
        m->slot[b] = static_cast<uint8_t>(i + 1);
        ++m->count;
        return;
      }
      auto* g = pool.make<Node256>(kNode256);
      copyHeader(g, m);
      for (int k = 0; k < 256; ++k)
        if (m->slot[k]) g->children[k] = m->children[m->slot[k] - 1];
      pool.release(m->type, m);
      ref = childOf(g);
      n = g;
      [[fallthrough]];
    }
    default: {
      auto* m = static_cast<Node256*>(n);
      m->children[b] = c;
      ++m->count;
    }
  }
}

template <typename Small>
void removeSorted(Small* m, uint8_t b) {
  int i = 0;
  while (m->keys[i] != b) ++i;
  for (; i + 1 < m->count; ++i) {
    m->keys[i] = m->keys[i + 1];
    m->children[i] = m->children[i + 1];
  }
  --m->count;
  m->children[m->count] = 0;
}

// After a child went: a node much emptier than its size turns into the next smaller one, and a
// Node4 with one child gives way to it (a leaf, or a node whose prefix can absorb this one's).
void shrink(NodePool& pool, Child& ref) {
  Node* n = nodeOf(ref);
  switch (n->type) {
    case kNode256: {
      if (n->count > 36) return;
      auto* m = static_cast<Node256*>(n);
      auto* s = pool.make<Node48>(kNode48);
      copyHeader(s, m);
      int j = 0;
      for (int b = 0; b < 256; ++b)
        if (m->children[b]) {
          s->children[j] = m->children[b];
          s->slot[b] = static_cast<uint8_t>(++j);
        }
      pool.release(m->type, m);
      ref = childOf(s);
      return;
    }
    case kNode48: {
      if (n->count > 12) return;
      auto* m = static_cast<Node48*>(n);
      auto* s = pool.make<Node16>(kNode16);
      copyHeader(s, m);
      int j = 0;
      for (int b = 0; b < 256; ++b)
        if (m->slot[b]) {
          s->keys[j] = static_cast<uint8_t>(b);
          s->children[j++] = m->children[m->slot[b] - 1];
        }
      pool.release(m->type, m);
      ref = childOf(s);
      return;
    }
    case kNode16: {
      if (n->count > 3) return;
      auto* m = static_cast<Node16*>(n);
      auto* s = pool.make<Node4>(kNode4);
      copyHeader(s, m);
      std::memcpy(s->keys, m->keys, 4);
      std::memcpy(s->children, m->children, sizeof(s->children));
      pool.release(m->type, m);
      ref = childOf(s);
      return;
    }
    default: {
      auto* m = static_cast<Node4*>(n);
      if (m->count == 0) {
        pool.release(m->type, m);
        ref = 0;
        return;
      }
      if (m->count > 1) return;
      Child only = m->children[0];
      if (!isLeaf(only)) {
        Node* c = nodeOf(only);
        if (m->prefixLen + 1u + c->prefixLen > kMaxPrefix) return;
        uint8_t merged[kMaxPrefix];
        std::memcpy(merged, m->prefix, m->prefixLen);
        merged[m->prefixLen] = m->keys[0];
        std::memcpy(merged + m->prefixLen + 1, c->prefix, c->prefixLen);
        c->prefixLen = static_cast<uint8_t>(m->prefixLen + 1 + c->prefixLen);
        std::memcpy(c->prefix, merged, c->prefixLen);
        only = childOf(c);  // now with a prefix
      }
      pool.release(m->type, m);
      ref = only;
    }
  }
}

void removeChild(NodePool& pool, Child& ref, uint8_t b) {
  Node* n = nodeOf(ref);
  switch (n->type) {
    case kNode4: removeSorted(static_cast<Node4*>(n), b); break;
    case kNode16: removeSorted(static_cast<Node16*>(n), b); break;
    case kNode48: {
      auto* m = static_cast<Node48*>(n);
      m->children[m->slot[b] - 1] = 0;
      m->slot[b] = 0;
      --m->count;
      break;
    }
    default: {
      auto* m = static_cast<Node256*>(n);
      m->children[b] = 0;
      --m->count;
    }
  }
  shrink(pool, ref);
}

// A node for two keys that agree on bytes [depth, mismatch): prefixes of up to kMaxPrefix bytes,
// chained when the common part is longer.
Child branch(NodePool& pool, const KeyBytes& a, const KeyBytes& b, size_t depth, size_t mismatch, Child childA, Child childB) {
  auto* n = pool.make<Node4>(kNode4);
  size_t len = mismatch - depth;
  n->prefixLen = static_cast<uint8_t>(std::min<size_t>(len, kMaxPrefix));
  std::memcpy(n->prefix, a.data() + depth, n->prefixLen);
  Child ref = childOf(n);  // after the prefix: it is in the tag
  if (len <= kMaxPrefix) {
    addChild(pool, ref, a[mismatch], childA);
    addChild(pool, ref, b[mismatch], childB);
  } else {
    addChild(pool, ref, a[depth + kMaxPrefix], branch(pool, a, b, depth + kMaxPrefix + 1, mismatch, childA, childB));
  }
  return ref;
}

int compareKeys(const KeyBytes& a, const KeyBytes& b) {
  size_t n = std::min(a.size(), b.size());
  int c = n ? std::memcmp(a.data(), b.data(), n) : 0;
  if (c) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

// The least byte string greater than every string starting with `p`; false when there is none.
bool successor(KeyBytes& p) {
  while (!p.empty() && p.back() == 0xFF) p.pop_back();
  if (p.empty()) return false;
  ++p.back();
  return true;
}

// The row of the first entry below `c` (a node with entries, or a leaf).
uint64_t leftmostRow(Child c) {
  while (!isLeaf(c))
    forEachChild(nodeOf(c), false, [&](uint8_t, Child child) {
      c = child;
      return false;
    });
  return leafRow(c);
}

void appendRow(uint64_t row, KeyBytes& out) {
  size_t at = out.size();
  out.resize(at + 8, boost::container::default_init);
  for (int i = 0; i < 8; ++i) out[at + i] = static_cast<uint8_t>(row >> (56 - 8 * i));
}

}  // namespace

ArtIndex::ArtIndex(std::string name, const Table& table, std::vector<uint32_t> columns, bool unique)
    : Index(std::move(name), table, std::move(columns), unique) {}

ArtIndex::~ArtIndex() = default;  // the pool frees every node

void ArtIndex::clear() {
  pool_.clear();
  root_ = 0;
  count_ = 0;
}

void ArtIndex::entryKey(uint64_t valuesOf, uint64_t row, KeyBytes& out) const {
  key().encodeRow(valuesOf, out);
  appendRow(row, out);
}

uint64_t ArtIndex::insertEntry(const KeyBytes& key, uint64_t row, size_t unique) {
  Child* ref = &root_;
  size_t depth = 0;
  KeyBytes other;
  while (true) {
    if (*ref == 0) {
      *ref = leaf(row);
      return kNoRow;
    }
    if (isLeaf(*ref)) {
      other.clear();
      entryKey(leafRow(*ref), leafRow(*ref), other);
      size_t m = depth;
      while (m < key.size() && m < other.size() && key[m] == other[m]) ++m;
      if (unique && m >= unique) return leafRow(*ref);  // the same key columns
      if (m == key.size() || m == other.size())
        throw Error(sqlstate::InternalError, "index \"" + name() + "\" holds the row twice");
      *ref = branch(pool_, key, other, depth, m, leaf(row), *ref);
      return kNoRow;
    }
    Node* n = nodeOf(*ref);
    size_t p = 0, prefixLen = hasPrefix(*ref) ? n->prefixLen : 0;
    while (p < prefixLen && depth + p < key.size() && key[depth + p] == n->prefix[p]) ++p;
    // Every entry below agrees with the key on bytes [0, depth + p): past the key columns' bytes,
    // one of them has the key.
    if (unique && depth + p >= unique) return leftmostRow(*ref);
    if (depth + p >= key.size()) throw Error(sqlstate::InternalError, "index \"" + name() + "\" met a key prefix");
    if (p < prefixLen) {  // the key leaves this node's prefix: a new node above it
      auto* split = pool_.make<Node4>(kNode4);
      split->prefixLen = static_cast<uint8_t>(p);
      std::memcpy(split->prefix, n->prefix, p);
      uint8_t byte = n->prefix[p];
      n->prefixLen = static_cast<uint8_t>(n->prefixLen - p - 1);
      std::memmove(n->prefix, n->prefix + p + 1, n->prefixLen);
      Child s = childOf(split);
      addChild(pool_, s, byte, childOf(n));  // tagged again: its prefix shrank, maybe to nothing
      addChild(pool_, s, key[depth + p], leaf(row));
      *ref = s;
      return kNoRow;
    }
    depth += prefixLen;
    Child* c = findChildOf(*ref, key[depth]);
    if (!c) {
      addChild(pool_, *ref, key[depth], leaf(row));
      return kNoRow;
    }
    ref = c;
    ++depth;
  }
}

namespace {

bool eraseAt(NodePool& pool, Child& ref, const KeyBytes& key, size_t depth, uint64_t row) {
  if (ref == 0) return false;
  if (isLeaf(ref)) {
    if (leafRow(ref) != row) return false;
    ref = 0;
    return true;
  }
  Node* n = nodeOf(ref);
  if (depth + n->prefixLen >= key.size() || std::memcmp(key.data() + depth, n->prefix, n->prefixLen) != 0) return false;
  depth += n->prefixLen;
  uint8_t b = key[depth];
  Child* c = findChild(n, b);
  if (!c || !eraseAt(pool, *c, key, depth + 1, row)) return false;
  if (*c == 0)
    removeChild(pool, ref, b);
  else if (n->type == kNode4 && n->count == 1)
    shrink(pool, ref);  // its only child may have become a leaf
  return true;
}

}  // namespace

bool ArtIndex::eraseEntry(const KeyBytes& key, uint64_t row) { return eraseAt(pool_, root_, key, 0, row); }

uint64_t ArtIndex::insert(uint64_t row, bool allowDuplicate) {
  if (key().rowHasNull(row)) return kNoRow;
  KeyBytes k;
  key().encodeRow(row, k);
  if (k.size() > kMaxKeyBytes)
    throw Error(sqlstate::ProgramLimitExceeded, "index row size " + std::to_string(k.size()) + " exceeds the maximum " +
                                                    std::to_string(kMaxKeyBytes) + " for index \"" + name() + "\"");
  size_t unique = this->unique() && !allowDuplicate ? k.size() : 0;
  appendRow(row, k);
  if (uint64_t other = insertEntry(k, row, unique); other != kNoRow) return other;  // one descent
  ++count_;
  return kNoRow;
}

void ArtIndex::erase(uint64_t row) {
  if (key().rowHasNull(row)) return;
  KeyBytes k;
  entryKey(row, row, k);
  if (!eraseEntry(k, row)) throw Error(sqlstate::InternalError, "index \"" + name() + "\" lost a row");
  --count_;
}

void ArtIndex::relocate(uint64_t from, uint64_t to) {
  if (key().rowHasNull(from)) return;
  KeyBytes k;
  entryKey(from, from, k);
  if (!eraseEntry(k, from)) throw Error(sqlstate::InternalError, "index \"" + name() + "\" lost a row");
  k.clear();
  entryKey(from, to, k);  // the same key under the new row number
  insertEntry(k, to, 0);
}

namespace {

// A walk over the rows with keys in [lo, hi). A bound is "tight" while the path so far equals it,
// so only those paths compare bytes; leaves reached on a tight path are checked in full, since
// lazy expansion skipped the bytes below them.
struct RangeScan {
  const KeyBytes& lo;
  const KeyBytes* hi;
  bool reverse;
  const std::function<bool(uint64_t)>& fn;
  const std::function<void(uint64_t, KeyBytes&)>& keyOf;
  KeyBytes scratch;

  bool visit(Child c, size_t depth, bool loTight, bool hiTight) {
    if (isLeaf(c)) {
      uint64_t row = leafRow(c);
      if (loTight || hiTight) {
        scratch.clear();
        keyOf(row, scratch);
        if (loTight && compareKeys(scratch, lo) < 0) return true;
        if (hiTight && compareKeys(scratch, *hi) >= 0) return true;
      }
      return fn(row);
    }
    Node* n = nodeOf(c);
    for (size_t i = 0; i < n->prefixLen && (loTight || hiTight); ++i) {
      size_t pos = depth + i;
      uint8_t b = n->prefix[i];
      if (loTight) {
        if (pos >= lo.size() || b > lo[pos]) loTight = false;
        else if (b < lo[pos]) return true;  // the whole subtree is below lo
      }
      if (hiTight) {
        if (pos >= hi->size() || b > (*hi)[pos]) return true;  // at or above hi
        if (b < (*hi)[pos]) hiTight = false;
      }
    }
    depth += n->prefixLen;
    if (loTight && depth >= lo.size()) loTight = false;
    if (hiTight && depth >= hi->size()) return true;
    int from = loTight ? lo[depth] : 0, to = hiTight ? (*hi)[depth] : 255;
    return forEachChild(
        n, reverse,
        [&](uint8_t b, Child child) { return visit(child, depth + 1, loTight && b == from, hiTight && b == to); },
        from, to);
  }
};

}  // namespace

void ArtIndex::scan(const KeyBytes& lo, const KeyBytes* hi, bool reverse, const std::function<bool(uint64_t)>& fn) const {
  if (root_ == 0) return;
  if (hi && compareKeys(lo, *hi) >= 0) return;
  std::function<void(uint64_t, KeyBytes&)> keyOf = [this](uint64_t row, KeyBytes& out) { entryKey(row, row, out); };
  RangeScan s{lo, hi, reverse, fn, keyOf, {}};
  s.visit(root_, 0, !lo.empty(), hi != nullptr);
}

namespace {

// Every leaf below c, in order or reverse order, until fn returns false (then false).
template <typename Fn>
bool forEachLeaf(Child c, bool reverse, Fn& fn) {
  if (isLeaf(c)) return fn(leafRow(c));
  return forEachChild(nodeOf(c), reverse, [&](uint8_t, Child child) { return forEachLeaf(child, reverse, fn); });
}

}  // namespace

void ArtIndex::scanPrefix(const KeyBytes& prefix, bool reverse, const std::function<bool(uint64_t)>& fn) const {
  Child c = root_;
  size_t depth = 0;
  while (c != 0 && !isLeaf(c)) {
    if (!matchPrefix(c, prefix.data(), prefix.size(), depth)) return;
    if (depth >= prefix.size()) {  // every entry below starts with the prefix
      auto call = [&](uint64_t row) { return fn(row); };
      forEachLeaf(c, reverse, call);
      return;
    }
    Child* next = findChildOf(c, prefix[depth]);
    if (!next) return;
    c = *next;
    ++depth;
  }
  if (c == 0) return;
  // A leaf above the prefix's end (lazy expansion): its key decides.
  KeyBytes k;
  entryKey(leafRow(c), leafRow(c), k);
  if (k.size() >= prefix.size() && std::memcmp(k.data(), prefix.data(), prefix.size()) == 0) fn(leafRow(c));
}

// Point lookups descend by the key's bytes alone; past its end, the subtree's leftmost leaf is
// the first entry (all below share the key). A leaf met earlier is only a candidate (lazy
// expansion skipped the rest of its bytes): callers compare its key columns.
uint64_t ArtIndex::candidate(const uint8_t* prefix, size_t size, size_t& verified) const {
  Child c = root_;
  size_t depth = 0;
  while (c != 0 && !isLeaf(c)) {
    if (!matchPrefix(c, prefix, size, depth)) return kNoRow;
    if (depth >= size) {
      verified = size;
      return leftmostRow(c);
    }
    Child* next = findChildOf(c, prefix[depth]);
    if (!next) return kNoRow;
    c = *next;
    ++depth;
  }
  verified = std::min(depth, size);
  return c == 0 ? kNoRow : leafRow(c);
}

void ArtIndex::forEachInRange(const KeyBound& low, const KeyBound& high, bool reverse,
                              const std::function<bool(uint64_t)>& fn) const {
  KeyBytes lo, hi;
  key().encodeProbe(low.probe, low.columns, lo);
  if (low.columns && low.columns == high.columns && low.inclusive && high.inclusive) {
    key().encodeProbe(high.probe, high.columns, hi);
    if (lo == hi) return scanPrefix(lo, reverse, fn);  // equality on the leading columns
    hi.clear();
  }
  if (low.columns && !low.inclusive && !successor(lo)) return;
  bool bounded = high.columns > 0;
  if (bounded) {
    key().encodeProbe(high.probe, high.columns, hi);
    if (high.inclusive) bounded = successor(hi);
  }
  scan(lo, bounded ? &hi : nullptr, reverse, fn);
}

void ArtIndex::forEachEqual(const uint8_t* probe, const std::function<void(uint64_t)>& fn) const {
  KeyBytes k;
  key().encodeProbe(probe, static_cast<uint32_t>(columns().size()), k);
  scanPrefix(k, false, [&](uint64_t r) {
    fn(r);
    return true;
  });
}

uint64_t ArtIndex::findFirst(const uint8_t* probe) const {
  // A key of fixed-width columns is encoded on the stack: point lookups are most of what a
  // transaction asks of an index.
  uint8_t fixed[64];
  size_t size = 0, verified = 0;
  uint64_t row;
  if (key().encodeFixedProbe(probe, fixed, sizeof fixed, size)) {
    row = candidate(fixed, size, verified);
    if (verified == size) return row;  // the path matched every byte of the key: nothing to compare
  } else {
    KeyBytes k;
    key().encodeProbe(probe, static_cast<uint32_t>(columns().size()), k);
    row = candidate(k.data(), k.size(), verified);
  }
  return row != kNoRow && key().rowEqualsProbe(row, probe, key().firstUnverifiedColumn(verified)) ? row : kNoRow;
}

uint64_t ArtIndex::countEqual(uint64_t row) const {
  if (key().rowHasNull(row)) return 0;
  KeyBytes k;
  key().encodeRow(row, k);
  KeyBytes hi = k;
  bool bounded = successor(hi);
  uint64_t n = 0;
  scan(k, bounded ? &hi : nullptr, false, [&](uint64_t) {
    ++n;
    return true;
  });
  return n;
}

std::array<uint64_t, 4> ArtIndex::nodeCounts() const {
  std::array<uint64_t, 4> counts{};
  std::function<void(Child)> walk = [&](Child c) {
    if (c == 0 || isLeaf(c)) return;
    Node* n = nodeOf(c);
    if (typeOf(c) != n->type || hasPrefix(c) != (n->prefixLen > 0))
      throw Error(sqlstate::InternalError, "index \"" + name() + "\": a node's tag is out of step with the node");
    ++counts[n->type];
    forEachChild(n, false, [&](uint8_t, Child child) {
      walk(child);
      return true;
    });
  };
  walk(root_);
  return counts;
}

}  // namespace hyrax
