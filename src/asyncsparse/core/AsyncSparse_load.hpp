// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// AsyncSparse — load a matrix named on the command line: a Matrix Market file (plain or .gz) or a
// generator spec ("gen:lap2d:1024", "gen:lap3d27:64", ...; see AsyncSparse_generators.hpp).
#pragma once

#include <string>

#include <asyncsparse/core/AsyncSparse_generators.hpp>
#include <asyncsparse/core/AsyncSparse_matrix_market.hpp>

namespace AsyncSparse {

/// A file path or a "gen:" spec → host CSR matrix (sorted, duplicates merged, symmetric storage expanded).
inline CsrHost<double> load_matrix(const std::string& spec) {
  if (is_generator_spec(spec)) return generate(spec);
  return read_matrix_market(spec);
}

/// Short display name: the generator spec, or the file name without folders and .mtx/.gz.
inline std::string matrix_display_name(const std::string& spec) {
  if (is_generator_spec(spec)) return spec;
  std::string s = spec.substr(spec.find_last_of('/') == std::string::npos ? 0 : spec.find_last_of('/') + 1);
  for (const char* ext : {".gz", ".mtx"})
    if (s.size() > std::string(ext).size() && s.compare(s.size() - std::string(ext).size(), std::string::npos, ext) == 0)
      s.resize(s.size() - std::string(ext).size());
  return s;
}

}  // namespace AsyncSparse
