// The interpreter's loop and the native entry points into it. No LLVM here.
#include "codegen/interp/interpreter.hpp"

#include <alloca.h>

#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "engine/runtime/runtime.hpp"
#include "engine/util/error.hpp"

namespace hyrax::interp {

namespace {

inline int64_t signExtend(uint64_t v, unsigned shift) { return static_cast<int64_t>(v << shift) >> shift; }
inline double asDouble(uint64_t v) { return std::bit_cast<double>(v); }
inline uint64_t bits(double d) { return std::bit_cast<uint64_t>(d); }

template <typename T>
inline uint64_t loadAt(uint64_t address) {
  T v;
  std::memcpy(&v, reinterpret_cast<const void*>(static_cast<uintptr_t>(address)), sizeof(T));
  return static_cast<uint64_t>(v);
}
template <typename T>
inline void storeAt(uint64_t address, uint64_t v) {
  const T t = static_cast<T>(v);
  std::memcpy(reinterpret_cast<void*>(static_cast<uintptr_t>(address)), &t, sizeof(T));
}
inline void* pointer(uint64_t v) { return reinterpret_cast<void*>(static_cast<uintptr_t>(v)); }

}  // namespace

uint64_t execute(const Function& f, const uint64_t* args) {
  auto* r = static_cast<uint64_t*>(alloca(f.registers * sizeof(uint64_t)));
  std::memcpy(r, args, f.params * sizeof(uint64_t));
  if (!f.constants.empty()) std::memcpy(r + f.firstConstant, f.constants.data(), f.constants.size() * sizeof(uint64_t));
  uint8_t* stack = nullptr;
  if (f.stackBytes) {
    auto raw = reinterpret_cast<uintptr_t>(alloca(f.stackBytes + 16));
    stack = reinterpret_cast<uint8_t*>((raw + 15) & ~uintptr_t{15});
  }
  const Inst* const code = f.code.data();
  const Inst* pc = code;
  // Threaded dispatch (labels as values, GCC and Clang): each handler jumps to the next one's
  // label, a branch the CPU predicts per handler rather than one for the whole loop.
  static const void* const labels[] = {
#define HYRAX_INTERP_LABEL(name) &&op_##name,
      HYRAX_INTERP_OPS(HYRAX_INTERP_LABEL)
#undef HYRAX_INTERP_LABEL
  };
#define DISPATCH goto* labels[static_cast<uint16_t>(pc->op)]
#define NEXT \
  do {       \
    ++pc;    \
    DISPATCH; \
  } while (0)
#define BINARY(name, expr)                  \
  op_##name : {                             \
    const uint64_t x = r[pc->a], y = r[pc->b]; \
    r[pc->dst] = (expr) & pc->imm;          \
    NEXT;                                   \
  }
#define COMPARE(name, expr)                 \
  op_##name : {                             \
    const uint64_t x = r[pc->a], y = r[pc->b]; \
    (void)x, (void)y;                       \
    r[pc->dst] = (expr) ? 1 : 0;            \
    NEXT;                                   \
  }
#define FLOAT_BINARY(name, expr)                                \
  op_##name : {                                                 \
    const double x = asDouble(r[pc->a]), y = asDouble(r[pc->b]); \
    r[pc->dst] = bits(expr);                                    \
    NEXT;                                                       \
  }
  DISPATCH;

op_Mov:
  r[pc->dst] = r[pc->a];
  NEXT;
op_AddImm:
  r[pc->dst] = r[pc->a] + pc->imm;
  NEXT;
  BINARY(Add, x + y)
  BINARY(Sub, x - y)
  BINARY(Mul, x * y)
  BINARY(And, x & y)
  BINARY(Or, x | y)
  BINARY(Xor, x ^ y)
  BINARY(Shl, x << (y & 63))
  BINARY(LShr, x >> (y & 63))
  BINARY(AShr, static_cast<uint64_t>(signExtend(x, pc->shift) >> (y & 63)))
  // Division by zero and INT_MIN / -1 are poison in LLVM (generated code checks before it
  // divides); here they must not trap the process.
  BINARY(UDiv, y ? x / y : 0)
  BINARY(URem, y ? x % y : 0)
