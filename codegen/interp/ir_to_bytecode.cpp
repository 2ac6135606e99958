// Generated LLVM IR (as the code generator made it, before any pass) into the interpreter's
// bytecode (bytecode.hpp). One pass over each function: every SSA value gets a register, a
// constant a register filled at each call, a phi's value moves on the edge that leads to it.
// What the code generator does not make (vectors, integers wider than 64 bits, indirect calls,
// atomics other than relaxed loads and stores) is refused: the caller compiles the module instead.
#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/GetElementPtrTypeIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>
#include <llvm/Support/raw_ostream.h>

#include <bit>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "codegen/interp/interpreter.hpp"
#include "engine/runtime/runtime.hpp"

namespace hyrax::interp {

namespace {
struct Refused {
  std::string why;
};
[[noreturn]] void refuse(const std::string& why) { throw Refused{why}; }

uint64_t maskOf(unsigned width) { return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }
}  // namespace

class FunctionTranslator;

class Translator {
 public:
  Translator(const llvm::Module& m, InterpretedModule& out) : m_(m), dl_(m.getDataLayout()), out_(out) {}

  void run();

 private:
  friend class FunctionTranslator;

  // A function's entry kind by its signature; refused when it has none.
  static std::optional<EntryKind> kindOf(const llvm::Function& f) {
    const llvm::FunctionType* t = f.getFunctionType();
    if (!t->getReturnType()->isIntegerTy(32) || t->isVarArg()) return std::nullopt;
    if (t->getNumParams() == 4 && t->getParamType(0)->isPointerTy() && t->getParamType(1)->isPointerTy() &&
        t->getParamType(2)->isIntegerTy(64) && t->getParamType(3)->isIntegerTy(64))
      return EntryKind::Pipeline;
    if (t->getNumParams() == 2 && t->getParamType(0)->isPointerTy() && t->getParamType(1)->isPointerTy())
      return EntryKind::Compare;
    return std::nullopt;
  }

  uint64_t entryOf(const llvm::Function& lf) {
    std::string name = lf.getName().str();
    if (auto it = out_.entries_.find(name); it != out_.entries_.end()) return reinterpret_cast<uintptr_t>(it->second);
    auto kind = kindOf(lf);
    if (!kind) refuse("the address of " + name + ", a function of another signature");
    uint32_t slot;
    void* entry;
    if (!bindEntry(functions_.at(&lf), *kind, slot, entry)) refuse("every entry point is taken");
    out_.slots_.push_back({*kind, slot});
    out_.entries_[name] = entry;
    return reinterpret_cast<uintptr_t>(entry);
  }

  uint64_t globalAddress(const llvm::GlobalVariable& g) {
    if (auto it = globals_.find(&g); it != globals_.end()) return it->second;
    const uint64_t bytes = dl_.getTypeAllocSize(g.getValueType());
    auto storage = std::make_unique<uint64_t[]>(bytes / 8 + 2);  // zeroed, 8-aligned
    auto address = reinterpret_cast<uintptr_t>(storage.get());
    if (g.getAlign() && g.getAlign()->value() > 8) refuse("a global aligned to more than 8 bytes");
    globals_[&g] = address;
    out_.globals_.push_back(std::move(storage));
    if (g.hasInitializer()) write(reinterpret_cast<uint8_t*>(address), g.getInitializer());
    return address;
  }

  // A constant's bytes in memory (a global's initializer).
  void write(uint8_t* at, const llvm::Constant* c) {
    if (llvm::isa<llvm::ConstantAggregateZero>(c) || llvm::isa<llvm::UndefValue>(c)) return;  // zeroed
    if (auto* d = llvm::dyn_cast<llvm::ConstantDataSequential>(c)) {
      llvm::StringRef raw = d->getRawDataValues();
      std::memcpy(at, raw.data(), raw.size());
      return;
    }
    if (auto* s = llvm::dyn_cast<llvm::ConstantStruct>(c)) {
      const llvm::StructLayout* layout = dl_.getStructLayout(s->getType());
      for (unsigned i = 0; i < s->getNumOperands(); ++i) write(at + layout->getElementOffset(i), s->getOperand(i));
      return;
    }
    if (auto* a = llvm::dyn_cast<llvm::ConstantArray>(c)) {
      const uint64_t step = dl_.getTypeAllocSize(a->getType()->getElementType());
      for (unsigned i = 0; i < a->getNumOperands(); ++i) write(at + i * step, a->getOperand(i));
      return;
    }
    llvm::Type* t = c->getType();
    const uint64_t v = constant(c);
    if (t->isFloatTy()) {
      const float f = static_cast<float>(std::bit_cast<double>(v));
      std::memcpy(at, &f, sizeof f);
    } else if (t->isIntegerTy() || t->isPointerTy() || t->isDoubleTy()) {
      std::memcpy(at, &v, dl_.getTypeStoreSize(t));  // little-endian: the low bytes
    } else {
      refuse("a global's initializer");
    }
  }

