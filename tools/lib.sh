# SPDX-FileCopyrightText: 2026 AsyncSparse contributors
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Shared shell functions of the tools/ scripts (sourced, not run).
# shellcheck shell=bash

ASYNCSPARSE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${JOBS:-$(nproc)}"

say() { echo "[asyncsparse] $*" >&2; }

# Install the Debian packages the build needs when they are missing (fresh machines). Needs root or
# sudo; otherwise names what is missing and stops.
ensure_packages() {
  local want=(cmake ninja-build g++ libgtest-dev libbenchmark-dev zlib1g-dev libcli11-dev nlohmann-json3-dev python3 "$@")
  local missing=()
  for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing missing Debian packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"; } >&2; then
    echo "error: could not install ${missing[*]} (apt-get failed; install them and run again)" >&2
    exit 1
  fi
}

# The compile-only subset of the GPU builds (tools/build-cuda|build-hip --subset, as CI runs them): the library (every
# method, through its explicit instantiations), the driver and the ParIlu unit tests; the other unit tests, the
# backend-independent host tests (built and run by tools/test), the perf tests and the examples are left out.
# take_subset_option "$@": consume a leading `--subset` (sets SUBSET_ARGS); the caller continues with REST.
take_subset_option() {
  SUBSET_ARGS=(-DAsyncSparse_ENABLE_HOST_TESTS=ON)
  if [ "${1:-}" = --subset ]; then
    # compile only, nothing timed: a CUDA build's host code at -O1 (AsyncSparse_CUDA_HOST_OPTIMIZATION)
    SUBSET_ARGS=(-DAsyncSparse_TEST_FEATURES=ParIlu -DAsyncSparse_ENABLE_HOST_TESTS=OFF -DAsyncSparse_ENABLE_PERFTESTS=OFF
      -DAsyncSparse_ENABLE_EXAMPLES=OFF -DAsyncSparse_CUDA_HOST_OPTIMIZATION=-O1)
    shift
  fi
  REST=("$@")
}

# The Kokkos stack of tools/bootstrap: 3 (Kokkos 3.4.01, default) or 4 (Kokkos 4.6.01 + Kokkos-Kernels 4.7.00).
ASYNCSPARSE_KOKKOS="${ASYNCSPARSE_KOKKOS:-3}"

# The offset (row pointer) type of the build (CMake AsyncSparse_OFFSET_TYPE): int (default) or int64.
ASYNCSPARSE_OFFSETS="${ASYNCSPARSE_OFFSETS:-int}"

# take_option NAME VARIABLE "$@": consume `NAME VALUE` / `NAME=VALUE` anywhere in the arguments (sets and exports
# VARIABLE); the caller continues with the arguments in REST.
take_option() {
  local name="$1" var="$2"
  shift 2
  REST=()
  while [ $# -gt 0 ]; do
    case "$1" in
      "$name")
        [ $# -ge 2 ] || { echo "error: $name needs a value" >&2; exit 2; }
        printf -v "$var" '%s' "$2"
        shift 2
        ;;
      "$name"=*)
        printf -v "$var" '%s' "${1#"$name"=}"
        shift
        ;;
      *)
        REST+=("$1")
        shift
        ;;
    esac
  done
  export "${var?}"
}

# take_kokkos_option "$@": --kokkos 3|4 (ASYNCSPARSE_KOKKOS); the other arguments in REST.
take_kokkos_option() { take_option --kokkos ASYNCSPARSE_KOKKOS "$@"; }

# build_suffix: "" for the default stack, "-kokkos4" for stack 4 (build folders of both stacks coexist).
build_suffix() {
  local s=""
  case "$ASYNCSPARSE_KOKKOS" in 4 | 4.6 | 4.6.01) s="-kokkos4" ;; esac
  [ "$ASYNCSPARSE_OFFSETS" = int64 ] && s="$s-off64"
  echo "$s"
}

# take_offsets_option "$@": --offsets int|int64 (ASYNCSPARSE_OFFSETS); the other arguments in REST.
take_offsets_option() {
  take_option --offsets ASYNCSPARSE_OFFSETS "$@"
  case "$ASYNCSPARSE_OFFSETS" in int | int64) ;; *) echo "error: --offsets must be int or int64" >&2; exit 2 ;; esac
}

# kokkos_prefix FLAVOUR: print the install prefix of Kokkos for FLAVOUR (bootstrapping it if needed).
# A user-provided Kokkos (Kokkos_ROOT) is used as is.
kokkos_prefix() {
  bash "$ASYNCSPARSE_ROOT/tools/bootstrap" "$1" --kokkos "$ASYNCSPARSE_KOKKOS" | tail -n 1
}

# configure_build FLAVOUR BUILD_DIR [cmake args...]: configure and build AsyncSparse.
configure_build() {
  local flavour="$1" dir="$2"
  shift 2
  local prefix
  prefix="$(kokkos_prefix "$flavour")"
  local extra=()
  if [ "$flavour" = cuda ]; then extra+=("-DCMAKE_CXX_COMPILER=$prefix/bin/nvcc_wrapper" "-DCMAKE_CXX_FLAGS=-arch=sm_90"); fi
  if [ "$flavour" = hip ]; then extra+=("-DCMAKE_CXX_COMPILER=hipcc"); fi
  say "configuring $dir ($flavour, Kokkos in $prefix)"
  cmake -S "$ASYNCSPARSE_ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" -DAsyncSparse_OFFSET_TYPE="$ASYNCSPARSE_OFFSETS" "${extra[@]}" "$@" >"$dir.configure.log" 2>&1 ||
    { tail -n 40 "$dir.configure.log" >&2; echo "error: CMake configure failed (log: $dir.configure.log)" >&2; exit 1; }
  say "building $dir ($JOBS jobs)"
  cmake --build "$dir" -j "$JOBS" ||
    { echo "error: build failed in $dir" >&2; exit 1; }
}