op_SDiv: {
  const int64_t x = signExtend(r[pc->a], pc->shift), y = signExtend(r[pc->b], pc->shift);
  r[pc->dst] = (y == 0 || (y == -1 && x == INT64_MIN) ? static_cast<uint64_t>(x) * (y == -1)
                                                          : static_cast<uint64_t>(x / y)) & pc->imm;
  NEXT;
}
op_SRem: {
  const int64_t x = signExtend(r[pc->a], pc->shift), y = signExtend(r[pc->b], pc->shift);
  r[pc->dst] = (y == 0 || y == -1 ? 0 : static_cast<uint64_t>(x % y)) & pc->imm;
  NEXT;
}
op_MaskMov:
  r[pc->dst] = r[pc->a] & pc->imm;
  NEXT;
op_SExt:
  r[pc->dst] = static_cast<uint64_t>(signExtend(r[pc->a], pc->shift)) & pc->imm;
  NEXT;
  COMPARE(IcmpEq, x == y)
  COMPARE(IcmpNe, x != y)
  COMPARE(IcmpUlt, x < y)
  COMPARE(IcmpUle, x <= y)
  COMPARE(IcmpSlt, signExtend(x, pc->shift) < signExtend(y, pc->shift))
  COMPARE(IcmpSle, signExtend(x, pc->shift) <= signExtend(y, pc->shift))
op_Select:
  r[pc->dst] = (r[pc->a] & 1) ? r[pc->b] : r[pc->imm];
  NEXT;
  FLOAT_BINARY(FAdd, x + y)
  FLOAT_BINARY(FSub, x - y)
  FLOAT_BINARY(FMul, x * y)
  FLOAT_BINARY(FDiv, x / y)
  FLOAT_BINARY(FRem, std::fmod(x, y))
op_FNeg:
  r[pc->dst] = bits(-asDouble(r[pc->a]));
  NEXT;
op_RoundF32:
  r[pc->dst] = bits(static_cast<double>(static_cast<float>(asDouble(r[pc->a]))));
  NEXT;
#define FCOMPARE(name, expr)                                    \
  op_##name : {                                                 \
    const double x = asDouble(r[pc->a]), y = asDouble(r[pc->b]); \
    r[pc->dst] = (expr) ? 1 : 0;                                \
    NEXT;                                                       \
  }
  FCOMPARE(FcmpOeq, x == y)
  FCOMPARE(FcmpOne, x < y || x > y)
  FCOMPARE(FcmpOlt, x < y)
  FCOMPARE(FcmpOle, x <= y)
  FCOMPARE(FcmpOrd, !std::isnan(x) && !std::isnan(y))
  FCOMPARE(FcmpUno, std::isnan(x) || std::isnan(y))
  FCOMPARE(FcmpUeq, !(x < y || x > y))
  FCOMPARE(FcmpUne, x != y)
  FCOMPARE(FcmpUlt, !(x >= y))
  FCOMPARE(FcmpUle, !(x > y))
op_SIToFP:
  r[pc->dst] = bits(static_cast<double>(signExtend(r[pc->a], pc->shift)));
  NEXT;
op_UIToFP:
  r[pc->dst] = bits(static_cast<double>(r[pc->a]));
  NEXT;
op_SIToF32:
  r[pc->dst] = bits(static_cast<double>(static_cast<float>(signExtend(r[pc->a], pc->shift))));
  NEXT;
op_UIToF32:
  r[pc->dst] = bits(static_cast<double>(static_cast<float>(r[pc->a])));
  NEXT;
op_FPToSI: {  // out of range is poison in LLVM, undefined in C++
  const double d = asDouble(r[pc->a]);
  r[pc->dst] = (d > -9.2233720368547758e18 && d < 9.2233720368547758e18 ? static_cast<uint64_t>(static_cast<int64_t>(d)) : 0) & pc->imm;
  NEXT;
}
op_FPToUI: {
  const double d = asDouble(r[pc->a]);
  r[pc->dst] = (d > -1.0 && d < 1.8446744073709552e19 ? static_cast<uint64_t>(d) : 0) & pc->imm;
  NEXT;
}
op_Load1:
  r[pc->dst] = loadAt<uint8_t>(r[pc->a] + pc->imm) & 1;
  NEXT;
op_Load8:
  r[pc->dst] = loadAt<uint8_t>(r[pc->a] + pc->imm);
  NEXT;
