// SPDX-FileCopyrightText: 2026 AsyncSparse contributors
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Parameter lists: the driver's --param text (parse_parameter_string) and ParameterSpec::validate.
#include <asyncsparse/core/AsyncSparse_parameters.hpp>

#include <cmath>
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

TEST(Parameters, parse_parameter_string_numbers_are_the_whole_value) {
  // Numbers follow the library's one rule (core/AsyncSparse_parse_number.hpp): white space or an underflow keeps
  // the text a string, which a numeric parameter then rejects by its type instead of reading 5 or 0.
  const ParameterList l = parse_parameter_string("a= 5,b=5 ,c=1e-400,d=+3,e=0x1p-3");
  EXPECT_EQ(l.get("a", ""), " 5");
  EXPECT_EQ(l.get("b", ""), "5 ");
  EXPECT_EQ(l.get("c", ""), "1e-400");
  EXPECT_EQ(l.get("d", 0), 3);
  EXPECT_EQ(l.get("e", 0.0), 0.125);
  ParameterSpec spec;
  spec.add("tol", 1e-6, "tolerance");
  try {
    spec.validate(parse_parameter_string("tol=1e-400"), "test");
    ADD_FAILURE() << "no InvalidInput";
  } catch (const InvalidInput& e) {
    EXPECT_NE(std::string(e.what()).find("parameter 'tol' must be of type double, got string"), std::string::npos)
        << e.what();
  }
}

namespace {
using Impl::NumberText;
}

TEST(Parameters, parse_number_rules) {
  long long i = 7;
  EXPECT_EQ(Impl::parse_integer("-12", i), NumberText::Ok);
  EXPECT_EQ(i, -12);
  EXPECT_EQ(Impl::parse_integer("+12", i), NumberText::Ok);
  EXPECT_EQ(i, 12);
  for (const char* bad : {"", " 1", "1 ", "1.0", "0x10", "1e3", "--1", "+", "12a"}) {
    SCOPED_TRACE(std::string("'") + bad + "'");
    EXPECT_EQ(Impl::parse_integer(bad, i), NumberText::Malformed);
    EXPECT_EQ(i, 12);  // untouched
  }
  EXPECT_EQ(Impl::parse_integer("9223372036854775808", i), NumberText::OutOfRange);
  EXPECT_EQ(Impl::parse_integer("-9223372036854775808", i), NumberText::Ok);
  // within bounds: both ends included, outside / malformed leave the value alone
  EXPECT_TRUE(Impl::parse_integer_in("-3", -3, 5, i));
  EXPECT_EQ(i, -3);
  EXPECT_TRUE(Impl::parse_integer_in("5", -3, 5, i));
  EXPECT_EQ(i, 5);
  for (const char* bad : {"6", "-4", "2147483648", "1.0", ""}) {
    SCOPED_TRACE(std::string("'") + bad + "'");
    EXPECT_FALSE(Impl::parse_integer_in(bad, -3, 5, i));
    EXPECT_EQ(i, 5);
  }
  unsigned long long u = 0;
  EXPECT_EQ(Impl::parse_unsigned("18446744073709551615", u), NumberText::Ok);
  EXPECT_EQ(u, 18446744073709551615ull);
  EXPECT_EQ(Impl::parse_unsigned("18446744073709551616", u), NumberText::OutOfRange);
  EXPECT_EQ(Impl::parse_unsigned("-1", u), NumberText::Malformed);  // strtoull would give 2^64 - 1
  EXPECT_EQ(Impl::parse_unsigned(" 1", u), NumberText::Malformed);
  double d = 0;
  EXPECT_EQ(Impl::parse_number("2.5e-3", d), NumberText::Ok);
  EXPECT_EQ(d, 2.5e-3);
  EXPECT_EQ(Impl::parse_number("-inf", d), NumberText::Ok);  // the caller decides about non-finite values
  EXPECT_TRUE(std::isinf(d));
  for (const char* bad : {"", " 1", "1 ", "1e", "1,5", "x"}) {
    SCOPED_TRACE(std::string("'") + bad + "'");
    EXPECT_EQ(Impl::parse_number(bad, d), NumberText::Malformed);
  }
  EXPECT_EQ(Impl::parse_number("1e400", d), NumberText::OutOfRange);
  EXPECT_EQ(Impl::parse_number("-1e-400", d), NumberText::OutOfRange);
  EXPECT_EQ(Impl::parse_number("0e-400", d), NumberText::Ok);  // an exact zero is no underflow
  EXPECT_EQ(d, 0.0);
  EXPECT_EQ(Impl::parse_number("1e-310", d), NumberText::Ok);  // subnormal: a number (strtod flags it)
  EXPECT_EQ(d, 1e-310);
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
