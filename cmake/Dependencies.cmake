# The one place that finds every external dependency. All come from Debian 12's packages:
#   llvm-19-dev libfmt-dev libboost-dev libboost-program-options-dev catch2 libpqxx-dev libedit-dev
#   libsqlite3-dev (and postgresql-15, whose server the TPC-H bench starts as a peer)
# LLVM's version file accepts only an exact major.minor, so look in llvm-19's folder and check the major.
find_package(LLVM CONFIG REQUIRED PATHS /usr/lib/llvm-19/lib/cmake/llvm NO_DEFAULT_PATH)
if(NOT LLVM_VERSION_MAJOR EQUAL 19)
  message(FATAL_ERROR "hyrax needs LLVM 19 (found ${LLVM_PACKAGE_VERSION}); run scripts/setup.sh")
endif()
message(STATUS "LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")
# LLVM's shared library; we deliberately do not take `llvm-config --cxxflags` (it adds -fno-exceptions).
add_library(hyrax_llvm INTERFACE)
target_include_directories(hyrax_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(hyrax_llvm INTERFACE ${LLVM_DEFINITIONS_LIST})
target_link_libraries(hyrax_llvm INTERFACE LLVM)

find_package(fmt REQUIRED)
find_package(Boost 1.74 REQUIRED COMPONENTS program_options)
find_package(Catch2 2 REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBEDIT REQUIRED IMPORTED_TARGET libedit)
pkg_check_modules(LIBPQXX REQUIRED IMPORTED_TARGET libpqxx)
find_package(SQLite3 REQUIRED)  # the TPC-H bench's SQLite peer
find_package(Threads REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)  # SCRAM-SHA-256 of roles' passwords