op_Load16:
  r[pc->dst] = loadAt<uint16_t>(r[pc->a] + pc->imm);
  NEXT;
op_Load32:
  r[pc->dst] = loadAt<uint32_t>(r[pc->a] + pc->imm);
  NEXT;
op_Load64:
  r[pc->dst] = loadAt<uint64_t>(r[pc->a] + pc->imm);
  NEXT;
op_LoadF32: {
  float v;
  std::memcpy(&v, pointer(r[pc->a] + pc->imm), sizeof v);
  r[pc->dst] = bits(static_cast<double>(v));
  NEXT;
}
op_Store8:
  storeAt<uint8_t>(r[pc->a] + pc->imm, r[pc->b]);
  NEXT;
op_Store16:
  storeAt<uint16_t>(r[pc->a] + pc->imm, r[pc->b]);
  NEXT;
op_Store32:
  storeAt<uint32_t>(r[pc->a] + pc->imm, r[pc->b]);
  NEXT;
op_Store64:
  storeAt<uint64_t>(r[pc->a] + pc->imm, r[pc->b]);
  NEXT;
op_StoreF32: {
  const float v = static_cast<float>(asDouble(r[pc->b]));
  std::memcpy(pointer(r[pc->a] + pc->imm), &v, sizeof v);
  NEXT;
}
op_AtomicLoad: {
  void* p = pointer(r[pc->a] + pc->imm);
  switch (pc->shift) {
    case 1: r[pc->dst] = __atomic_load_n(static_cast<uint8_t*>(p), __ATOMIC_RELAXED); break;
    case 2: r[pc->dst] = __atomic_load_n(static_cast<uint16_t*>(p), __ATOMIC_RELAXED); break;
    case 4: r[pc->dst] = __atomic_load_n(static_cast<uint32_t*>(p), __ATOMIC_RELAXED); break;
    default: r[pc->dst] = __atomic_load_n(static_cast<uint64_t*>(p), __ATOMIC_RELAXED); break;
  }
  NEXT;
}
op_AtomicStore: {
  void* p = pointer(r[pc->a] + pc->imm);
  const uint64_t v = r[pc->b];
  switch (pc->shift) {
    case 1: __atomic_store_n(static_cast<uint8_t*>(p), static_cast<uint8_t>(v), __ATOMIC_RELAXED); break;
    case 2: __atomic_store_n(static_cast<uint16_t*>(p), static_cast<uint16_t>(v), __ATOMIC_RELAXED); break;
    case 4: __atomic_store_n(static_cast<uint32_t*>(p), static_cast<uint32_t>(v), __ATOMIC_RELAXED); break;
    default: __atomic_store_n(static_cast<uint64_t*>(p), v, __ATOMIC_RELAXED); break;
  }
  NEXT;
}
op_GepIndex:
  r[pc->dst] = r[pc->a] + static_cast<uint64_t>(signExtend(r[pc->b], pc->shift)) * pc->imm;
  NEXT;
op_Alloca:
  r[pc->dst] = reinterpret_cast<uintptr_t>(stack + pc->imm);
  NEXT;
op_Br:
  pc = code + pc->imm;
  DISPATCH;
op_CondBr:
  pc = code + ((r[pc->a] & 1) ? pc->b : pc->imm);
  DISPATCH;
#define COMPARE_BRANCH(name, expr)                                     \
  op_##name : {                                                        \
    const uint64_t x = r[pc->a], y = r[pc->b];                         \
    pc = code + ((expr) ? pc->dst : pc->imm);                          \
    DISPATCH;                                                          \
  }
  COMPARE_BRANCH(BrEq, x == y)
  COMPARE_BRANCH(BrNe, x != y)
  COMPARE_BRANCH(BrUlt, x < y)
  COMPARE_BRANCH(BrUle, x <= y)
  COMPARE_BRANCH(BrSlt, signExtend(x, pc->shift) < signExtend(y, pc->shift))
  COMPARE_BRANCH(BrSle, signExtend(x, pc->shift) <= signExtend(y, pc->shift))
#define LOAD_INDEXED(name, type)                                                                              \
  op_##name:                                                                                                  \
  r[pc->dst] = loadAt<type>(r[pc->a] + (static_cast<uint64_t>(signExtend(r[pc->b], pc->shift)) << pc->aux) + pc->imm); \
  NEXT;
  LOAD_INDEXED(LoadIdx8, uint8_t)
  LOAD_INDEXED(LoadIdx16, uint16_t)
  LOAD_INDEXED(LoadIdx32, uint32_t)
  LOAD_INDEXED(LoadIdx64, uint64_t)