  // A constant's register value (bytecode.hpp's representation).
  uint64_t constant(const llvm::Constant* c) {
    if (auto* i = llvm::dyn_cast<llvm::ConstantInt>(c)) {
      if (i->getBitWidth() > 64) refuse("an integer wider than 64 bits");
      return i->getZExtValue();
    }
    if (auto* fp = llvm::dyn_cast<llvm::ConstantFP>(c)) {
      if (fp->getType()->isDoubleTy()) return std::bit_cast<uint64_t>(fp->getValueAPF().convertToDouble());
      if (fp->getType()->isFloatTy()) return std::bit_cast<uint64_t>(static_cast<double>(fp->getValueAPF().convertToFloat()));
      refuse("a floating-point type other than float and double");
    }
    if (llvm::isa<llvm::ConstantPointerNull>(c) || llvm::isa<llvm::UndefValue>(c)) {
      if (c->getType()->isStructTy() || c->getType()->isVectorTy() || c->getType()->isArrayTy()) refuse("an aggregate constant");
      return 0;
    }
    if (auto* g = llvm::dyn_cast<llvm::GlobalVariable>(c)) return globalAddress(*g);
    if (auto* f = llvm::dyn_cast<llvm::Function>(c)) {
      if (!f->isDeclaration()) return entryOf(*f);
      if (const RuntimeFunction* rt = findRuntimeFunction(f->getName().str().c_str()))
        return reinterpret_cast<uintptr_t>(rt->address);
      refuse("the address of " + f->getName().str());
    }
    if (auto* e = llvm::dyn_cast<llvm::ConstantExpr>(c)) {
      switch (e->getOpcode()) {
        case llvm::Instruction::IntToPtr:
        case llvm::Instruction::PtrToInt:
        case llvm::Instruction::BitCast:
          if (e->getType()->isFloatTy() || e->getOperand(0)->getType()->isFloatTy()) break;
          return constant(e->getOperand(0)) & maskOf(bitsOf(e->getType()));
        case llvm::Instruction::GetElementPtr: {
          llvm::APInt offset(dl_.getIndexTypeSizeInBits(e->getType()), 0);
          if (!llvm::cast<llvm::GEPOperator>(e)->accumulateConstantOffset(dl_, offset)) break;
          return constant(e->getOperand(0)) + offset.getSExtValue();
        }
        default: break;
      }
      refuse(std::string("a constant expression ") + e->getOpcodeName());
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    c->print(os);
    refuse("a constant of another kind: " + text);
  }

  unsigned bitsOf(llvm::Type* t) const {
    if (t->isPointerTy()) return dl_.getPointerSizeInBits();
    if (t->isIntegerTy() && t->getIntegerBitWidth() <= 64) return t->getIntegerBitWidth();
    if (t->isDoubleTy() || t->isFloatTy()) return 64;
    refuse("a value of another type");
  }

  const llvm::Module& m_;
  const llvm::DataLayout& dl_;
  InterpretedModule& out_;
  llvm::DenseMap<const llvm::Function*, Function*> functions_;
  llvm::DenseMap<const llvm::GlobalVariable*, uint64_t> globals_;
};

class FunctionTranslator {
 public:
  FunctionTranslator(Translator& t, const llvm::Function& lf, Function& f) : t_(t), lf_(lf), f_(f) {}

  void run() {
    // Registers for the parameters, then every value; the constants get theirs after these.
    for (const llvm::Argument& a : lf_.args()) {
      if (!a.getType()->isIntegerTy() && !a.getType()->isPointerTy() && !a.getType()->isDoubleTy() && !a.getType()->isFloatTy())
        refuse("a parameter of another type");
      regs_[&a] = next_++;
    }
    f_.params = next_;
    size_t mostPhis = 0;
    for (const llvm::BasicBlock& bb : lf_) {
      size_t phis = 0;
      for (const llvm::Instruction& i : bb) {
        if (llvm::isa<llvm::PHINode>(i)) ++phis;
        if (i.getType()->isVoidTy()) continue;
        if (i.getType()->isVectorTy() || (i.getType()->isIntegerTy() && i.getType()->getIntegerBitWidth() > 64))
          refuse("a vector or an integer wider than 64 bits");
        if (auto* st = llvm::dyn_cast<llvm::StructType>(i.getType())) {
          for (llvm::Type* e : st->elements())
            if (e->isStructTy() || e->isArrayTy() || e->isVectorTy()) refuse("a nested struct value");
          regs_[&i] = next_;
          next_ += st->getNumElements();
        } else {
          regs_[&i] = next_++;
        }
        if (auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(&i)) {
          considerFolding(*gep);
          considerIndexing(*gep);
        }
        if (auto* cmp = llvm::dyn_cast<llvm::ICmpInst>(&i)) considerFusing(*cmp);
      }
      mostPhis = std::max(mostPhis, phis);
    }
    scratch_ = next_++;
    temps_ = next_;
    next_ += static_cast<uint32_t>(mostPhis);
    f_.firstConstant = next_;

    for (const llvm::BasicBlock& bb : lf_) {
      blockAt_[&bb] = static_cast<uint32_t>(f_.code.size());
      for (const llvm::Instruction& i : bb) instruction(i);
    }
    // Edges into blocks with phis, for conditional branches and switches: the moves, then on.
    for (auto& e : edges_) {
      const uint32_t at = static_cast<uint32_t>(f_.code.size());
      phiMoves(e.from, e.to);
      emit({Op::Br}).imm = blockAt_.at(e.to);
      patch(e.inst, e.field, at);
    }
    for (auto& p : jumps_) patch(p.inst, p.field, blockAt_.at(p.to));
    f_.registers = next_ + static_cast<uint32_t>(f_.constants.size());
  }

