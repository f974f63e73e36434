// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// libFuzzer target: the command line of the asyncsparse driver (parse_command_line: the --kokkos-* split, the
// `help` form, the unknown-command check, CLI11's conversion and checks with the driver's validators and error
// messages), for the subcommands compiled in. Nothing is run and Kokkos is not initialised, as in main() before
// a subcommand starts.
//
// Input: the arguments after `asyncsparse`, separated by NUL bytes (at most 64). parse_command_line returns
// -1 (go on), 0 with help text, or 2 with one error line; the options of a chosen subcommand are then written
// out as the record's "options". Any exception, another status, an error without a message, a crash or
// undefined behaviour is a finding.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "driver_cli.hpp"
#include "fuzz_support.hpp"

using namespace AsyncSparse;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> words{"asyncsparse"};
  std::string w;
  for (std::size_t k = 0; k < size && words.size() < 65; ++k) {
    if (data[k] == 0) {
      words.push_back(w);
      w.clear();
    } else {
      w += static_cast<char>(data[k]);
    }
  }
  if (size > 0 && words.size() < 65) words.push_back(w);
  std::vector<char*> argv;
  for (auto& x : words) argv.push_back(&x[0]);
  argv.push_back(nullptr);

  Driver::CommandLine cl;
  std::ostringstream out, err;
  const int status = Driver::parse_command_line(static_cast<int>(words.size()), argv.data(), cl, out, err);
  if (status == 0 && out.str().empty()) Fuzz::fail("exit status 0 without help text");
  if (status == 2 && err.str().find("error") == std::string::npos &&
      err.str().find("unknown command") == std::string::npos)
    Fuzz::fail("exit status 2 without an error message");
  if (status != -1 && status != 0 && status != 2) Fuzz::fail("unexpected exit status");
  if (status == -1 && cl.chosen) {
    // As save_json writes the record: bytes that are not UTF-8 (a file name in another encoding) replaced.
    const auto options = cl.chosen->cli->to_json().dump(2, ' ', false, Driver::Json::error_handler_t::replace);
    if (cl.chosen->cli->option_names().empty() || options.empty()) Fuzz::fail("no options");
  }
  return 0;
}