op_Switch: {
  const SwitchTable& t = f.switches[pc->imm];
  const uint64_t v = r[pc->a];
  uint64_t to = t.defaultTarget;
  for (auto& c : t.cases)
    if (c.first == v) {
      to = c.second;
      break;
    }
  pc = code + to;
  DISPATCH;
}
op_Ret:
  return r[pc->a];
op_RetVoid:
  return 0;
op_Unreachable:
  throw Error(sqlstate::InternalError, "interpreted code reached unreachable code in " + f.name);
op_CallNative: {
  const CallSite& c = f.calls[pc->imm];
  uint64_t argv[8];
  for (size_t i = 0; i < c.args.size(); ++i) argv[i] = r[c.args[i]];
  c.invoke(c.native, argv, &r[pc->dst]);
  NEXT;
}
op_CallFunction: {
  const CallSite& c = f.calls[pc->imm];
  auto* argv = static_cast<uint64_t*>(alloca(c.args.size() * sizeof(uint64_t) + sizeof(uint64_t)));
  for (size_t i = 0; i < c.args.size(); ++i) argv[i] = r[c.args[i]];
  r[pc->dst] = execute(*c.callee, argv);
  NEXT;
}
op_MemSet:
  std::memset(pointer(r[pc->dst]), static_cast<int>(r[pc->a] & 0xff), static_cast<size_t>(r[pc->b]));
  NEXT;
op_MemCpy:
  std::memcpy(pointer(r[pc->dst]), pointer(r[pc->a]), static_cast<size_t>(r[pc->b]));
  NEXT;
op_MemMove:
  std::memmove(pointer(r[pc->dst]), pointer(r[pc->a]), static_cast<size_t>(r[pc->b]));
  NEXT;
#define OVERFLOW_OP(name, builtin)                                                       \
  op_##name : {                                                                          \
    const int64_t x = signExtend(r[pc->a], pc->shift), y = signExtend(r[pc->b], pc->shift); \
    int64_t result;                                                                      \
    bool overflow = builtin(x, y, &result);                                              \
    overflow = overflow || signExtend(static_cast<uint64_t>(result), pc->shift) != result;  \
    r[pc->dst] = static_cast<uint64_t>(result) & (~uint64_t{0} >> pc->shift);            \
    r[pc->dst + 1] = overflow ? 1 : 0;                                                   \
    NEXT;                                                                                \
  }
  OVERFLOW_OP(SAddOv, __builtin_add_overflow)
  OVERFLOW_OP(SSubOv, __builtin_sub_overflow)
  OVERFLOW_OP(SMulOv, __builtin_mul_overflow)
op_Sqrt:
  r[pc->dst] = bits(std::sqrt(asDouble(r[pc->a])));
  NEXT;
op_Fabs:
  r[pc->dst] = bits(std::fabs(asDouble(r[pc->a])));
  NEXT;
#undef DISPATCH
#undef NEXT
#undef BINARY
#undef COMPARE
#undef FLOAT_BINARY
#undef FCOMPARE
#undef OVERFLOW_OP
#undef COMPARE_BRANCH
#undef LOAD_INDEXED
}