 private:
  // A GEP of constant offset whose every use is the address of a load or store: not computed,
  // the loads and stores add the offset to its base themselves.
  void considerFolding(const llvm::GetElementPtrInst& gep) {
    llvm::APInt offset(t_.dl_.getIndexTypeSizeInBits(gep.getType()), 0);
    if (!gep.accumulateConstantOffset(t_.dl_, offset)) return;
    for (const llvm::User* u : gep.users()) {
      if (auto* l = llvm::dyn_cast<llvm::LoadInst>(u); l && l->getPointerOperand() == &gep) continue;
      if (auto* s = llvm::dyn_cast<llvm::StoreInst>(u); s && s->getPointerOperand() == &gep && s->getValueOperand() != &gep)
        continue;
      return;
    }
    folded_[&gep] = {gep.getPointerOperand(), static_cast<uint64_t>(offset.getSExtValue())};
  }

  // An icmp whose one use is the conditional branch right after it: one instruction for both
  // (BrEq ...), a dispatch less on every loop's test.
  void considerFusing(const llvm::ICmpInst& cmp) {
    if (!cmp.hasOneUse()) return;
    auto* br = llvm::dyn_cast<llvm::BranchInst>(cmp.user_back());
    if (br && br->isConditional() && br->getCondition() == &cmp && cmp.getNextNode() == br) fused_.insert(&cmp);
  }

  // A GEP of one variable index scaled by a power of two whose one use is a load's address: the
  // load computes the address itself (LoadIdx8 ...), a dispatch less per column value read.
  void considerIndexing(const llvm::GetElementPtrInst& gep) {
    if (t_.dl_.getPointerSizeInBits() != 64 || !gep.hasOneUse() || folded_.count(&gep)) return;
    auto* load = llvm::dyn_cast<llvm::LoadInst>(gep.user_back());
    if (!load || load->getPointerOperand() != &gep || !load->isSimple()) return;
    llvm::Type* t = load->getType();
    if (!(t->isIntegerTy(8) || t->isIntegerTy(16) || t->isIntegerTy(32) || t->isIntegerTy(64) || t->isPointerTy() ||
          t->isDoubleTy()))
      return;
    Indexed x;
    bool variable = false;
    for (auto it = llvm::gep_type_begin(gep), end = llvm::gep_type_end(gep); it != end; ++it) {
      const llvm::Value* idx = it.getOperand();
      if (llvm::StructType* st = it.getStructTypeOrNull()) {
        x.offset += t_.dl_.getStructLayout(st)->getElementOffset(static_cast<unsigned>(llvm::cast<llvm::ConstantInt>(idx)->getZExtValue()));
        continue;
      }
      const uint64_t scale = it.getSequentialElementStride(t_.dl_);
      if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(idx)) {
        x.offset += static_cast<uint64_t>(c->getSExtValue()) * scale;
        continue;
      }
      if (variable || !idx->getType()->isIntegerTy() || idx->getType()->getIntegerBitWidth() > 64 || !std::has_single_bit(scale))
        return;
      variable = true;
      x.index = idx;
      x.shift = shiftOf(idx->getType()->getIntegerBitWidth());
      x.log2Scale = static_cast<uint8_t>(std::countr_zero(scale));
    }
    if (!variable) return;
    // A byte offset made by a multiplication by a power of two for this GEP alone (the code
    // generator's i8 GEPs over column arrays): the load shifts the row number itself.
    if (auto* mul = llvm::dyn_cast<llvm::BinaryOperator>(x.index);
        mul && mul->getOpcode() == llvm::Instruction::Mul && mul->getType()->isIntegerTy(64) && mul->hasOneUse() && x.shift == 0)
      if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(mul->getOperand(1));
          c && c->getValue().isPowerOf2() && x.log2Scale + c->getValue().logBase2() < 64) {
        x.log2Scale = static_cast<uint8_t>(x.log2Scale + c->getValue().logBase2());
        x.index = mul->getOperand(0);
        skipped_.insert(mul);
      }
    indexed_[&gep] = x;
  }

  Inst& emit(Inst i) {
    f_.code.push_back(i);
    return f_.code.back();
  }

  uint32_t reg(const llvm::Value* v) {
    if (auto it = regs_.find(v); it != regs_.end()) return it->second;
    if (auto* c = llvm::dyn_cast<llvm::Constant>(v)) {
      const uint64_t value = t_.constant(c);
      auto [it, fresh] = constants_.try_emplace(value, 0);
      if (fresh) {
        it->second = next_ + static_cast<uint32_t>(f_.constants.size());
        f_.constants.push_back(value);
      }
      return it->second;
    }
    refuse("a value of another kind");
  }

