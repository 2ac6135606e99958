#pragma once
// The shell's command line (`hyrax [-c SQL] [-f FILE] [--csv|--json] [--timing]`): runs the
// statements given, or reads them from standard input (interactively on a terminal). The hyrax
// executable (cli/main.cpp) calls it for everything but `hyrax serve`.
namespace hyrax::shell {

int shellMain(int argc, char** argv);

}  // namespace hyrax::shell
