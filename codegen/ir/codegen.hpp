#pragma once
// The thin typed layer over llvm::IRBuilder that translators are written against: the module and
// its runtime declarations, generated functions with an error exit, If/Loop helpers, and loads and
// stores of SQL values in their physical layout. It keeps translators reading like the code
// they emit.
#include <functional>
#include <map>
#include <string>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "codegen/ir/sql_value.hpp"
#include "engine/runtime/abi_layout.hpp"

namespace hyrax::codegen {

class CodeGen {
 public:
  CodeGen(llvm::LLVMContext& ctx, llvm::Module& module);

  llvm::LLVMContext& ctx;
  llvm::Module& module;
  llvm::IRBuilder<> b;

  // ---- types ----
  llvm::Type* i1() { return b.getInt1Ty(); }
  llvm::Type* i8() { return b.getInt8Ty(); }
  llvm::Type* i16() { return b.getInt16Ty(); }
  llvm::Type* i32() { return b.getInt32Ty(); }
  llvm::Type* i64() { return b.getInt64Ty(); }
  llvm::Type* i128() { return b.getInt128Ty(); }
  llvm::Type* f64() { return b.getDoubleTy(); }
  llvm::PointerType* ptr() { return b.getPtrTy(); }
  // Register type of a SQL value's payload (strings: i64, the low half).
  llvm::Type* payloadType(const SqlType& t);

  llvm::Constant* c8(int64_t v) { return b.getInt8(static_cast<uint8_t>(v)); }
  llvm::Constant* c32(int64_t v) { return b.getInt32(static_cast<uint32_t>(v)); }
  llvm::Constant* c64(int64_t v) { return b.getInt64(static_cast<uint64_t>(v)); }
  llvm::Constant* cTrue() { return b.getTrue(); }
  llvm::Constant* cFalse() { return b.getFalse(); }
  llvm::Constant* cPtr(const void* p);  // a host address baked into the code (tables)

  // ---- runtime functions (declared on first use from engine/runtime's table) ----
  llvm::CallInst* call(const char* runtimeName, llvm::ArrayRef<llvm::Value*> args);
  llvm::Function* runtimeFunction(const char* runtimeName);
  // A prepared statement's parameter slots (hyrax_rt_params), fetched once per generated function.
  llvm::Value* parameterSlots();

  // ---- generated functions ----
  // Starts `i32 name(ptr ctx, ptr state, i64 begin, i64 end)`; returns 0 at the end, and 1 from
  // the error exit that raise()/checkStatus() branch to.
  llvm::Function* beginFunction(const std::string& name);
  // Starts a function of another signature (e.g. a sort comparator); its error exit returns 0.
  llvm::Function* beginFunction(const std::string& name, llvm::FunctionType* type);
  void endFunction();
  // Marks the current function as run little (optnone): instruction selection and register
  // allocation take the fast path on the full pipeline, so it costs less compile time. (The IR
  // passes still run on it: jit::optimize registers no OptNone instrumentation.)
  void markCold();
  void endFunction(llvm::Value* result);  // for functions from the second beginFunction
  llvm::Function* function() const { return fn_; }
  llvm::Value* arg(unsigned i) const { return fn_->getArg(i); }
  llvm::Value* queryContext() const { return fn_->getArg(0); }
  llvm::Value* stateArg() const { return fn_->getArg(1); }
  // A pipeline function's result: done with its morsel, failed (the QueryContext says why), or
  // done with the whole pipeline (a LIMIT is satisfied: hand out no more morsels).
  static constexpr int32_t kPipelineOk = 0, kPipelineFailed = 1, kPipelineStop = 2;
  // Leaves the pipeline early with kPipelineStop.
  void returnEarly();

  // Records runtime error `code` (HyraxRuntimeError) and leaves with status 1.
  void raise(int32_t code);
  void raiseIf(llvm::Value* cond, int32_t code);
  // The same with a runtime function of its own recording the error (one that says more than a
  // code can), called with `args` after the query context.
  void raiseIf(llvm::Value* cond, const char* runtimeName, llvm::ArrayRef<llvm::Value*> args);
  // A runtime call returned a status: leave with it when non-zero.
  void checkStatus(llvm::Value* status);
  // A runtime function's pointer result, null after it recorded an error (memory): to the error exit.
  llvm::Value* checkNotNull(llvm::Value* pointer);
  // Where raise()/checkStatus() branch to: the function's error exit unless set to another block
  // (a procedure body's EXCEPTION block catches the failures of the steps it protects).
  llvm::BasicBlock* errorExit() const { return errorBlock_; }
  void setErrorExit(llvm::BasicBlock* block) { errorBlock_ = block; }
  // Where a long-running loop may be cancelled: counts down a per-function budget in a register
  // and asks the runtime only when it runs out, so it is cheap enough for every row and every
  // chain entry, and Ctrl-C still stops a join that fans out within a fraction of a second.
  void cancelPoint();
  void checkCancel();  // asks the runtime now (loops that bound their own work between checks)