  // An address: a register and an offset (a folded GEP's base and constant offset).
  std::pair<uint32_t, uint64_t> address(const llvm::Value* p) {
    if (auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(p))
      if (auto it = folded_.find(gep); it != folded_.end()) {
        auto [base, offset] = address(it->second.first);
        return {base, offset + it->second.second};
      }
    return {reg(p), 0};
  }

  unsigned bits(const llvm::Value* v) const { return t_.bitsOf(v->getType()); }
  static uint8_t shiftOf(unsigned width) { return static_cast<uint8_t>(64 - width); }

  void binary(Op op, const llvm::Instruction& i) {
    const unsigned w = bits(&i);
    emit({op, shiftOf(w), 0, regs_.at(&i), reg(i.getOperand(0)), reg(i.getOperand(1)), maskOf(w)});
  }
  void floatBinary(Op op, const llvm::Instruction& i) {
    emit({op, 0, 0, regs_.at(&i), reg(i.getOperand(0)), reg(i.getOperand(1)), 0});
    roundIfFloat(i);
  }
  void roundIfFloat(const llvm::Instruction& i) {
    if (i.getType()->isFloatTy()) emit({Op::RoundF32, 0, 0, regs_.at(&i), regs_.at(&i), 0, 0});
  }
  void mov(uint32_t dst, uint32_t src) {
    if (dst != src) emit({Op::Mov, 0, 0, dst, src, 0, 0});
  }

  void instruction(const llvm::Instruction& i) {
    using I = llvm::Instruction;
    if (skipped_.count(&i)) return;  // folded into the one instruction that uses it
    switch (i.getOpcode()) {
      case I::Add: return binary(Op::Add, i);
      case I::Sub: return binary(Op::Sub, i);
      case I::Mul: return binary(Op::Mul, i);
      case I::And: return binary(Op::And, i);
      case I::Or: return binary(Op::Or, i);
      case I::Xor: return binary(Op::Xor, i);
      case I::Shl: return binary(Op::Shl, i);
      case I::LShr: return binary(Op::LShr, i);
      case I::AShr: return binary(Op::AShr, i);
      case I::UDiv: return binary(Op::UDiv, i);
      case I::SDiv: return binary(Op::SDiv, i);
      case I::URem: return binary(Op::URem, i);
      case I::SRem: return binary(Op::SRem, i);
      case I::FAdd: return floatBinary(Op::FAdd, i);
      case I::FSub: return floatBinary(Op::FSub, i);
      case I::FMul: return floatBinary(Op::FMul, i);
      case I::FDiv: return floatBinary(Op::FDiv, i);
      case I::FRem: return floatBinary(Op::FRem, i);
      case I::FNeg: emit({Op::FNeg, 0, 0, regs_.at(&i), reg(i.getOperand(0)), 0, 0}); return;
      case I::ICmp: return icmp(llvm::cast<llvm::ICmpInst>(i));
      case I::FCmp: return fcmp(llvm::cast<llvm::FCmpInst>(i));
      case I::ZExt: return mov(regs_.at(&i), reg(i.getOperand(0)));
      case I::Freeze: return mov(regs_.at(&i), reg(i.getOperand(0)));
      case I::SExt:
        emit({Op::SExt, shiftOf(bits(i.getOperand(0))), 0, regs_.at(&i), reg(i.getOperand(0)), 0, maskOf(bits(&i))});
        return;
      case I::Trunc:
      case I::PtrToInt:
      case I::IntToPtr:
        emit({Op::MaskMov, 0, 0, regs_.at(&i), reg(i.getOperand(0)), 0, maskOf(bits(&i))});
        return;
      case I::BitCast:
        if (i.getType()->isFloatTy() || i.getOperand(0)->getType()->isFloatTy()) refuse("a bitcast of a float");
        return mov(regs_.at(&i), reg(i.getOperand(0)));
      case I::SIToFP:
        emit({i.getType()->isFloatTy() ? Op::SIToF32 : Op::SIToFP, shiftOf(bits(i.getOperand(0))), 0, regs_.at(&i),
              reg(i.getOperand(0)), 0, 0});
        return;
      case I::UIToFP:
        emit({i.getType()->isFloatTy() ? Op::UIToF32 : Op::UIToFP, 0, 0, regs_.at(&i), reg(i.getOperand(0)), 0, 0});
        return;
      case I::FPToSI:
        emit({Op::FPToSI, 0, 0, regs_.at(&i), reg(i.getOperand(0)), 0, maskOf(bits(&i))});
        return;
      case I::FPToUI:
        emit({Op::FPToUI, 0, 0, regs_.at(&i), reg(i.getOperand(0)), 0, maskOf(bits(&i))});
        return;
      case I::FPExt: return mov(regs_.at(&i), reg(i.getOperand(0)));
      case I::FPTrunc: emit({Op::RoundF32, 0, 0, regs_.at(&i), reg(i.getOperand(0)), 0, 0}); return;
      case I::Select: {
        if (i.getType()->isStructTy()) refuse("a select of a struct");
        Inst in{Op::Select, 0, 0, regs_.at(&i), reg(i.getOperand(0)), reg(i.getOperand(1)), 0};
        in.imm = reg(i.getOperand(2));
        emit(in);
        return;
      }
      case I::Load: return load(llvm::cast<llvm::LoadInst>(i));
      case I::Store: return store(llvm::cast<llvm::StoreInst>(i));
      case I::GetElementPtr: return gep(llvm::cast<llvm::GetElementPtrInst>(i));
      case I::Alloca: return alloca(llvm::cast<llvm::AllocaInst>(i));
      case I::PHI: return;  // moved on the edges
      case I::Br: return br(llvm::cast<llvm::BranchInst>(i));
      case I::Switch: return switchOf(llvm::cast<llvm::SwitchInst>(i));
      case I::Ret: {
        auto& r = llvm::cast<llvm::ReturnInst>(i);
        if (!r.getReturnValue()) {
          emit({Op::RetVoid});
          return;
        }
        if (r.getReturnValue()->getType()->isStructTy()) refuse("a struct returned");
        emit({Op::Ret, 0, 0, 0, reg(r.getReturnValue()), 0, 0});
        return;
      }
      case I::Unreachable: emit({Op::Unreachable}); return;
      case I::Call: return call(llvm::cast<llvm::CallInst>(i));
      case I::ExtractValue: {
        auto& e = llvm::cast<llvm::ExtractValueInst>(i);
        if (e.getNumIndices() != 1 || !regs_.count(e.getAggregateOperand())) refuse("an extractvalue of this form");
        return mov(regs_.at(&i), regs_.at(e.getAggregateOperand()) + e.getIndices()[0]);
      }
      default: refuse(std::string("the instruction ") + i.getOpcodeName());
    }
  }

