// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Parameter lists: the driver's --param text (parse_parameter_string) and ParameterSpec::validate.
#include <asyncsparse/core/AsyncSparse_parameters.hpp>

#include <string>

#include <gtest/gtest.h>

using namespace AsyncSparse;

TEST(Parameters, parse_parameter_string_types) {
  const ParameterList l = parse_parameter_string("sweeps=5,tolerance=1e-8,deterministic=true,tri_solve=jacobi,,x=-7");
  EXPECT_EQ(l.get("sweeps", 0), 5);
  EXPECT_EQ(l.get("tolerance", 0.0), 1e-8);
  EXPECT_EQ(l.get("deterministic", false), true);
  EXPECT_EQ(l.get("tri_solve", ""), "jacobi");
  EXPECT_EQ(l.get("x", 0), -7);
  EXPECT_EQ(l.values().size(), 5u);
  EXPECT_EQ(parse_parameter_string("label=a=b").get("label", ""), "a=b");
  EXPECT_EQ(parse_parameter_string("s=2,s=3").get("s", 0), 3);
  EXPECT_TRUE(parse_parameter_string("").values().empty());
}

TEST(Parameters, parse_parameter_string_integer_beyond_int_is_a_double) {
  // 2^32 + 1 used to wrap around to the int 1; it is now the double 4294967297, which an int parameter rejects.
  const ParameterList l = parse_parameter_string("sweeps=4294967297,big=-99999999999999999999,t=2147483647");
  EXPECT_EQ(l.get("t", 0), 2147483647);
  EXPECT_EQ(l.get("sweeps", 0.0), 4294967297.0);
  EXPECT_EQ(l.get("big", 0.0), -1e20);
  EXPECT_THROW(l.get("sweeps", 0), InvalidInput);
  ParameterSpec spec;
  spec.add("sweeps", 5, "sweeps");
  try {
    spec.validate(parse_parameter_string("sweeps=4294967297"), "test");
    ADD_FAILURE() << "no InvalidInput";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("parameter 'sweeps' must be of type int, got double"), std::string::npos)
        << e.what();
  }
}

TEST(Parameters, parse_parameter_string_rejects_items_without_a_name) {
  for (const char* s : {"sweeps", "=5", "a=1,b"}) {
    SCOPED_TRACE(s);
    try {
      parse_parameter_string(s);
      ADD_FAILURE() << "no InvalidInput";
    } catch (const InvalidInput& e) {
      EXPECT_NE(std::string(e.what()).find("must be written name=value"), std::string::npos) << e.what();
    }
  }
}
