#pragma once
// How deep may a pass recurse? A statement's trees can be as deep as the statement is long (a sum
// of 10,000 terms is a left-deep tree of 10,000 levels, kept so because evaluation order decides
// overflow and rounding), and the passes over them (binder, rewrites, printing, code generation)
// recurse. Rather than a fixed depth bound that is too low for some passes' frames and too high
// for others', each recursive pass asks before it goes a level deeper whether the stack has room
// left, as PostgreSQL's check_stack_depth() does: past the thread's stack less a reserve it throws
// 54001, so a hostile statement gets an error, never a crash. The executor thread, where every
// statement is planned and compiled (snapshot workers inherit its stack through fork), has a
// large stack (kExecutorStackBytes), so real queries never come near it.
#include <cstddef>

namespace hyrax {

// The executor thread's stack: room for a chain of well over 10,000 terms in every pass (about
// 270,000 in code generation, the deepest per level; docs/architecture.md, "Nesting is bounded,
// chains are not"). Only the pages a statement touches are ever backed by memory; a 32-bit target, with
// less address space to spare, gets a quarter.
inline constexpr size_t kExecutorStackBytes = sizeof(void*) >= 8 ? size_t{256} << 20 : size_t{64} << 20;

// Throws 54001 when less than the reserve is left on this thread's stack. Cheap: one comparison
// after the first call on a thread.
void checkStackDepth();

// The bytes this thread may still use before checkStackDepth() throws (for tests and figures).
size_t stackDepthLeft();

// Whether this thread's stack is as large as the executor's (a LargeStackThread of
// kExecutorStackBytes): only such a thread runs statements itself (SerialExecutor::run), so a
// statement never meets a lower depth limit for the thread its session happens to be on.
bool hasExecutorStack();

// After a statement that went deep (more than a few MiB below the caller's frame, as
// checkStackDepth() saw it): gives the pages below the caller's frame back to the kernel. Else
// they stay resident, memory the process keeps, and page-table entries every snapshot fork
// copies. A shallow statement costs a comparison. The executor calls it after each task.
void releaseDeepStack();

}  // namespace hyrax