  // An icmp as an instruction: the compare's (IcmpEq ...) or the fused branch's (BrEq ...), its
  // operands swapped for the predicates that have no instruction of their own.
  Inst compare(const llvm::ICmpInst& c, bool branch) {
    using P = llvm::CmpInst::Predicate;
    uint32_t a = reg(c.getOperand(0)), b = reg(c.getOperand(1));
    Op op;
    switch (c.getPredicate()) {
      case P::ICMP_EQ: op = branch ? Op::BrEq : Op::IcmpEq; break;
      case P::ICMP_NE: op = branch ? Op::BrNe : Op::IcmpNe; break;
      case P::ICMP_ULT: op = branch ? Op::BrUlt : Op::IcmpUlt; break;
      case P::ICMP_ULE: op = branch ? Op::BrUle : Op::IcmpUle; break;
      case P::ICMP_UGT: op = branch ? Op::BrUlt : Op::IcmpUlt, std::swap(a, b); break;
      case P::ICMP_UGE: op = branch ? Op::BrUle : Op::IcmpUle, std::swap(a, b); break;
      case P::ICMP_SLT: op = branch ? Op::BrSlt : Op::IcmpSlt; break;
      case P::ICMP_SLE: op = branch ? Op::BrSle : Op::IcmpSle; break;
      case P::ICMP_SGT: op = branch ? Op::BrSlt : Op::IcmpSlt, std::swap(a, b); break;
      case P::ICMP_SGE: op = branch ? Op::BrSle : Op::IcmpSle, std::swap(a, b); break;
      default: refuse("an integer comparison of another kind");
    }
    return {op, shiftOf(bits(c.getOperand(0))), 0, branch ? 0 : regs_.at(&c), a, b, 0};
  }
  void icmp(const llvm::ICmpInst& c) {
    if (!fused_.count(&c)) emit(compare(c, false));  // else its branch does it
  }

  void fcmp(const llvm::FCmpInst& c) {
    using P = llvm::CmpInst::Predicate;
    uint32_t a = reg(c.getOperand(0)), b = reg(c.getOperand(1));
    Op op;
    switch (c.getPredicate()) {
      case P::FCMP_OEQ: op = Op::FcmpOeq; break;
      case P::FCMP_ONE: op = Op::FcmpOne; break;
      case P::FCMP_OLT: op = Op::FcmpOlt; break;
      case P::FCMP_OLE: op = Op::FcmpOle; break;
      case P::FCMP_OGT: op = Op::FcmpOlt, std::swap(a, b); break;
      case P::FCMP_OGE: op = Op::FcmpOle, std::swap(a, b); break;
      case P::FCMP_ORD: op = Op::FcmpOrd; break;
      case P::FCMP_UNO: op = Op::FcmpUno; break;
      case P::FCMP_UEQ: op = Op::FcmpUeq; break;
      case P::FCMP_UNE: op = Op::FcmpUne; break;
      case P::FCMP_ULT: op = Op::FcmpUlt; break;
      case P::FCMP_ULE: op = Op::FcmpUle; break;
      case P::FCMP_UGT: op = Op::FcmpUlt, std::swap(a, b); break;
      case P::FCMP_UGE: op = Op::FcmpUle, std::swap(a, b); break;
      case P::FCMP_TRUE:
      case P::FCMP_FALSE:
        mov(regs_.at(&c), reg(llvm::ConstantInt::get(c.getType(), c.getPredicate() == P::FCMP_TRUE)));
        return;
      default: refuse("a floating-point comparison of another kind");
    }
    emit({op, 0, 0, regs_.at(&c), a, b, 0});
  }