// Native entry points: a fixed set of ordinary functions per signature, each running the
// function its slot names. Taken and given back without a lock (a bit per slot), since a
// module may be freed on any thread, and a fork must never copy a lock held by another thread.
namespace {

constexpr uint32_t kPipelineEntries = 4096, kCompareEntries = 1024;
std::atomic<const Function*> pipelineTargets[kPipelineEntries];
std::atomic<const Function*> compareTargets[kCompareEntries];
std::atomic<uint64_t> pipelineUsed[kPipelineEntries / 64];
std::atomic<uint64_t> compareUsed[kCompareEntries / 64];

template <uint32_t N>
int32_t pipelineEntry(void* ctx, void** state, uint64_t begin, uint64_t end) {
  const uint64_t args[4] = {toSlot(ctx), toSlot(state), begin, end};
  return static_cast<int32_t>(execute(*pipelineTargets[N].load(std::memory_order_acquire), args));
}
template <uint32_t N>
int32_t compareEntry(const void* a, const void* b) {
  const uint64_t args[2] = {toSlot(a), toSlot(b)};
  return static_cast<int32_t>(execute(*compareTargets[N].load(std::memory_order_acquire), args));
}
using PipelineEntryFn = int32_t (*)(void*, void**, uint64_t, uint64_t);
using CompareEntryFn = int32_t (*)(const void*, const void*);
template <uint32_t... I>
constexpr std::array<PipelineEntryFn, sizeof...(I)> pipelineEntries(std::integer_sequence<uint32_t, I...>) {
  return {&pipelineEntry<I>...};
}
template <uint32_t... I>
constexpr std::array<CompareEntryFn, sizeof...(I)> compareEntries(std::integer_sequence<uint32_t, I...>) {
  return {&compareEntry<I>...};
}
const auto kPipelineTable = pipelineEntries(std::make_integer_sequence<uint32_t, kPipelineEntries>{});
const auto kCompareTable = compareEntries(std::make_integer_sequence<uint32_t, kCompareEntries>{});

bool takeSlot(std::atomic<uint64_t>* used, uint32_t words, uint32_t& slot) {
  for (uint32_t w = 0; w < words; ++w) {
    uint64_t bitsNow = used[w].load(std::memory_order_relaxed);
    while (bitsNow != ~uint64_t{0}) {
      const unsigned bit = static_cast<unsigned>(std::countr_one(bitsNow));
      if (used[w].compare_exchange_weak(bitsNow, bitsNow | uint64_t{1} << bit, std::memory_order_acq_rel)) {
        slot = w * 64 + bit;
        return true;
      }
    }
  }
  return false;
}

}  // namespace

bool bindEntry(const Function* f, EntryKind kind, uint32_t& slot, void*& entry) {
  if (kind == EntryKind::Pipeline) {
    if (!takeSlot(pipelineUsed, kPipelineEntries / 64, slot)) return false;
    pipelineTargets[slot].store(f, std::memory_order_release);
    entry = reinterpret_cast<void*>(kPipelineTable[slot]);
  } else {
    if (!takeSlot(compareUsed, kCompareEntries / 64, slot)) return false;
    compareTargets[slot].store(f, std::memory_order_release);
    entry = reinterpret_cast<void*>(kCompareTable[slot]);
  }
  return true;
}

void releaseEntry(EntryKind kind, uint32_t slot) {
  auto* used = kind == EntryKind::Pipeline ? pipelineUsed : compareUsed;
  used[slot / 64].fetch_and(~(uint64_t{1} << (slot % 64)), std::memory_order_acq_rel);
}

InterpretedModule::~InterpretedModule() {
  for (auto [kind, slot] : slots_) releaseEntry(kind, slot);
}

void* InterpretedModule::function(const std::string& name) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) throw Error(sqlstate::InternalError, "no interpreted function " + name);
  return it->second;
}

std::string disassemble(const Function& f) {
  static const char* const names[] = {
#define HYRAX_INTERP_NAME(name) #name,
      HYRAX_INTERP_OPS(HYRAX_INTERP_NAME)
#undef HYRAX_INTERP_NAME
  };
  std::string out = f.name + ": " + std::to_string(f.params) + " parameters, " + std::to_string(f.registers) +
                    " registers, constants from r" + std::to_string(f.firstConstant) + "\n";
  char line[160];
  for (size_t i = 0; i < f.code.size(); ++i) {
    const Inst& in = f.code[i];
    std::snprintf(line, sizeof line, "%5zu  %-12s r%u, r%u, r%u, imm %llu, shift %u\n", i, names[static_cast<uint16_t>(in.op)],
                  in.dst, in.a, in.b, static_cast<unsigned long long>(in.imm), in.shift);
    out += line;
  }
  return out;
}

const Function* InterpretedModule::bytecode(const std::string& name) const {
  for (auto& f : functions_)
    if (f->name == name) return f.get();
  return nullptr;
}

std::string InterpretedModule::disassemble() const {
  std::string out;
  for (auto& f : functions_) out += interp::disassemble(*f);
  return out;
}

size_t InterpretedModule::instructions() const {
  size_t n = 0;
  for (auto& f : functions_) n += f->code.size();
  return n;
}

}  // namespace hyrax::interp