  // ---- control flow ----
  void If(llvm::Value* cond, const std::function<void()>& then, const std::function<void()>& otherwise = {});
  // If with what the condition usually is, as branch weights: LLVM lays the usual way out as the
  // straight line and the other out of the loop (a row's hot path then takes no jump for it).
  enum class Usually { True, False };
  void If(llvm::Value* cond, Usually usually, const std::function<void()>& then);
  // Branch weights for a condition that is usually `usually` (error checks: false).
  llvm::MDNode* weights(Usually usually);
  // for (i = begin; i < end; ++i) body(i); body may call Continue-free code only.
  void ForRange(llvm::Value* begin, llvm::Value* end, const std::function<void(llvm::Value*)>& body);
  // while (cond()) body(); cond may branch (its i1 is taken where it ends).
  void While(const std::function<llvm::Value*()>& cond, const std::function<void()>& body);
  // Walks a chain of hash table entries (HashEntryHeader::next) from `head` until nullptr.
  void ForChain(llvm::Value* head, const std::function<void(llvm::Value*)>& body);
  // The first entry of the chain from `head` for which `matches` (which may branch) yields true,
  // or nullptr: the walk stops at the first match.
  llvm::Value* FindInChain(llvm::Value* head, const std::function<llvm::Value*(llvm::Value*)>& matches);
  // A stack slot in the entry block (mem2reg turns it into registers).
  llvm::AllocaInst* local(llvm::Type* t, const std::string& name = "");
  // The current function's entry block: what is appended there runs once per call, before the
  // function's other code (values the whole function reads, like a state slot's pointer).
  llvm::BasicBlock* entryBlock() const { return allocaBlock_; }
  // Asks for the cache line at `addr` (to be written: `forWrite`), keeping it close (locality 3).
  void prefetch(llvm::Value* addr, bool forWrite = false);

  // ---- structs shared with C++ (engine/runtime/abi_layout.hpp) ----
  // The LLVM type of a layout, its fields at the offsets the target's DataLayout gives.
  llvm::StructType* structType(const AbiLayout& layout);
  uint64_t sizeOf(const AbiLayout& layout);  // the target's size of one (arrays step by it)
  // The address of field `f` (the layout's field enum) of the struct at `base`.
  template <typename Field>
  llvm::Value* field(llvm::Value* base, const AbiLayout& layout, Field f) {
    return fieldAddress(base, layout, static_cast<unsigned>(f));
  }
  llvm::Value* fieldAddress(llvm::Value* base, const AbiLayout& layout, unsigned field);
  // The address of base[index] in an array of such structs.
  llvm::Value* element(llvm::Value* base, const AbiLayout& layout, llvm::Value* index);
  llvm::Value* element(llvm::Value* base, const AbiLayout& layout, uint64_t index) { return element(base, layout, c64(index)); }
  // A stack array of `count` such structs.
  llvm::AllocaInst* localArray(const AbiLayout& layout, uint64_t count, const std::string& name = "");
  // Slot i of an array of ValueSlots (engine/runtime/value_slot.hpp: parameters, procedure
  // variables, routine arguments, a one-row write): its value's and its NULL flag's addresses,
  // and the value with its flag read or written (a value of the NULL type writes only the flag).
  llvm::Value* slotValue(llvm::Value* slots, uint64_t i);
  llvm::Value* slotNull(llvm::Value* slots, uint64_t i);
  SqlValue loadSlot(llvm::Value* slots, uint64_t i, const SqlType& t);
  void storeSlot(llvm::Value* slots, uint64_t i, const SqlValue& v);

  // A string a runtime call returns through `uint64_t* out` (its two halves, out[0] and out[1],
  // as string_ref.hpp splits it): a zeroed stack pair, and the halves read back into v / hi.
  llvm::AllocaInst* localStringOut(const std::string& name);
  void loadStringOut(llvm::Value* out, SqlValue& into);

  // ---- memory ----
  llvm::Value* gep(llvm::Value* base, uint64_t offset);  // byte offset
  llvm::Value* loadPtr(llvm::Value* addr) { return b.CreateLoad(ptr(), addr); }
  // Loads/stores a value of type t (physical layout) at addr; no NULL handling.
  SqlValue loadValue(llvm::Value* addr, const SqlType& t);
  void storeValue(llvm::Value* addr, const SqlValue& v);
  // Pointer to the state slot i (each slot one pointer).
  llvm::Value* stateSlot(uint32_t i);

  // Unique names for generated functions.
  std::string uniqueName(const std::string& base);

 private:
  // The loop over a chain both chain walks share: `entry` is the current entry (never nullptr in
  // the body); the walk leaves to `exit` at the chain's end.
  struct ChainWalk {
    llvm::BasicBlock* loop;
    llvm::BasicBlock* exit;
    llvm::PHINode* entry;
  };
  ChainWalk beginChainWalk(llvm::Value* head, const char* name);
  void continueChainWalk(const ChainWalk& w);  // follows the next pointer from the insert point

  llvm::Function* fn_ = nullptr;
  llvm::BasicBlock* errorBlock_ = nullptr;
  llvm::BasicBlock* allocaBlock_ = nullptr;
  llvm::AllocaInst* cancelBudget_ = nullptr;  // per function, created by the first cancelPoint()
  llvm::Value* parameterSlots_ = nullptr;     // per function, created by the first parameterSlots()
  std::map<std::pair<llvm::BasicBlock*, int32_t>, llvm::BasicBlock*> raiseBlocks_;  // raiseIf's, per function
  unsigned nameCounter_ = 0;
};

}  // namespace hyrax::codegen