  void load(const llvm::LoadInst& l) {
    llvm::Type* t = l.getType();
    auto [base, offset] = address(l.getPointerOperand());
    const uint64_t bytes = t_.dl_.getTypeStoreSize(t);
    if (l.isAtomic()) {
      if (!t->isIntegerTy() && !t->isPointerTy()) refuse("an atomic load of another type");
      emit({Op::AtomicLoad, static_cast<uint8_t>(bytes), 0, regs_.at(&l), base, 0, offset});
      return;
    }
    if (l.isVolatile()) refuse("a volatile load");
    if (auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(l.getPointerOperand()))
      if (auto it = indexed_.find(gep); it != indexed_.end()) {
        const Indexed& x = it->second;
        auto [at, offset] = address(gep->getPointerOperand());
        const Op op = bytes == 1 ? Op::LoadIdx8 : bytes == 2 ? Op::LoadIdx16 : bytes == 4 ? Op::LoadIdx32 : Op::LoadIdx64;
        emit({op, x.shift, x.log2Scale, regs_.at(&l), at, reg(x.index), offset + x.offset});
        return;
      }
    Op op;
    if (t->isIntegerTy(1)) op = Op::Load1;
    else if (t->isFloatTy()) op = Op::LoadF32;
    else if (!t->isIntegerTy() && !t->isPointerTy() && !t->isDoubleTy()) refuse("a load of another type");
    else if (bytes == 1) op = Op::Load8;
    else if (bytes == 2) op = Op::Load16;
    else if (bytes == 4) op = Op::Load32;
    else if (bytes == 8) op = Op::Load64;
    else refuse("a load of another size");
    Inst in{op, 0, 0, regs_.at(&l), base, 0, offset};
    // An integer of an odd width (i24) loads its bytes: keep the value's bits only.
    emit(in);
    if (t->isIntegerTy() && t->getIntegerBitWidth() != bytes * 8 && !t->isIntegerTy(1))
      emit({Op::MaskMov, 0, 0, regs_.at(&l), regs_.at(&l), 0, maskOf(t->getIntegerBitWidth())});
  }

  void store(const llvm::StoreInst& s) {
    llvm::Type* t = s.getValueOperand()->getType();
    auto [base, offset] = address(s.getPointerOperand());
    if (llvm::isa<llvm::ConstantAggregateZero>(s.getValueOperand()) && !s.isAtomic() && !s.isVolatile()) {
      // A zeroed aggregate (an interval's or a string's two words): its bytes cleared.
      uint32_t at = base;
      if (offset) {
        at = scratch_;
        emit({Op::AddImm, 0, 0, scratch_, base, 0, offset});
      }
      llvm::Type* i64 = llvm::Type::getInt64Ty(s.getContext());
      emit({Op::MemSet, 0, 0, at, reg(llvm::ConstantInt::get(i64, 0)),
            reg(llvm::ConstantInt::get(i64, t_.dl_.getTypeStoreSize(t))), 0});
      return;
    }
    const uint32_t value = reg(s.getValueOperand());
    const uint64_t bytes = t_.dl_.getTypeStoreSize(t);
    if (s.isAtomic()) {
      if (!t->isIntegerTy() && !t->isPointerTy()) refuse("an atomic store of another type");
      emit({Op::AtomicStore, static_cast<uint8_t>(bytes), 0, 0, base, value, offset});
      return;
    }
    if (s.isVolatile()) refuse("a volatile store");
    Op op;
    if (t->isFloatTy()) op = Op::StoreF32;
    else if (!t->isIntegerTy() && !t->isPointerTy() && !t->isDoubleTy()) refuse("a store of another type");
    else if (bytes == 1) op = Op::Store8;
    else if (bytes == 2) op = Op::Store16;
    else if (bytes == 4) op = Op::Store32;
    else if (bytes == 8) op = Op::Store64;
    else refuse("a store of another size");
    emit({op, 0, 0, 0, base, value, offset});
  }

