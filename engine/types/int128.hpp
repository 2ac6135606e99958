#pragma once
// A 128-bit signed integer for decimal intermediates in C++ runtime code. GCC has no __int128 on
// 32-bit ARM, so there a sign-magnitude two-word fallback provides the few operations decimals
// need (multiply/add by 64-bit values, division by a 64-bit value, comparison).
#include <cstdint>

namespace hyrax {

#ifdef __SIZEOF_INT128__
class Int128 {
 public:
  Int128(int64_t v = 0) : v_(v) {}
  Int128 operator*(int64_t o) const { return from(v_ * o); }
  Int128 operator*(const Int128& o) const { return from(v_ * o.v_); }
  Int128 operator+(int64_t o) const { return from(v_ + o); }
  Int128 operator+(const Int128& o) const { return from(v_ + o.v_); }
  Int128 operator-(const Int128& o) const { return from(v_ - o.v_); }
  Int128 operator-() const { return from(-v_); }
  // Truncating division and remainder (C semantics).
  Int128 operator/(int64_t o) const { return from(v_ / o); }
  Int128 operator/(const Int128& o) const { return from(v_ / o.v_); }
  Int128 operator%(const Int128& o) const { return from(v_ % o.v_); }
  bool operator<(const Int128& o) const { return v_ < o.v_; }
  bool operator>(const Int128& o) const { return v_ > o.v_; }
  bool operator<=(const Int128& o) const { return v_ <= o.v_; }
  bool operator>=(const Int128& o) const { return v_ >= o.v_; }
  bool operator==(const Int128& o) const { return v_ == o.v_; }
  bool operator!=(const Int128& o) const { return v_ != o.v_; }
  bool isNegative() const { return v_ < 0; }
  bool fitsInt64() const { return v_ >= INT64_MIN && v_ <= INT64_MAX; }
  int64_t toInt64() const { return static_cast<int64_t>(v_); }

 private:
  static Int128 from(__int128 v) {
    Int128 r;
    r.v_ = v;
    return r;
  }
  __int128 v_;
};
#else
class Int128 {
 public:
  Int128(int64_t v = 0) : neg_(v < 0), hi_(0), lo_(v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v)) {}
  Int128 operator*(int64_t o) const { return *this * Int128(o); }
  Int128 operator*(const Int128& o) const {
    // (hi1*2^64 + lo1) * (hi2*2^64 + lo2), low 128 bits of the magnitude.
    uint64_t a0 = lo_ & 0xffffffffu, a1 = lo_ >> 32, b0 = o.lo_ & 0xffffffffu, b1 = o.lo_ >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    Int128 r;
    r.lo_ = (mid << 32) | (p00 & 0xffffffffu);
    r.hi_ = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32) + hi_ * o.lo_ + lo_ * o.hi_;
    r.neg_ = (neg_ != o.neg_) && !r.isZero();
    return r;
  }
  Int128 operator+(int64_t o) const { return *this + Int128(o); }
  Int128 operator+(const Int128& o) const {
    if (neg_ == o.neg_) {
      Int128 r;
      r.lo_ = lo_ + o.lo_;
      r.hi_ = hi_ + o.hi_ + (r.lo_ < lo_);
      r.neg_ = neg_ && !r.isZero();
      return r;
    }
    const Int128& big = magLess(o) ? o : *this;
    const Int128& small = magLess(o) ? *this : o;
    Int128 r;
    r.lo_ = big.lo_ - small.lo_;
    r.hi_ = big.hi_ - small.hi_ - (big.lo_ < small.lo_);
    r.neg_ = big.neg_ && !r.isZero();
    return r;
  }
  Int128 operator-() const {
    Int128 r = *this;
    r.neg_ = !neg_ && !isZero();
    return r;
  }
  Int128 operator-(const Int128& o) const { return *this + (-o); }
  Int128 operator/(int64_t o) const { return *this / Int128(o); }
  Int128 operator/(const Int128& o) const { return divmod(o, false); }
  Int128 operator%(const Int128& o) const { return divmod(o, true); }
  bool operator<(const Int128& o) const {
    if (neg_ != o.neg_) return neg_;
    return neg_ ? o.magLess(*this) : magLess(o);
  }
  bool operator>(const Int128& o) const { return o < *this; }
  bool operator<=(const Int128& o) const { return !(o < *this); }
  bool operator>=(const Int128& o) const { return !(*this < o); }
  bool operator==(const Int128& o) const { return neg_ == o.neg_ && hi_ == o.hi_ && lo_ == o.lo_; }
  bool operator!=(const Int128& o) const { return !(*this == o); }
  bool isNegative() const { return neg_; }
  bool fitsInt64() const { return hi_ == 0 && (lo_ <= static_cast<uint64_t>(INT64_MAX) || (neg_ && lo_ == (1ULL << 63))); }
  int64_t toInt64() const { return neg_ ? static_cast<int64_t>(0 - lo_) : static_cast<int64_t>(lo_); }

 private:
  bool isZero() const { return hi_ == 0 && lo_ == 0; }
  bool magLess(const Int128& o) const { return hi_ != o.hi_ ? hi_ < o.hi_ : lo_ < o.lo_; }
  // Binary long division of magnitudes; truncates toward zero like C.
  Int128 divmod(const Int128& d, bool wantRem) const {
    Int128 q, r;
    for (int i = 127; i >= 0; --i) {
      r.hi_ = (r.hi_ << 1) | (r.lo_ >> 63);
      r.lo_ = (r.lo_ << 1) | ((i >= 64 ? (hi_ >> (i - 64)) : (lo_ >> i)) & 1);
      Int128 dm = d;
      dm.neg_ = false;
      if (!r.magLess(dm)) {
        r = r + (-dm);
        if (i >= 64) q.hi_ |= 1ULL << (i - 64); else q.lo_ |= 1ULL << i;
      }
    }
    if (wantRem) {
      r.neg_ = neg_ && !r.isZero();
      return r;
    }
    q.neg_ = (neg_ != d.neg_) && !q.isZero();
    return q;
  }
  bool neg_ = false;
  uint64_t hi_ = 0, lo_ = 0;
};
#endif

}  // namespace hyrax