  void gep(const llvm::GetElementPtrInst& g) {
    if (folded_.count(&g) || indexed_.count(&g)) return;  // its load or store computes it
    if (g.getType()->isVectorTy()) refuse("a vector GEP");
    const uint32_t dst = regs_.at(&g);
    auto [base, offset] = address(g.getPointerOperand());
    uint32_t from = base;
    struct Step {
      uint32_t index;
      uint8_t shift;
      uint64_t scale;
    };
    std::vector<Step> steps;
    for (auto it = llvm::gep_type_begin(g), end = llvm::gep_type_end(g); it != end; ++it) {
      const llvm::Value* idx = it.getOperand();
      if (llvm::StructType* st = it.getStructTypeOrNull()) {
        const unsigned field = static_cast<unsigned>(llvm::cast<llvm::ConstantInt>(idx)->getZExtValue());
        offset += t_.dl_.getStructLayout(st)->getElementOffset(field);
        continue;
      }
      const uint64_t scale = it.getSequentialElementStride(t_.dl_);
      if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(idx)) {
        offset += static_cast<uint64_t>(c->getSExtValue()) * scale;
        continue;
      }
      if (!idx->getType()->isIntegerTy()) refuse("a GEP index of another type");
      steps.push_back({reg(idx), shiftOf(idx->getType()->getIntegerBitWidth()), scale});
    }
    for (const Step& s : steps) {
      emit({Op::GepIndex, s.shift, 0, dst, from, s.index, s.scale});
      from = dst;
    }
    if (offset || from != dst) emit({Op::AddImm, 0, 0, dst, from, 0, offset});
    if (t_.dl_.getPointerSizeInBits() < 64) emit({Op::MaskMov, 0, 0, dst, dst, 0, maskOf(t_.dl_.getPointerSizeInBits())});
  }

  void alloca(const llvm::AllocaInst& a) {
    if (a.getParent() != &lf_.getEntryBlock() || !a.isStaticAlloca()) refuse("an alloca outside the entry block");
    const uint64_t count = llvm::cast<llvm::ConstantInt>(a.getArraySize())->getZExtValue();
    const uint64_t bytes = t_.dl_.getTypeAllocSize(a.getAllocatedType()) * count;
    const uint64_t align = std::max<uint64_t>(a.getAlign().value(), 8);
    if (align > 16) refuse("an alloca aligned to more than 16 bytes");
    uint64_t at = (f_.stackBytes + align - 1) & ~(align - 1);
    f_.stackBytes = static_cast<uint32_t>((at + bytes + 15) & ~uint64_t{15});
    emit({Op::Alloca, 0, 0, regs_.at(&a), 0, 0, at});
  }

  // The moves of `to`'s phis for the edge from `from`: parallel (each reads the values before
  // any is written), through temporaries when one move's source is another's destination.
  void phiMoves(const llvm::BasicBlock* from, const llvm::BasicBlock* to) {
    std::vector<std::pair<uint32_t, uint32_t>> moves;
    for (const llvm::PHINode& phi : to->phis()) {
      if (phi.getType()->isStructTy()) refuse("a phi of a struct");
      moves.push_back({regs_.at(&phi), reg(phi.getIncomingValueForBlock(from))});
    }
    bool overlap = false;
    for (size_t i = 0; i < moves.size() && !overlap; ++i)
      for (size_t j = 0; j < i && !overlap; ++j) overlap = moves[i].second == moves[j].first;
    if (!overlap) {
      for (auto [dst, src] : moves) mov(dst, src);
      return;
    }
    for (size_t i = 0; i < moves.size(); ++i) mov(temps_ + static_cast<uint32_t>(i), moves[i].second);
    for (size_t i = 0; i < moves.size(); ++i) mov(moves[i].first, temps_ + static_cast<uint32_t>(i));
  }

  // Where a jump's target goes: the instruction's imm or b, a switch's default or case k (>= 0).
  static constexpr int kImm = -1, kB = -2, kDefault = -3, kDst = -4;
  // A jump to `to` from the instruction just emitted's `field`: straight to the block, or through
  // an edge of its own when the block has phis.
  void jump(const llvm::BasicBlock* from, const llvm::BasicBlock* to, int field) {
    const uint32_t inst = static_cast<uint32_t>(f_.code.size() - 1);
    if (to->phis().empty()) jumps_.push_back({inst, field, to});
    else edges_.push_back({inst, field, from, to});
  }
  void patch(uint32_t inst, int field, uint32_t target) {
    if (field == kB) f_.code[inst].b = target;
    else if (field == kDst) f_.code[inst].dst = target;
    else if (field == kDefault) f_.switches[f_.code[inst].imm].defaultTarget = target;
    else if (field >= 0) f_.switches[f_.code[inst].imm].cases[static_cast<size_t>(field)].second = target;
    else f_.code[inst].imm = target;
  }

  void br(const llvm::BranchInst& b) {
    const llvm::BasicBlock* here = b.getParent();
    if (b.isUnconditional()) {
      phiMoves(here, b.getSuccessor(0));
      emit({Op::Br});
      jumps_.push_back({static_cast<uint32_t>(f_.code.size() - 1), kImm, b.getSuccessor(0)});
      return;
    }
    if (auto* c = llvm::dyn_cast<llvm::ICmpInst>(b.getCondition()); c && fused_.count(c)) {
      emit(compare(*c, true));
      jump(here, b.getSuccessor(0), kDst);
      jump(here, b.getSuccessor(1), kImm);
      return;
    }
    emit({Op::CondBr, 0, 0, 0, reg(b.getCondition()), 0, 0});
    jump(here, b.getSuccessor(0), kB);
    jump(here, b.getSuccessor(1), kImm);
  }

  void switchOf(const llvm::SwitchInst& s) {
    SwitchTable table;
    for (auto& c : s.cases()) table.cases.push_back({c.getCaseValue()->getZExtValue(), 0});
    f_.switches.push_back(std::move(table));
    emit({Op::Switch, 0, 0, 0, reg(s.getCondition()), 0, f_.switches.size() - 1});
    const llvm::BasicBlock* here = s.getParent();
    jump(here, s.getDefaultDest(), kDefault);
    int k = 0;
    for (auto& c : s.cases()) jump(here, c.getCaseSuccessor(), k++);
  }

  void call(const llvm::CallInst& c) {
    const llvm::Function* callee = c.getCalledFunction();
    if (!callee || c.isInlineAsm()) refuse("an indirect call");
    const uint32_t dst = c.getType()->isVoidTy() ? scratch_ : regs_.at(&c);
    if (callee->isIntrinsic()) return intrinsic(c, callee->getIntrinsicID(), dst);
    if (c.getType()->isStructTy()) refuse("a call returning a struct");
    CallSite site;
    for (const llvm::Use& a : c.args()) site.args.push_back(reg(a.get()));
    if (!callee->isDeclaration()) {
      site.callee = t_.functions_.at(callee);
      emitCall(Op::CallFunction, dst, std::move(site));
      return;
    }
    const RuntimeFunction* rt = findRuntimeFunction(callee->getName().str().c_str());
    if (!rt || !rt->invoke) refuse("a call of " + callee->getName().str());
    site.invoke = rt->invoke;
    site.native = rt->address;
    emitCall(Op::CallNative, dst, std::move(site));
  }
  void emitCall(Op op, uint32_t dst, CallSite site) {
    f_.calls.push_back(std::move(site));
    emit({op, 0, 0, dst, 0, 0, f_.calls.size() - 1});
  }

  void intrinsic(const llvm::CallInst& c, llvm::Intrinsic::ID id, uint32_t dst) {
    auto arg = [&](unsigned k) { return reg(c.getArgOperand(k)); };
    switch (id) {
      case llvm::Intrinsic::prefetch:
      case llvm::Intrinsic::lifetime_start:
      case llvm::Intrinsic::lifetime_end:
      case llvm::Intrinsic::assume:
      case llvm::Intrinsic::donothing:
        return;
      case llvm::Intrinsic::expect: return mov(dst, arg(0));
      case llvm::Intrinsic::memset: emit({Op::MemSet, 0, 0, arg(0), arg(1), arg(2), 0}); return;
      case llvm::Intrinsic::memcpy: emit({Op::MemCpy, 0, 0, arg(0), arg(1), arg(2), 0}); return;
      case llvm::Intrinsic::memmove: emit({Op::MemMove, 0, 0, arg(0), arg(1), arg(2), 0}); return;
      case llvm::Intrinsic::sadd_with_overflow:
      case llvm::Intrinsic::ssub_with_overflow:
      case llvm::Intrinsic::smul_with_overflow: {
        const Op op = id == llvm::Intrinsic::sadd_with_overflow   ? Op::SAddOv
                      : id == llvm::Intrinsic::ssub_with_overflow ? Op::SSubOv
                                                                  : Op::SMulOv;
        emit({op, shiftOf(bits(c.getArgOperand(0))), 0, dst, arg(0), arg(1), 0});
        return;
      }
      case llvm::Intrinsic::sqrt:
        emit({Op::Sqrt, 0, 0, dst, arg(0), 0, 0});
        return roundIfFloat(c);
      case llvm::Intrinsic::fabs: emit({Op::Fabs, 0, 0, dst, arg(0), 0, 0}); return;
      default: refuse("the intrinsic " + c.getCalledFunction()->getName().str());
    }
  }

  Translator& t_;
  const llvm::Function& lf_;
  Function& f_;
  llvm::DenseMap<const llvm::Value*, uint32_t> regs_;
  std::unordered_map<uint64_t, uint32_t> constants_;  // by value (DenseMap reserves ~0)
  llvm::DenseMap<const llvm::GetElementPtrInst*, std::pair<const llvm::Value*, uint64_t>> folded_;
  struct Indexed {
    const llvm::Value* index = nullptr;
    uint8_t shift = 0, log2Scale = 0;
    uint64_t offset = 0;  // the constant part
  };
  llvm::DenseMap<const llvm::GetElementPtrInst*, Indexed> indexed_;
  llvm::DenseSet<const llvm::ICmpInst*> fused_;
  llvm::DenseSet<const llvm::Instruction*> skipped_;
  llvm::DenseMap<const llvm::BasicBlock*, uint32_t> blockAt_;
  uint32_t next_ = 0, scratch_ = 0, temps_ = 0;
  struct Jump {
    uint32_t inst;
    int field;
    const llvm::BasicBlock* to;
  };
  struct Edge {
    uint32_t inst;
    int field;
    const llvm::BasicBlock *from, *to;
  };
  std::vector<Jump> jumps_;
  std::vector<Edge> edges_;
};

void Translator::run() {
  for (const llvm::GlobalVariable& g : m_.globals()) globalAddress(g);
  for (const llvm::Function& lf : m_) {
    if (lf.isDeclaration()) continue;
    auto f = std::make_unique<Function>();
    f->name = lf.getName().str();
    functions_[&lf] = f.get();
    out_.functions_.push_back(std::move(f));
    if (kindOf(lf) == EntryKind::Pipeline) entryOf(lf);
  }
  for (const llvm::Function& lf : m_)
    if (!lf.isDeclaration()) FunctionTranslator(*this, lf, *functions_[&lf]).run();
}

std::unique_ptr<InterpretedModule> translate(const llvm::Module& m, std::string* why) {
  auto out = std::make_unique<InterpretedModule>();
  try {
    Translator(m, *out).run();
  } catch (const Refused& r) {
    if (why) *why = r.why;
    return nullptr;
  }
  return out;
}

}  // namespace hyrax::interp
